/* Unit tests (no MPI run): environment parsing, and the README's tables of
 * algorithms and environment variables against the code's tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/pat_internal.h"
#include "localredirect/localredirect.h"

/* A fake environment: a small table of name=value. */
static const char *fake_env[3][2];

static const char *fake_getenv(const char *name) {
  for (int i = 0; i < 3; i++)
    if (fake_env[i][0] != NULL && strcmp(fake_env[i][0], name) == 0)
      return fake_env[i][1];
  return NULL;
}

static void set_env(const char *alg, const char *verbose) {
  fake_env[0][0] = "PAT_REDUCE_ALGORITHM";
  fake_env[0][1] = alg;
  fake_env[1][0] = "PAT_REDUCE_VERBOSE";
  fake_env[1][1] = verbose;
}

/* The fake environment with one more variable, name, unset (set_env's
 * two unset too): its test then sets fake_env[2][1], and clear_var drops
 * it when done, so no later test sees it. */
static void only_var(const char *name) {
  set_env(NULL, NULL);
  fake_env[2][0] = name;
  fake_env[2][1] = NULL;
}

static void clear_var(void) {
  fake_env[2][0] = NULL;
  fake_env[2][1] = NULL;
}

static void defaults_when_unset_or_empty(void **state) {
  pat_config cfg;
  (void)state;
  set_env(NULL, NULL);
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.algorithm, PAT_REDUCE_ALG_BINOMIAL);
  assert_int_equal(cfg.verbose, 0);
  set_env("", "");
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.algorithm, PAT_REDUCE_ALG_BINOMIAL);
}

/* localredirect's tunable, parsed in its folder. */
static double patience(const pat_config *cfg) {
  return ((const pat_lr_config *)pat_config_alg(cfg,
                                                PAT_REDUCE_ALG_LOCALREDIRECT))
      ->patience;
}

static void lr_patience_auto_seconds_or_error(void **state) {
  pat_config cfg;
  const char *bad[] = {"-1", "soon", "1e", "nan", "inf"};
  (void)state;
  only_var("PAT_REDUCE_LR_PATIENCE");
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_true(patience(&cfg) < 0); /* auto */
  fake_env[2][1] = "AUTO";
  pat_config_parse(&cfg, fake_getenv);
  assert_true(patience(&cfg) < 0);
  fake_env[2][1] = "0.0025";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_true(patience(&cfg) == 0.0025);
  fake_env[2][1] = "0";
  pat_config_parse(&cfg, fake_getenv);
  assert_true(patience(&cfg) == 0);
  fake_env[2][1] = "50us"; /* the units every tool takes */
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_true(patience(&cfg) == 50e-6);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fake_env[2][1] = bad[i];
    pat_config_parse(&cfg, fake_getenv);
    assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
    assert_non_null(strstr(cfg.why, "PAT_REDUCE_LR_PATIENCE="));
    assert_non_null(strstr(cfg.why, "valid: auto, or a number"));
  }
  clear_var();
}

/* localredirect's protocol switches (sizes): auto (< 0), a size with the
 * sizes' syntax, 0 = never; anything else an error naming the variable.
 * which: 0 PAT_REDUCE_LR_EAGER (default 0), 1 PAT_REDUCE_LR_TREE (default
 * auto). */
static long long lr_size(const pat_config *cfg, int which) {
  const pat_lr_config *lr = pat_config_alg(cfg, PAT_REDUCE_ALG_LOCALREDIRECT);
  return which ? lr->tree : lr->eager;
}

static void lr_size_var(const char *name, int which, long long fallback) {
  pat_config cfg;
  const char *bad[] = {"-1", "big", "4Q", "1.5", "9999999G"};
  char want[64];
  only_var(name);
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_true(lr_size(&cfg, which) == fallback);
  fake_env[2][1] = "auto";
  pat_config_parse(&cfg, fake_getenv);
  assert_true(lr_size(&cfg, which) < 0);
  fake_env[2][1] = "4K";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_true(lr_size(&cfg, which) == 4096);
  fake_env[2][1] = "0";
  pat_config_parse(&cfg, fake_getenv);
  assert_true(lr_size(&cfg, which) == 0);
  snprintf(want, sizeof want, "%s=", name);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fake_env[2][1] = bad[i];
    pat_config_parse(&cfg, fake_getenv);
    assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
    assert_non_null(strstr(cfg.why, want));
    assert_non_null(strstr(cfg.why, "valid: auto, 0 (never)"));
  }
  clear_var();
}

static void lr_eager_auto_size_or_error(void **state) {
  (void)state;
  lr_size_var("PAT_REDUCE_LR_EAGER", 0, 0); /* never, by default */
}

static void lr_tree_auto_size_or_error(void **state) {
  (void)state;
  lr_size_var("PAT_REDUCE_LR_TREE", 1, -1); /* auto, by default */
}

static void exchange_interval_zero_is_never(void **state) {
  pat_config cfg;
  (void)state;
  only_var("PAT_REDUCE_EXCHANGE_INTERVAL");
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.exchange_interval, -1); /* auto */
  fake_env[2][1] = "AUTO";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.exchange_interval, -1);
  fake_env[2][1] = "3";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.exchange_interval, 3);
  fake_env[2][1] = "0";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.exchange_interval, 0);
  fake_env[2][1] = "-1";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
  assert_non_null(strstr(cfg.why, "PAT_REDUCE_EXCHANGE_INTERVAL=-1 is not an "
                                  "interval; valid: auto"));
  assert_int_equal(cfg.exchange_interval, -1); /* the default kept */
  clear_var();
}

static void algorithm_by_name_any_case(void **state) {
  pat_config cfg;
  (void)state;
  set_env("NATIVE", "2");
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.algorithm, PAT_REDUCE_ALG_NATIVE);
  assert_int_equal(cfg.verbose, 2);
}

static void unknown_algorithm_lists_valid_names(void **state) {
  pat_config cfg;
  char want[512], names[256];
  (void)state;
  set_env("foo", NULL);
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
  pat_alg_names(names, sizeof names);
  snprintf(want, sizeof want,
           "PAT_REDUCE_ALGORITHM=foo is not an algorithm; valid: %s, or a list "
           "of them for auto to pick from",
           names);
  assert_memory_equal(cfg.why, want, strlen(want));
  assert_non_null(strstr(cfg.why, "binomial"));
  assert_non_null(strstr(cfg.why, "native"));
}

/* A list is auto's candidates; ^ leaves rows out; auto itself, unknown
 * names, empty items are errors naming the item. */
static void algorithm_lists_are_auto_candidates(void **state) {
  pat_config cfg;
  const char *bad[] = {"binomial,foo", "^",     "binomial,", ",ring",
                       "ring,auto",    "^auto", NULL};
  (void)state;
  set_env(NULL, NULL);
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.candidates, ~0ull);
  set_env("Binomial,clairvoyant", NULL);
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.algorithm, PAT_REDUCE_ALG_AUTO);
  assert_int_equal(cfg.candidates, (1ull << PAT_REDUCE_ALG_BINOMIAL) |
                                       (1ull << PAT_REDUCE_ALG_CLAIRVOYANT));
  set_env("^ring,pipeline", NULL);
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.algorithm, PAT_REDUCE_ALG_AUTO);
  assert_int_equal(cfg.candidates, ~((1ull << PAT_REDUCE_ALG_RING) |
                                     (1ull << PAT_REDUCE_ALG_PIPELINE)));
  set_env("^radixk", NULL); /* one row left out */
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.candidates, ~(1ull << PAT_REDUCE_ALG_RADIXK));
  set_env("auto", NULL);
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.algorithm, PAT_REDUCE_ALG_AUTO);
  assert_int_equal(cfg.candidates, ~0ull);
  for (int i = 0; bad[i] != NULL; i++) {
    set_env(bad[i], NULL);
    pat_config_parse(&cfg, fake_getenv);
    assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
    assert_int_equal(cfg.bad, PAT_SCOPE_BIT(PAT_SCOPE_ALL));
    assert_non_null(strstr(cfg.why, "PAT_REDUCE_ALGORITHM="));
    assert_non_null(strstr(cfg.why, bad[i]));
  }
}

static void bad_verbosity_is_an_error(void **state) {
  pat_config cfg;
  const char *bad[] = {"yes", "4", "-1", "1x", " 1"};
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    set_env("binomial", bad[i]);
    pat_config_parse(&cfg, fake_getenv);
    assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
    assert_non_null(strstr(cfg.why, "PAT_REDUCE_VERBOSE="));
    assert_non_null(strstr(cfg.why, "is not an integer in 0..3"));
  }
}

/* The executor's integer tunables reject what is not a non-negative
 * integer in range, naming the variable and the range. */
static void executor_bounds_checked(void **state) {
  const char *vars[] = {"PAT_REDUCE_MAX_OUTSTANDING", "PAT_REDUCE_MAX_SENDS"};
  const char *bad[] = {"-1", "x", "4k", "2000000"};
  pat_config cfg;
  (void)state;
  set_env(NULL, NULL);
  for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
    fake_env[2][0] = vars[v];
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
      char want[96];
      fake_env[2][1] = bad[b];
      pat_config_parse(&cfg, fake_getenv);
      assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
      snprintf(want, sizeof want, "%s=%s is not an integer in 0..", vars[v],
               bad[b]);
      assert_non_null(strstr(cfg.why, want));
    }
    fake_env[2][1] = "0";
    pat_config_parse(&cfg, fake_getenv);
    assert_int_equal(cfg.error, PAT_SUCCESS);
  }
  fake_env[2][0] = NULL;
  fake_env[2][1] = NULL;
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.max_sends, 4);
  assert_int_equal(cfg.scratch_keep, 64L << 20);
}

/* One syntax for sizes and times (src/core/units.c) in the variables and
 * the tools: bytes with K, M, G (powers of 1024), seconds with s, ms, us,
 * ns; nothing else. */
static void sizes_and_times_one_syntax(void **state) {
  const struct {
    const char *text;
    long long bytes; /* -1: refused */
  } sizes[] = {{"0", 0},       {"512", 512},    {"64K", 65536},
               {"64k", 65536}, {"4M", 4 << 20}, {"1G", 1LL << 30},
               {"1.5K", 1536}, {"0.5", -1},     {"64MB", -1},
               {"-1", -1},     {" 5", -1},      {"0x10", -1},
               {"inf", -1},    {"", -1},        {"K", -1},
               {"5 K", -1},    {"2T", -1},      {"1024G", 1LL << 40}};
  const struct {
    const char *text;
    double s; /* < 0: refused */
  } times[] = {{"0.002", 0.002},  {"2s", 2},       {"1.5ms", 1.5e-3},
               {"250us", 250e-6}, {"40ns", 40e-9}, {"0", 0},
               {"-1ms", -1},      {"1min", -1},    {"ms", -1},
               {"nan", -1},       {"1e3x", -1},    {"2 ms", -1}};
  const char *keep[][2] = {{"64M", "67108864"}, {"4k", "4096"}};
  long long b;
  pat_config cfg;
  (void)state;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    long long b = -7;
    int ok = pat_parse_bytes(sizes[i].text, 1LL << 40, &b) == 1;
    if (ok != (sizes[i].bytes >= 0) || (ok && b != sizes[i].bytes))
      fail_msg("bytes '%s': ok %d, %lld", sizes[i].text, ok, b);
  }
  for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
    double t = -7;
    int ok = pat_parse_seconds(times[i].text, &t);
    if (ok != (times[i].s >= 0) || (ok && t != times[i].s))
      fail_msg("seconds '%s': ok %d, %g", times[i].text, ok, t);
  }
  /* a size, too large: -1, not 0 */
  assert_int_equal(pat_parse_bytes("1024G", 1LL << 40, &b), 1);
  assert_int_equal(pat_parse_bytes("1025G", 1LL << 40, &b), -1);
  assert_int_equal(pat_parse_bytes("2T", 1LL << 40, &b), 0);
  assert_int_equal(pat_parse_bytes("99999999999999999999999", 1LL << 40, &b),
                   -1);
  set_env(NULL, NULL);
  fake_env[2][0] = "PAT_REDUCE_SCRATCH_KEEP";
  for (size_t i = 0; i < 2; i++) {
    fake_env[2][1] = keep[i][0];
    pat_config_parse(&cfg, fake_getenv);
    assert_int_equal(cfg.error, PAT_SUCCESS);
    assert_int_equal(cfg.scratch_keep, atol(keep[i][1]));
  }
  fake_env[2][1] = "64MB";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
  assert_non_null(strstr(cfg.why, "PAT_REDUCE_SCRATCH_KEEP=64MB is not a size "
                                  "in bytes; valid:"));
  fake_env[2][0] = "PAT_REDUCE_ROUND_COST";
  fake_env[2][1] = "2.5us";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_true(cfg.round_cost == 2.5e-6);
  fake_env[2][1] = "0";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
  assert_non_null(strstr(cfg.why, "PAT_REDUCE_ROUND_COST=0 is not a time > 0"));
  clear_var();
}

/* PAT_REDUCE_SCHEDULE_CACHE: 16 by default, 1..4096 accepted, anything
 * else an error naming the variable, the value and the range. */
static void schedule_cache_checked(void **state) {
  const char *bad[] = {"0", "-1", "x", "16k", "4097"};
  pat_config cfg;
  (void)state;
  set_env(NULL, NULL);
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.schedule_cache, 16);
  fake_env[2][0] = "PAT_REDUCE_SCHEDULE_CACHE";
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    char want[96];
    fake_env[2][1] = bad[b];
    pat_config_parse(&cfg, fake_getenv);
    assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
    snprintf(want, sizeof want,
             "PAT_REDUCE_SCHEDULE_CACHE=%s is not an integer in 1..4096",
             bad[b]);
    assert_string_equal(cfg.why, want);
  }
  fake_env[2][1] = "1";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.schedule_cache, 1);
  clear_var();
}

/* The fingerprints the ranks compare at a communicator's first call:
 * every variable that shapes communication and none of the local ones
 * (memory, output, pacing); a variable's hash changes with its value and
 * no other's does. */
/* pat_model_configured: PAT_REDUCE_ROUND_COST c as {c, 0, 0}, else a
 * readable PAT_REDUCE_MODEL file; neither (or an unreadable file): none. */
static void configured_model_from_round_cost_or_file(void **state) {
  pat_model m = {0};
  (void)state;
  unsetenv("PAT_REDUCE_MODEL");
  unsetenv("PAT_REDUCE_ROUND_COST");
  pat_reduce_config_reload();
  assert_int_equal(pat_model_configured(&m), 0);
  assert_int_equal(pat_model_configured(NULL), 0);
  setenv("PAT_REDUCE_ROUND_COST", "2e-5", 1);
  pat_reduce_config_reload();
  assert_int_equal(pat_model_configured(&m), 1);
  assert_true(m.alpha == 2e-5 && m.beta == 0 && m.gamma == 0);
  unsetenv("PAT_REDUCE_ROUND_COST");
  setenv("PAT_REDUCE_MODEL", "/nonexistent/patreduce.model", 1);
  pat_reduce_config_reload();
  assert_int_equal(pat_model_configured(&m), 0);
  unsetenv("PAT_REDUCE_MODEL");
  pat_reduce_config_reload();
}

static void fingerprints_cover_what_shapes_communication(void **state) {
  const pat_env_var *vars[PAT_ENV_MAX], *vars2[PAT_ENV_MAX];
  unsigned long long h[PAT_ENV_MAX], h2[PAT_ENV_MAX];
  const char *local[] = {"PAT_REDUCE_VERBOSE", "PAT_REDUCE_SCRATCH_KEEP",
                         "PAT_REDUCE_SCHEDULE_CACHE",
                         "PAT_REDUCE_SMPI_SHARED_ABOVE",
                         "PAT_REDUCE_LR_PATIENCE"};
  const char *shaping[] = {
      "PAT_REDUCE_ALGORITHM", "PAT_REDUCE_PREDICTOR", "PAT_REDUCE_SEGMENTS",
      "PAT_REDUCE_MODEL", "PAT_REDUCE_ROUND_COST", "PAT_REDUCE_RADIXK",
      "PAT_REDUCE_EXCHANGE_INTERVAL", "PAT_REDUCE_EXCHANGE_LAG",
      "PAT_REDUCE_CLOCK_REFRESH",
      /* the clairvoyant planner simulates with them */
      "PAT_REDUCE_MAX_OUTSTANDING", "PAT_REDUCE_MAX_SENDS"};
  int n, n2, seg = -1;
  (void)state;
  unsetenv("PAT_REDUCE_SEGMENTS");
  n = pat_config_fingerprints(vars, h, PAT_ENV_MAX);
  for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
    for (int k = 0; k < n; k++)
      if (strcmp(vars[k]->name, local[i]) == 0)
        fail_msg("%s is local but fingerprinted", local[i]);
  for (size_t i = 0; i < sizeof shaping / sizeof shaping[0]; i++) {
    int found = 0;
    for (int k = 0; k < n; k++)
      found |= strcmp(vars[k]->name, shaping[i]) == 0;
    if (!found)
      fail_msg("%s shapes communication but is not fingerprinted", shaping[i]);
  }
  setenv("PAT_REDUCE_SEGMENTS", "7", 1);
  n2 = pat_config_fingerprints(vars2, h2, PAT_ENV_MAX);
  unsetenv("PAT_REDUCE_SEGMENTS");
  assert_int_equal(n2, n);
  for (int k = 0; k < n; k++) {
    assert_ptr_equal(vars[k], vars2[k]);
    if (strcmp(vars[k]->name, "PAT_REDUCE_SEGMENTS") == 0)
      seg = k;
    else
      assert_true(h[k] == h2[k]);
  }
  assert_true(seg >= 0 && h[seg] != h2[seg]);
}

/* Reads the README and returns the first cells (`code`) of the markdown
 * table rows that follow the line containing marker. */
static int readme_table(const char *marker, char names[][64], int max) {
  FILE *f = fopen(PAT_README, "r");
  char line[8192]; /* table rows are long lines */
  int n = 0, in_table = 0, found = 0;
  assert_non_null(f);
  while (fgets(line, sizeof line, f)) {
    if (!found) {
      found = strstr(line, marker) != NULL;
      continue;
    }
    if (line[strspn(line, " ")] == '|') { /* a table in a list is indented */
      char *a = strchr(line, '`'), *b = a ? strchr(a + 1, '`') : NULL;
      in_table = 1;
      if (a && b && b - a - 1 < 64 && n < max) {
        memcpy(names[n], a + 1, (size_t)(b - a - 1));
        names[n][b - a - 1] = '\0';
        n++;
      }
    } else if (in_table) {
      break;
    }
  }
  fclose(f);
  assert_true(found);
  return n;
}

/* Every variable names what reads it: the core's a core scope, each
 * algorithm's tunables that algorithm's row. */
static void every_variable_has_its_scope(void **state) {
  (void)state;
  for (int i = 0; i < PAT_ENV_COUNT; i++) {
    assert_true(pat_env_table[i].scope >= 0);
    assert_true(pat_env_table[i].scope < PAT_SCOPE_ROWS);
  }
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
    const pat_alg_row *row = pat_alg_table[a];
    for (const pat_env_var *v = row->env; v && v->name; v++)
      assert_int_equal(v->scope, PAT_SCOPE_ROWS + a);
    /* a row reads what every call reads, and its own tunables */
    assert_true(pat_alg_scopes((pat_reduce_alg)a) &
                PAT_SCOPE_BIT(PAT_SCOPE_ALL));
    assert_true(pat_alg_scopes((pat_reduce_alg)a) &
                PAT_SCOPE_BIT(PAT_SCOPE_ROWS + a));
    for (int b = 0; b < PAT_REDUCE_ALG_COUNT; b++)
      if (b != a)
        assert_false(pat_alg_scopes((pat_reduce_alg)a) &
                     PAT_SCOPE_BIT(PAT_SCOPE_ROWS + b));
  }
}

/* PAT_REDUCE_PLAN_MEMO: a size (16M unset in this build); a bad one names
 * itself and fails only the rows that plan by arrival times. */
static void plan_memo_size_or_error(void **state) {
  pat_config cfg;
  (void)state;
  only_var("PAT_REDUCE_PLAN_MEMO");
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.plan_memo, 16L << 20);
  fake_env[2][1] = "0";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.plan_memo, 0);
  fake_env[2][1] = "2G";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.plan_memo, 2L << 30);
  fake_env[2][1] = "lots";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
  assert_int_equal(cfg.bad, PAT_SCOPE_BIT(PAT_SCOPE_ARRIVALS));
  assert_non_null(
      strstr(cfg.why, "PAT_REDUCE_PLAN_MEMO=lots is not a size in bytes"));
  assert_null(pat_config_bad(&cfg, pat_alg_scopes(PAT_REDUCE_ALG_BINOMIAL)));
  assert_non_null(
      pat_config_bad(&cfg, pat_alg_scopes(PAT_REDUCE_ALG_CLAIRVOYANT)));
  assert_int_equal(cfg.plan_memo, 16L << 20); /* the default meanwhile */
  clear_var();
}

/* PAT_REDUCE_CORES: auto (detect) by default, own or shared in any case;
 * anything else names the valid modes and keeps detecting. */
static void cores_mode_or_error(void **state) {
  pat_config cfg;
  (void)state;
  only_var("PAT_REDUCE_CORES");
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.cores, PAT_CORES_DETECT);
  fake_env[2][1] = "OWN";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_SUCCESS);
  assert_int_equal(cfg.cores, PAT_CORES_OWN);
  fake_env[2][1] = "shared";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.cores, PAT_CORES_SHARED);
  fake_env[2][1] = "auto";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.cores, PAT_CORES_DETECT);
  fake_env[2][1] = "4";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
  assert_int_equal(cfg.cores, PAT_CORES_DETECT);
  assert_non_null(strstr(cfg.why, "PAT_REDUCE_CORES=4 is not a mode; valid: "
                                  "auto"));
  assert_non_null(strstr(cfg.why, "own"));
  assert_non_null(strstr(cfg.why, "shared"));
  clear_var();
}

/* A bad value fails the calls of the algorithms that read it only; the
 * parse goes on past it (every bad value known, each scope's message its
 * first) and the variable keeps its default. */
static void bad_values_fail_only_their_readers(void **state) {
  pat_config cfg;
  const unsigned long long binomial = pat_alg_scopes(PAT_REDUCE_ALG_BINOMIAL);
  const unsigned long long native = pat_alg_scopes(PAT_REDUCE_ALG_NATIVE);
  (void)state;
  set_env(NULL, NULL);
  fake_env[2][0] = "PAT_REDUCE_MODEL";
  fake_env[2][1] = "/nonexistent/model.txt";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
  assert_int_equal(cfg.bad, PAT_SCOPE_BIT(PAT_SCOPE_MODEL));
  assert_null(pat_config_bad(&cfg, binomial));
  assert_null(pat_config_bad(&cfg, native));
  assert_non_null(
      pat_config_bad(&cfg, pat_alg_scopes(PAT_REDUCE_ALG_PIPELINE)));
  assert_string_equal(
      pat_config_bad(&cfg, pat_alg_scopes(PAT_REDUCE_ALG_CLAIRVOYANT)),
      cfg.why);
  assert_non_null(strstr(cfg.why, "PAT_REDUCE_MODEL=/nonexistent/model.txt"));
  assert_false(cfg.has_model);

  /* two bad values: both known; the first in table order is cfg.why */
  set_env(NULL, NULL);
  fake_env[1][0] = "PAT_REDUCE_MAX_SENDS";
  fake_env[1][1] = "many";
  fake_env[2][0] = "PAT_REDUCE_SEGMENTS";
  fake_env[2][1] = "-3";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.bad, PAT_SCOPE_BIT(PAT_SCOPE_SCHEDULE) |
                                PAT_SCOPE_BIT(PAT_SCOPE_SEGMENTS));
  assert_non_null(strstr(cfg.why, "PAT_REDUCE_MAX_SENDS=many"));
  assert_non_null(strstr(cfg.scope_why[PAT_SCOPE_SEGMENTS],
                         "PAT_REDUCE_SEGMENTS=-3 is not a segment count"));
  assert_int_equal(cfg.max_sends, 4); /* the default, not 0 */
  assert_int_equal(cfg.segments, 0);
  assert_null(pat_config_bad(&cfg, native));
  assert_string_equal(pat_config_bad(&cfg, binomial), cfg.why);
  assert_string_equal(
      pat_config_bad(&cfg, pat_alg_scopes(PAT_REDUCE_ALG_PIPELINE)), cfg.why);

  /* an algorithm's own tunable fails that algorithm only */
  set_env(NULL, NULL);
  fake_env[2][0] = "PAT_REDUCE_RADIXK";
  fake_env[2][1] = "3,x";
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.bad,
                   PAT_SCOPE_BIT(PAT_SCOPE_ROWS + PAT_REDUCE_ALG_RADIXK));
  assert_non_null(pat_config_bad(&cfg, pat_alg_scopes(PAT_REDUCE_ALG_RADIXK)));
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if (a != PAT_REDUCE_ALG_RADIXK)
      assert_null(pat_config_bad(&cfg, pat_alg_scopes((pat_reduce_alg)a)));

  /* a bad algorithm or verbosity fails every call */
  set_env("foo", "loud");
  fake_env[2][0] = NULL;
  pat_config_parse(&cfg, fake_getenv);
  assert_int_equal(cfg.bad, PAT_SCOPE_BIT(PAT_SCOPE_ALL));
  assert_non_null(
      strstr(cfg.scope_why[PAT_SCOPE_ALL], "PAT_REDUCE_ALGORITHM=foo"));
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    assert_non_null(pat_config_bad(&cfg, pat_alg_scopes((pat_reduce_alg)a)));
  fake_env[1][0] = "PAT_REDUCE_VERBOSE";
}

static void readme_lists_every_algorithm(void **state) {
  char names[64][64];
  int n = readme_table("<!-- algorithms -->", names, 64);
  (void)state;
  assert_int_equal(n, PAT_REDUCE_ALG_COUNT);
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++)
    assert_string_equal(names[i], pat_alg_table[i]->name);
}

/* The core's variables, then every algorithm's tunables in table order. */
static void readme_lists_every_predictor(void **state) {
  char names[64][64];
  int n = readme_table("<!-- predictors -->", names, 64), i;
  (void)state;
  for (i = 0; pat_predictor_type_name(i) != NULL; i++) {
    assert_true(i < n);
    assert_string_equal(names[i], pat_predictor_type_name(i));
  }
  assert_int_equal(n, i);
}

static void readme_lists_every_env_var(void **state) {
  char names[64][64];
  const pat_env_var *vars[64];
  int n = readme_table("<!-- environment -->", names, 64);
  int m = pat_env_all(vars, 64);
  (void)state;
  assert_int_equal(n, m);
  for (int i = 0; i < m; i++)
    assert_string_equal(names[i], vars[i]->name);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(defaults_when_unset_or_empty),
      cmocka_unit_test(lr_patience_auto_seconds_or_error),
      cmocka_unit_test(lr_eager_auto_size_or_error),
      cmocka_unit_test(lr_tree_auto_size_or_error),
      cmocka_unit_test(exchange_interval_zero_is_never),
      cmocka_unit_test(algorithm_by_name_any_case),
      cmocka_unit_test(unknown_algorithm_lists_valid_names),
      cmocka_unit_test(algorithm_lists_are_auto_candidates),
      cmocka_unit_test(bad_verbosity_is_an_error),
      cmocka_unit_test(executor_bounds_checked),
      cmocka_unit_test(sizes_and_times_one_syntax),
      cmocka_unit_test(schedule_cache_checked),
      cmocka_unit_test(configured_model_from_round_cost_or_file),
      cmocka_unit_test(fingerprints_cover_what_shapes_communication),
      cmocka_unit_test(every_variable_has_its_scope),
      cmocka_unit_test(plan_memo_size_or_error),
      cmocka_unit_test(cores_mode_or_error),
      cmocka_unit_test(bad_values_fail_only_their_readers),
      cmocka_unit_test(readme_lists_every_algorithm),
      cmocka_unit_test(readme_lists_every_env_var),
      cmocka_unit_test(readme_lists_every_predictor),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
