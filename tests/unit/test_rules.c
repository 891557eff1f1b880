/* Unit tests (no MPI run): PAT_REDUCE_RULES files (src/core/rules.c).
 * Good files: the first matching line's algorithm and settings, ranges
 * inclusive, no match outside them, the shipped bench/rules/curie.rules;
 * bad files: each mistake reported as FILE:LINE: and its reason, through
 * the configuration (every call fails, defaults kept); the file's
 * contents are part of the agreement's fingerprint. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/pat_internal.h"

static char path[4096];

static const char *rules_env(const char *name) {
  return strcmp(name, "PAT_REDUCE_RULES") == 0 ? path : NULL;
}

static const char *no_env(const char *name) {
  (void)name;
  return NULL;
}

/* Writes text to a fresh temporary file named in path. */
static void write_rules(const char *text) {
  int fd;
  snprintf(path, sizeof path, "/tmp/pat_rules_XXXXXX");
  fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
}

static const char good[] =
    "# a comment line\n"
    "\n"
    "1-2     *        binomial        # one message\n"
    "*       0-16K    butterfly\n"
    "3-64    16K-1M   radixk   RADIXK=auto\n"
    "*       1M-      clairvoyant  MAX_SENDS=2 PAT_REDUCE_SEGMENTS=8\n"
    "65-     *        binomial,ring\n";

static void first_matching_line_serves(void **state) {
  pat_rules *rs = NULL;
  const pat_config *c;
  char why[512] = "";
  int line = 0;
  (void)state;
  write_rules(good);
  assert_int_equal(pat_rules_read(path, no_env, &rs, why, sizeof why),
                   PAT_SUCCESS);
  /* 1-2 ranks: binomial at any size, before every later line */
  c = pat_rules_match(rs, 2, 100 << 20, &line);
  assert_non_null(c);
  assert_int_equal(line, 3);
  assert_int_equal(c->algorithm, PAT_REDUCE_ALG_BINOMIAL);
  /* 16K is inside 0-16K (inclusive); 16K + 1 is the next line's */
  c = pat_rules_match(rs, 8, 16384, &line);
  assert_int_equal(c->algorithm, PAT_REDUCE_ALG_BUTTERFLY);
  assert_int_equal(line, 4);
  c = pat_rules_match(rs, 64, 16385, &line);
  assert_int_equal(c->algorithm, PAT_REDUCE_ALG_RADIXK);
  assert_int_equal(line, 5);
  /* a line's settings are its configuration's; the rest are defaults */
  c = pat_rules_match(rs, 64, 1 << 20, &line);
  assert_int_equal(line, 5); /* 1M is in 16K-1M */
  c = pat_rules_match(rs, 64, (1 << 20) + 1, &line);
  assert_int_equal(line, 6);
  assert_int_equal(c->algorithm, PAT_REDUCE_ALG_CLAIRVOYANT);
  assert_int_equal(c->max_sends, 2);
  assert_int_equal(c->segments, 8);
  assert_string_equal(c->predictor, "cycle:5");
  assert_int_equal(c->max_outstanding, 1);
  assert_null(c->rules);
  /* a list: auto among those rows */
  c = pat_rules_match(rs, 65, 20000, &line);
  assert_int_equal(line, 7);
  assert_int_equal(c->algorithm, PAT_REDUCE_ALG_AUTO);
  assert_true(c->candidates ==
              (1ull << PAT_REDUCE_ALG_BINOMIAL | 1ull << PAT_REDUCE_ALG_RING));
  pat_rules_free(rs);
  unlink(path);

  /* nothing matches outside every range */
  write_rules("4-8 0-1K ring\n");
  assert_int_equal(pat_rules_read(path, no_env, &rs, why, sizeof why),
                   PAT_SUCCESS);
  assert_null(pat_rules_match(rs, 9, 8, &line));
  assert_null(pat_rules_match(rs, 4, 1025, &line));
  assert_null(pat_rules_match(rs, 3, 0, &line));
  assert_non_null(pat_rules_match(rs, 8, 0, &line));
  pat_rules_free(rs);
  unlink(path);
}

/* The configuration reads PAT_REDUCE_RULES; the shipped example is good. */
static void shipped_rules_and_configuration(void **state) {
  pat_config cfg;
  (void)state;
  snprintf(path, sizeof path, "%s", PAT_SOURCE_DIR "/bench/rules/curie.rules");
  if (strlen(PAT_SOURCE_DIR "/bench/rules/curie.rules") >= sizeof path)
    skip();
  pat_config_parse(&cfg, rules_env);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_non_null(cfg.rules);
  assert_int_equal(pat_rules_match(cfg.rules, 128, 8, NULL)->algorithm,
                   PAT_REDUCE_ALG_BINOMIAL);
  assert_int_equal(pat_rules_match(cfg.rules, 128, 64 << 10, NULL)->algorithm,
                   PAT_REDUCE_ALG_RADIXK);
  assert_int_equal(pat_rules_match(cfg.rules, 128, 1 << 20, NULL)->algorithm,
                   PAT_REDUCE_ALG_CLAIRVOYANT);
  assert_int_equal(pat_rules_match(cfg.rules, 128, 40 << 20, NULL)->algorithm,
                   PAT_REDUCE_ALG_PIPELINE);
  assert_int_equal(pat_rules_match(cfg.rules, 2, 40 << 20, NULL)->algorithm,
                   PAT_REDUCE_ALG_BINOMIAL);
  pat_rules_free(cfg.rules);
}

typedef struct bad_case {
  const char *text;
  const char *want; /* in the message, after FILE: */
} bad_case;

static void bad_files_name_file_and_line(void **state) {
  static const bad_case cases[] = {
      {"* * binomial\n* 0-8\n", ":2: a rule is RANKS BYTES ALGORITHM"},
      {"0-4 * binomial\n", ":1: '0-4' is not a range of communicator sizes"},
      {"8-4 * binomial\n", ":1: '8-4' is not a range of communicator sizes"},
      {"x * binomial\n", ":1: 'x' is not a range of communicator sizes"},
      {"# c\n* 1Q binomial\n", ":2: '1Q' is not a range of message sizes"},
      {"* 64K-1K binomial\n", ":1: '64K-1K' is not a range of message sizes"},
      {"* 1-2-3 binomial\n", ":1: '1-2-3' is not a range of message sizes"},
      {"* * ring2\n", ":1: PAT_REDUCE_ALGORITHM=ring2 is not an algorithm"},
      {"\n\n* * pipeline SEGMENTS=0x\n",
       ":3: PAT_REDUCE_SEGMENTS=0x is not a segment count"},
      {"* * pipeline FOO=1\n", ":1: FOO is not a setting a rule can give"},
      {"* * pipeline ALGORITHM=ring\n",
       ":1: ALGORITHM is not a setting a rule can give"},
      {"* * pipeline PAT_REDUCE_RULES=x\n",
       ":1: PAT_REDUCE_RULES is not a setting a rule can give"},
      {"* * pipeline SEGMENTS\n", ":1: 'SEGMENTS' is not a setting"},
      {"* * clairvoyant SEGMENTS=0x\n", ":1: PAT_REDUCE_SEGMENTS=0x"},
      /* the PAT layer's: a communicator keeps them from the environment */
      {"* * clairvoyant PREDICTOR=ema:0.3\n",
       ":1: PREDICTOR is not a setting a rule can give"},
      {"* * clairvoyant EXCHANGE_LAG=2\n",
       ":1: EXCHANGE_LAG is not a setting a rule can give"},
      {"* * clairvoyant MODEL=m\n",
       ":1: MODEL is not a setting a rule can give"},
      {"* * clairvoyant ROUND_COST=1ms\n",
       ":1: ROUND_COST is not a setting a rule can give"},
  };
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pat_config cfg;
    char want[sizeof path + 256];
    write_rules(cases[i].text);
    pat_config_parse(&cfg, rules_env);
    snprintf(want, sizeof want, "%s%s", path, cases[i].want);
    if (cfg.error != PAT_ERR_BAD_ENV || strstr(cfg.why, want) != cfg.why)
      fail_msg("case %zu: want '%s...', got '%s'", i, want, cfg.why);
    /* every call fails: the scope is every call's */
    assert_non_null(pat_config_bad(&cfg, PAT_SCOPE_BIT(PAT_SCOPE_ALL)));
    assert_null(cfg.rules);
    assert_int_equal(cfg.algorithm, PAT_REDUCE_ALG_BINOMIAL);
    unlink(path);
  }
  snprintf(path, sizeof path, "/nonexistent/rules");
  {
    pat_config cfg;
    pat_config_parse(&cfg, rules_env);
    assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
    assert_non_null(strstr(cfg.why, "PAT_REDUCE_RULES=/nonexistent/rules "
                                    "cannot be opened"));
  }
}

/* Ranks must agree on the file's contents, not only its name. */
static void fingerprint_covers_the_contents(void **state) {
  const pat_env_var *vars[PAT_ENV_MAX];
  unsigned long long h1[PAT_ENV_MAX], h2[PAT_ENV_MAX];
  int n1, n2, k1 = -1;
  char keep[sizeof path];
  (void)state;
  write_rules("* * binomial\n");
  setenv("PAT_REDUCE_RULES", path, 1);
  pat_reduce_config_reload();
  n1 = pat_config_fingerprints(vars, h1, PAT_ENV_MAX);
  for (int k = 0; k < n1; k++)
    if (strcmp(vars[k]->name, "PAT_REDUCE_RULES") == 0)
      k1 = k;
  assert_true(k1 >= 0);
  /* same name, other contents */
  snprintf(keep, sizeof keep, "%s", path);
  {
    FILE *f = fopen(keep, "w");
    assert_non_null(f);
    fputs("* * ring\n", f);
    fclose(f);
  }
  pat_reduce_config_reload();
  n2 = pat_config_fingerprints(vars, h2, PAT_ENV_MAX);
  assert_int_equal(n1, n2);
  assert_true(h1[k1] != h2[k1]);
  for (int k = 0; k < n1; k++)
    if (k != k1)
      assert_true(h1[k] == h2[k]);
  unsetenv("PAT_REDUCE_RULES");
  pat_reduce_config_reload();
  (void)pat_config_get(); /* frees the rules of the reload */
  unlink(keep);
}

/* While a rule's call runs, its configuration is the one in force. */
static void pushed_configuration_is_in_force(void **state) {
  pat_config mine;
  const pat_config *previous, *process = pat_config_get();
  (void)state;
  pat_config_parse(&mine, no_env);
  mine.segments = 5;
  previous = pat_config_push(&mine);
  assert_ptr_equal(pat_config_get(), &mine);
  pat_config_pop(previous);
  assert_ptr_equal(pat_config_get(), process);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(first_matching_line_serves),
      cmocka_unit_test(shipped_rules_and_configuration),
      cmocka_unit_test(bad_files_name_file_and_line),
      cmocka_unit_test(fingerprint_covers_the_contents),
      cmocka_unit_test(pushed_configuration_is_in_force),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
