/* Unit tests (no MPI run): the algorithm table, name lookup, fallback
 * selection and error strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/pat_internal.h"

static void table_rows_are_consistent(void **state) {
  (void)state;
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
    const pat_alg_row *row = pat_alg_table[i];
    assert_int_equal(row->id, i);
    assert_non_null(row->name);
    assert_true(strlen(row->name) > 0);
    for (const char *c = row->name; *c; c++)
      assert_true((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
                  *c == '_');
    assert_non_null(row->description);
    assert_true(strlen(row->description) > 10);
    /* exactly one of builder, run function and chooser */
    assert_int_equal(
        (row->build != NULL) + (row->run != NULL) + (row->choose != NULL), 1);
    assert_true(row->min_count >= 0);
    assert_true((int)row->fallback >= 0 &&
                row->fallback < PAT_REDUCE_ALG_COUNT);
    for (int j = 0; j < i; j++)
      assert_string_not_equal(row->name, pat_alg_table[j]->name);
    /* tunables: named PAT_REDUCE_*, described, with a parser that fits */
    assert_true((row->env == NULL) == (row->parse == NULL));
    assert_true(row->config_size <= PAT_ALG_CONFIG_BYTES);
    for (const pat_env_var *v = row->env; v && v->name; v++) {
      assert_memory_equal(v->name, "PAT_REDUCE_", 11);
      assert_non_null(v->fallback);
      assert_true(strlen(v->description) > 10);
    }
  }
}

/* Every variable name is read by one place only. */
static void env_names_are_unique(void **state) {
  const pat_env_var *v[128];
  int n = pat_env_all(v, 128);
  (void)state;
  assert_true(n > PAT_ENV_COUNT - 1 && n <= 128);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      assert_string_not_equal(v[i]->name, v[j]->name);
}

static void every_row_reaches_a_row_that_serves_anything(void **state) {
  pat_call_props worst = {
      .commutative = 0, .contiguous = 0, .count = 0, .shared_cores = 1};
  (void)state;
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
    pat_reduce_alg chosen = PAT_REDUCE_ALG_COUNT;
    assert_int_equal(pat_alg_select(pat_alg_table, PAT_REDUCE_ALG_COUNT,
                                    (pat_reduce_alg)i, &worst, &chosen),
                     PAT_SUCCESS);
    assert_int_equal(pat_alg_unmet(pat_alg_table[chosen], &worst), 0);
  }
}

static void lookup_is_case_insensitive(void **state) {
  pat_reduce_alg alg = PAT_REDUCE_ALG_COUNT;
  (void)state;
  assert_int_equal(pat_reduce_algorithm_lookup("BiNoMiAl", &alg), PAT_SUCCESS);
  assert_int_equal(alg, PAT_REDUCE_ALG_BINOMIAL);
  assert_int_equal(pat_reduce_algorithm_lookup("native", &alg), PAT_SUCCESS);
  assert_int_equal(alg, PAT_REDUCE_ALG_NATIVE);
  assert_int_equal(pat_reduce_algorithm_lookup("binomia", &alg),
                   PAT_ERR_UNKNOWN_ALGORITHM);
  assert_int_equal(pat_reduce_algorithm_lookup("", &alg),
                   PAT_ERR_UNKNOWN_ALGORITHM);
  assert_int_equal(pat_reduce_algorithm_lookup(NULL, &alg),
                   PAT_ERR_INVALID_ARG);
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
    assert_int_equal(pat_reduce_algorithm_lookup(
                         pat_reduce_algorithm_name((pat_reduce_alg)i), &alg),
                     PAT_SUCCESS);
    assert_int_equal(alg, i);
  }
  assert_null(pat_reduce_algorithm_name(PAT_REDUCE_ALG_COUNT));
  assert_null(pat_reduce_algorithm_name((pat_reduce_alg)-1));
  assert_null(pat_reduce_algorithm_description(PAT_REDUCE_ALG_COUNT));
}

static void names_list_every_row(void **state) {
  char names[256];
  (void)state;
  pat_alg_names(names, sizeof names);
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++)
    assert_non_null(strstr(names, pat_alg_table[i]->name));
  {
    int commas = 0;
    for (const char *c = strstr(names, ", "); c; c = strstr(c + 2, ", "))
      commas++;
    assert_int_equal(commas, PAT_REDUCE_ALG_COUNT - 1);
    assert_memory_equal(names, pat_alg_table[0]->name,
                        strlen(pat_alg_table[0]->name));
  }
}

/* A synthetic table: 0 needs a commutative op, falls back to 1; 1 needs a
 * contiguous type and count >= 4, falls back to 2; 2 serves anything;
 * 3 needs a contiguous type and falls back to itself; 4 loops with 5. */
static const pat_alg_row fake_rows[] = {
    {.id = 0, .name = "a", .needs = PAT_NEEDS_COMMUTATIVE, .fallback = 1},
    {.id = 1,
     .name = "b",
     .needs = PAT_NEEDS_CONTIGUOUS,
     .min_count = 4,
     .fallback = 2},
    {.id = 2, .name = "c", .fallback = 2},
    {.id = 3, .name = "d", .needs = PAT_NEEDS_CONTIGUOUS, .fallback = 3},
    {.id = 4, .name = "e", .needs = PAT_NEEDS_CONTIGUOUS, .fallback = 5},
    {.id = 5, .name = "f", .needs = PAT_NEEDS_CONTIGUOUS, .fallback = 4},
};
#define NFAKE ((int)(sizeof fake_rows / sizeof fake_rows[0]))
static const pat_alg_row *const fake[NFAKE] = {&fake_rows[0], &fake_rows[1],
                                               &fake_rows[2], &fake_rows[3],
                                               &fake_rows[4], &fake_rows[5]};

static pat_reduce_alg pick(int wanted, int comm, int contig, int count,
                           int *err) {
  pat_call_props p = {
      .commutative = comm, .contiguous = contig, .count = count};
  pat_reduce_alg chosen = (pat_reduce_alg)-1;
  *err = pat_alg_select(fake, NFAKE, (pat_reduce_alg)wanted, &p, &chosen);
  return chosen;
}

static void select_follows_fallbacks(void **state) {
  int err;
  (void)state;
  assert_int_equal(pick(0, 1, 1, 10, &err), 0);
  assert_int_equal(err, PAT_SUCCESS);
  assert_int_equal(pick(0, 0, 1, 10, &err), 1); /* not commutative */
  assert_int_equal(pick(0, 0, 0, 10, &err), 2); /* nor contiguous */
  assert_int_equal(pick(0, 0, 1, 3, &err), 2);  /* count too small */
  assert_int_equal(pick(1, 1, 1, 4, &err), 1);
  assert_int_equal(pick(3, 1, 1, 4, &err), 3);
  pick(3, 1, 0, 4, &err); /* not contiguous, no way out */
  assert_int_equal(err, PAT_ERR_INVALID_ARG);
  pick(4, 1, 0, 4, &err); /* a fallback loop is detected */
  assert_int_equal(err, PAT_ERR_INVALID_ARG);
  pick(NFAKE, 1, 1, 4, &err); /* outside the table */
  assert_int_equal(err, PAT_ERR_INVALID_ARG);
  assert_int_equal(pat_alg_unmet(fake[1], &(pat_call_props){0, 0, 1, 0}),
                   PAT_NEEDS_CONTIGUOUS | PAT_WHY_COUNT);
}

/* auto needs ranks with cores of their own: where they share cores,
 * binomial serves its calls; nothing else changes for any row. */
static void shared_cores_send_auto_to_binomial(void **state) {
  pat_call_props own = {.commutative = 1, .contiguous = 1, .count = 8},
                 shared = own;
  (void)state;
  shared.shared_cores = 1;
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
    pat_reduce_alg a = PAT_REDUCE_ALG_COUNT, b = PAT_REDUCE_ALG_COUNT;
    assert_int_equal(pat_alg_select(pat_alg_table, PAT_REDUCE_ALG_COUNT,
                                    (pat_reduce_alg)i, &own, &a),
                     PAT_SUCCESS);
    assert_int_equal(pat_alg_select(pat_alg_table, PAT_REDUCE_ALG_COUNT,
                                    (pat_reduce_alg)i, &shared, &b),
                     PAT_SUCCESS);
    assert_int_equal(a, i);
    assert_int_equal(b, i == PAT_REDUCE_ALG_AUTO ? PAT_REDUCE_ALG_BINOMIAL
                                                 : (pat_reduce_alg)i);
  }
  assert_int_equal(pat_alg_unmet(pat_alg_table[PAT_REDUCE_ALG_AUTO], &shared),
                   PAT_NEEDS_OWN_CORES);
}

static void strerror_describes_every_code(void **state) {
  (void)state;
  for (int i = 0; i < PAT_ERR_COUNT; i++) {
    assert_non_null(pat_strerror(i));
    assert_string_not_equal(pat_strerror(i), "unknown error code");
    for (int j = 0; j < i; j++)
      assert_string_not_equal(pat_strerror(i), pat_strerror(j));
  }
  assert_string_equal(pat_strerror(PAT_ERR_COUNT), "unknown error code");
  assert_string_equal(pat_strerror(-1), "unknown error code");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_rows_are_consistent),
      cmocka_unit_test(env_names_are_unique),
      cmocka_unit_test(every_row_reaches_a_row_that_serves_anything),
      cmocka_unit_test(lookup_is_case_insensitive),
      cmocka_unit_test(names_list_every_row),
      cmocka_unit_test(select_follows_fallbacks),
      cmocka_unit_test(shared_cores_send_auto_to_binomial),
      cmocka_unit_test(strerror_describes_every_code),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
