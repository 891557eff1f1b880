/* Unit tests (no MPI run): predictors on known sequences, the cost model
 * and its file format. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"

static pat_predictor *make(const char *spec, int n) {
  pat_predictor *p = NULL;
  char why[256];
  if (pat_predictor_alloc(spec, n, &p, why, sizeof why) != PAT_SUCCESS)
    fail_msg("%s: %s", spec, why);
  return p;
}

static void no_history_predicts_balanced(void **state) {
  double out[4] = {9, 9, 9, 9};
  pat_predictor *p = make("sma:3", 4);
  (void)state;
  assert_int_equal(pat_predictor_observed(p), 0);
  assert_int_equal(pat_predictor_predict(p, out), PAT_SUCCESS);
  for (int i = 0; i < 4; i++)
    assert_true(out[i] == 0.0);
  pat_predictor_free(p);
}

static void sma_averages_the_window(void **state) {
  /* absolute times; the predictor works on patterns relative to the
   * earliest rank of each call */
  double calls[4][3] = {
      {10, 11, 12}, /* pattern 0 1 2 */
      {5, 5, 8},    /* pattern 0 0 3 */
      {1, 4, 1},    /* pattern 0 3 0 */
      {7, 7, 7},    /* pattern 0 0 0 */
  };
  double out[3];
  pat_predictor *p = make("SMA:3", 3);
  (void)state;
  for (int k = 0; k < 3; k++)
    assert_int_equal(pat_predictor_observe(p, calls[k]), PAT_SUCCESS);
  pat_predictor_predict(p, out); /* mean of the three: 0, 4/3, 5/3 */
  assert_true(fabs(out[0] - 0) < 1e-12);
  assert_true(fabs(out[1] - 4.0 / 3) < 1e-12);
  assert_true(fabs(out[2] - 5.0 / 3) < 1e-12);
  pat_predictor_observe(p, calls[3]); /* the first falls out */
  pat_predictor_predict(p, out);      /* 0, 1, 1 */
  assert_true(fabs(out[0]) < 1e-12 && fabs(out[1] - 1) < 1e-12 &&
              fabs(out[2] - 1) < 1e-12);
  assert_int_equal(pat_predictor_observed(p), 4);
  pat_predictor_free(p);
}

static void sma_result_is_relative(void **state) {
  /* every rank late at some point: the prediction starts at 0 */
  double calls[2][2] = {{0, 2}, {4, 0}}, out[2];
  pat_predictor *p = make("sma", 2); /* window 5 */
  (void)state;
  pat_predictor_observe(p, calls[0]);
  pat_predictor_observe(p, calls[1]); /* mean pattern 2, 1 -> 1, 0 */
  pat_predictor_predict(p, out);
  assert_true(fabs(out[0] - 1) < 1e-12 && fabs(out[1]) < 1e-12);
  pat_predictor_free(p);
}

static void last_repeats_the_last_pattern(void **state) {
  double a[3] = {3, 1, 2}, b[3] = {0, 5, 0}, out[3];
  pat_predictor *p = make("last", 3);
  (void)state;
  pat_predictor_observe(p, a);
  pat_predictor_predict(p, out);
  assert_true(out[0] == 2 && out[1] == 0 && out[2] == 1);
  pat_predictor_observe(p, b);
  pat_predictor_predict(p, out);
  assert_true(out[0] == 0 && out[1] == 5 && out[2] == 0);
  pat_predictor_free(p);
}

static void same_inputs_same_bits(void **state) {
  /* two predictors fed alike predict bitwise alike (every rank must) */
  pat_predictor *p = make("sma:4", 5), *q = make("sma:4", 5);
  double a[5], x[5], y[5];
  (void)state;
  for (int k = 0; k < 11; k++) {
    for (int i = 0; i < 5; i++)
      a[i] = sin(k * 7.0 + i) * 1e-3 + 1e5;
    pat_predictor_observe(p, a);
    pat_predictor_observe(q, a);
  }
  pat_predictor_predict(p, x);
  pat_predictor_predict(q, y);
  assert_memory_equal(x, y, sizeof x);
  pat_predictor_free(p);
  pat_predictor_free(q);
}

static void bad_specs_list_the_valid_ones(void **state) {
  const char *bad[] = {"",       "sma:", "sma:0",   "sma:-2", "sma:5x",
                       "last:3", "ewma", "smalast", NULL};
  (void)state;
  for (int i = 0; bad[i]; i++) {
    pat_predictor *p = (pat_predictor *)bad;
    char why[256] = "";
    assert_int_equal(pat_predictor_alloc(bad[i], 4, &p, why, sizeof why),
                     PAT_ERR_BAD_ENV);
    assert_null(p);
    assert_non_null(strstr(why, "valid: sma, sma:W (W >= 1 calls), last"));
  }
  {
    double nan_arrival[2] = {0, NAN};
    pat_predictor *p = make("last", 2);
    assert_int_equal(pat_predictor_observe(p, nan_arrival),
                     PAT_ERR_INVALID_ARG);
    assert_int_equal(pat_predictor_observed(p), 0);
    pat_predictor_free(p);
  }
  pat_predictor_free(NULL);
}

/* ---- cost model ---------------------------------------------------------- */

static char *write_file(const char *text) {
  static char path[64];
  int fd;
  snprintf(path, sizeof path, "/tmp/patmodelXXXXXX");
  fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  close(fd);
  return path;
}

static void model_file_round_trip(void **state) {
  pat_model m = {2.66e-6, 4.8179e-10, 1.6654e-10}, r = {0, 0, 0};
  char path[] = "/tmp/patmodelXXXXXX", why[256];
  int fd = mkstemp(path);
  FILE *f = fdopen(fd, "w");
  (void)state;
  assert_int_equal(pat_model_write(f, &m), PAT_SUCCESS);
  fclose(f);
  assert_int_equal(pat_model_read(path, &r, why, sizeof why), PAT_SUCCESS);
  assert_memory_equal(&m, &r, sizeof m); /* %.17g: exact */
  assert_true(fabs(pat_model_round_cost(&r, 1024) -
                   (2.66e-6 + 1024 * (4.8179e-10 + 1.6654e-10))) < 1e-18);
  unlink(path);
}

static void bad_model_files_name_the_line(void **state) {
  struct {
    const char *text, *reason;
  } cases[] = {
      {"alpha = 1\nbeta = 2\n", "no \"gamma = ...\" line"},
      {"# c\nalpha = 1\nbeta 2\ngamma = 3\n", ":3: expected \"key = value\""},
      {"alpha = 1\nalpha = 1\n", ":2: repeated key \"alpha\""},
      {"alpha = 1\ndelta = 1\n", ":2: unknown key \"delta\""},
      {"alpha = 1\nbeta = -2\ngamma = 0\n",
       ":2: beta = \"-2\" is not a finite"},
      {"alpha = nan\n", ":1: alpha = \"nan\" is not a finite"},
      {"alpha = 1us\n", ":1: alpha = \"1us\""},
      {"alpha = 0\nbeta = 0\ngamma = 0\n", "are all 0"},
  };
  pat_model m;
  char why[256];
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *path = write_file(cases[i].text);
    assert_int_equal(pat_model_read(path, &m, why, sizeof why),
                     PAT_ERR_BAD_ENV);
    if (strstr(why, cases[i].reason) == NULL)
      fail_msg("\"%s\" does not say \"%s\"", why, cases[i].reason);
    unlink(path);
  }
  assert_int_equal(pat_model_read("/nonexistent/model", &m, why, sizeof why),
                   PAT_ERR_BAD_ENV);
  assert_non_null(strstr(why, "cannot be opened"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_history_predicts_balanced),
      cmocka_unit_test(sma_averages_the_window),
      cmocka_unit_test(sma_result_is_relative),
      cmocka_unit_test(last_repeats_the_last_pattern),
      cmocka_unit_test(same_inputs_same_bits),
      cmocka_unit_test(bad_specs_list_the_valid_ones),
      cmocka_unit_test(model_file_round_trip),
      cmocka_unit_test(bad_model_files_name_the_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
