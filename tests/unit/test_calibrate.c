/* Unit tests (no MPI run) of patcalibrate's MPI-free part: the fit of
 * alpha, beta, gamma recovers them from synthetic times (exact and noisy),
 * flags data a line cannot fit, rejects unusable samples; options and size
 * lists parse or fail naming the option, value and valid values; fitted
 * models survive pat_model_write + pat_model_read bit for bit.
 *
 * `test_calibrate model FILE` instead checks that FILE (written by an
 * patcalibrate run under mpiexec) is a model pat_model_read accepts. */
#include <float.h>
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
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "calibrate_fit.h"
#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"

/* Synthetic machines: transfer = at + beta m, combine = ac + gamma m. */
typedef struct machine {
  double at, beta, ac, gamma;
} machine;

static const machine machines[] = {
    {2.66e-6, 4.8179e-10, 5e-8, 1.6654e-10}, /* the thesis' CURIE, say */
    {4.0e-7, 1.2e-10, 2e-8, 2.5e-10},        /* shared memory */
    {1.5e-5, 1e-9, 1e-7, 1e-10},             /* a slow network */
};

/* n sizes 8, 16, ..., 8 * 2^(n-1) and the machine's exact times. */
static void synthesise(const machine *mc, pat_calibrate_sample *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double m = 8.0 * ldexp(1.0, (int)i);
    s[i].bytes = m;
    s[i].transfer = mc->at + mc->beta * m;
    s[i].combine = mc->ac + mc->gamma * m;
    s[i].round = s[i].transfer + s[i].combine;
  }
}

static double rel(double got, double want) {
  return fabs(got - want) / fabs(want);
}

static void fit_or_fail(const pat_calibrate_sample *s, size_t n,
                        double max_residual, pat_calibrate_fit *f) {
  char why[256] = "";
  if (pat_calibrate_fit_samples(s, n, max_residual, f, why, sizeof why) !=
      PAT_SUCCESS)
    fail_msg("fit failed: %s", why);
}

static void exact_data_gives_the_parameters_back(void **state) {
  pat_calibrate_sample s[20];
  pat_calibrate_fit f;
  (void)state;
  for (size_t k = 0; k < sizeof machines / sizeof machines[0]; k++) {
    const machine *mc = &machines[k];
    synthesise(mc, s, 20);
    fit_or_fail(s, 20, 0.25, &f);
    assert_true(rel(f.transfer_alpha, mc->at) < 1e-8);
    assert_true(rel(f.combine_alpha, mc->ac) < 1e-6);
    assert_true(rel(f.model.alpha, mc->at + mc->ac) < 1e-8);
    assert_true(rel(f.model.beta, mc->beta) < 1e-8);
    assert_true(rel(f.model.gamma, mc->gamma) < 1e-8);
    assert_int_equal(f.flags, 0);
    assert_true(f.max_transfer < 1e-8 && f.max_combine < 1e-8 &&
                f.max_round < 1e-8);
    assert_true(f.transfer_r2 > 1 - 1e-9 && f.combine_r2 > 1 - 1e-9);
  }
  /* two sizes are enough for a line; no round measured is fine */
  synthesise(&machines[0], s, 2);
  s[0].round = s[1].round = NAN;
  fit_or_fail(s, 2, 0.25, &f);
  assert_true(rel(f.model.beta, machines[0].beta) < 1e-8);
  assert_true(f.max_round == 0);
}

static void noisy_data_within_tolerance(void **state) {
  enum { N = 20, SEEDS = 25 };
  const double noise = 0.03; /* 3% relative, normal */
  pat_calibrate_sample s[N];
  pat_calibrate_fit f;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  (void)state;
  for (size_t k = 0; k < sizeof machines / sizeof machines[0]; k++) {
    const machine *mc = &machines[k];
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
      gsl_rng_set(rng, seed);
      synthesise(mc, s, N);
      for (size_t i = 0; i < N; i++) {
        s[i].transfer *= 1 + gsl_ran_gaussian(rng, noise);
        s[i].combine *= 1 + gsl_ran_gaussian(rng, noise);
        s[i].round *= 1 + gsl_ran_gaussian(rng, noise);
      }
      fit_or_fail(s, N, 0.25, &f);
      if (rel(f.model.alpha, mc->at + mc->ac) > 0.1 ||
          rel(f.model.beta, mc->beta) > 0.1 ||
          rel(f.model.gamma, mc->gamma) > 0.1)
        fail_msg("machine %zu seed %lu: alpha %g beta %g gamma %g, want %g "
                 "%g %g within 10%%",
                 k, seed, f.model.alpha, f.model.beta, f.model.gamma,
                 mc->at + mc->ac, mc->beta, mc->gamma);
      /* 3% noise: the residuals stay well below the 25% limit */
      assert_int_equal(f.flags & PAT_CALIBRATE_BAD_FIT, 0);
      assert_true(f.max_round > 0 && f.max_round < 0.25);
      assert_true(f.transfer_r2 > 0.9 && f.transfer_r2 < 1);
    }
  }
  gsl_rng_free(rng);
}

static void quadratic_data_is_flagged(void **state) {
  enum { N = 20 };
  const machine *mc = &machines[1];
  pat_calibrate_sample s[N];
  pat_calibrate_fit f;
  double top = 8.0 * ldexp(1.0, N - 1);
  /* c m^2 is twice beta m at the largest size */
  double c = 2 * mc->beta / top;
  (void)state;
  synthesise(mc, s, N);
  for (size_t i = 0; i < N; i++) {
    s[i].transfer += c * s[i].bytes * s[i].bytes;
    s[i].round = s[i].transfer + s[i].combine;
  }
  fit_or_fail(s, N, 0.25, &f);
  assert_true(f.flags & PAT_CALIBRATE_BAD_TRANSFER);
  assert_true(f.flags & PAT_CALIBRATE_BAD_ROUND);
  assert_false(f.flags & PAT_CALIBRATE_BAD_COMBINE);
  assert_true(f.max_transfer > 0.25 && f.max_round > 0.25);
  assert_true(f.transfer_r2 < 1 - 1e-3);
  /* the limit decides: the same data under a loose limit is not flagged */
  fit_or_fail(s, N, 10.0, &f);
  assert_int_equal(f.flags & PAT_CALIBRATE_BAD_FIT, 0);
}

static void round_off_the_model_is_flagged(void **state) {
  /* transfer and combine are lines, but the rounds cost half again more
   * than their sum (e.g. contention only the round sees) */
  pat_calibrate_sample s[12];
  pat_calibrate_fit f;
  (void)state;
  synthesise(&machines[0], s, 12);
  for (size_t i = 0; i < 12; i++)
    s[i].round *= 1.5;
  fit_or_fail(s, 12, 0.25, &f);
  assert_int_equal(f.flags & PAT_CALIBRATE_BAD_FIT, PAT_CALIBRATE_BAD_ROUND);
  assert_true(fabs(f.max_round - 1.0 / 3) < 1e-6); /* (1.5 - 1) / 1.5 */
  assert_true(fabs(pat_calibrate_relative_residual(
                       s[3].round, pat_model_round_cost(&f.model, s[3].bytes)) -
                   1.0 / 3) < 1e-6);
}

static void negative_fits_are_clamped(void **state) {
  pat_calibrate_sample s[10];
  pat_calibrate_fit f;
  (void)state;
  /* a negative intercept: transfer = -1 us + 1 ns/B, sizes from 8 KiB */
  for (size_t i = 0; i < 10; i++) {
    double m = 8192.0 * (double)(i + 1);
    s[i].bytes = m;
    s[i].transfer = -1e-6 + 1e-9 * m;
    s[i].combine = 1e-10 * m;
    s[i].round = s[i].transfer + s[i].combine;
  }
  fit_or_fail(s, 10, 0.25, &f);
  assert_true(f.transfer_alpha < 0);
  assert_true(f.flags & PAT_CALIBRATE_CLAMPED_ALPHA);
  assert_false(f.flags &
               (PAT_CALIBRATE_CLAMPED_BETA | PAT_CALIBRATE_CLAMPED_GAMMA));
  assert_true(f.model.alpha == 0);
  assert_true(rel(f.model.beta, 1e-9) < 1e-6);
  /* transfers and combines that get faster with size: slopes clamped */
  for (size_t i = 0; i < 10; i++) {
    s[i].transfer = 1e-5 - 1e-11 * s[i].bytes;
    s[i].combine = 1e-6 - 1e-12 * s[i].bytes;
    s[i].round = s[i].transfer + s[i].combine;
  }
  fit_or_fail(s, 10, 0.25, &f);
  assert_true(f.flags & PAT_CALIBRATE_CLAMPED_BETA);
  assert_true(f.flags & PAT_CALIBRATE_CLAMPED_GAMMA);
  assert_false(f.flags & PAT_CALIBRATE_CLAMPED_ALPHA);
  assert_true(f.model.beta == 0 && f.model.gamma == 0 && f.model.alpha > 0);
  assert_true(f.transfer_beta < 0 && f.combine_gamma < 0);
}

static void unusable_samples_are_rejected(void **state) {
  pat_calibrate_sample s[4];
  pat_calibrate_fit f;
  char why[256];
  (void)state;
  synthesise(&machines[0], s, 4);
  s[2].combine = 0;
  assert_int_equal(pat_calibrate_fit_samples(s, 4, 0.25, &f, why, sizeof why),
                   PAT_ERR_INVALID_ARG);
  assert_non_null(strstr(why, "sample 2"));
  synthesise(&machines[0], s, 4);
  s[1].transfer = INFINITY;
  assert_int_equal(pat_calibrate_fit_samples(s, 4, 0.25, &f, why, sizeof why),
                   PAT_ERR_INVALID_ARG);
  synthesise(&machines[0], s, 4);
  s[0].round = -1;
  assert_int_equal(pat_calibrate_fit_samples(s, 4, 0.25, &f, why, sizeof why),
                   PAT_ERR_INVALID_ARG);
  synthesise(&machines[0], s, 4);
  for (size_t i = 1; i < 4; i++)
    s[i] = s[0]; /* one size only */
  assert_int_equal(pat_calibrate_fit_samples(s, 4, 0.25, &f, why, sizeof why),
                   PAT_ERR_INVALID_ARG);
  assert_non_null(strstr(why, "a line needs two"));
  synthesise(&machines[0], s, 4);
  assert_int_equal(pat_calibrate_fit_samples(s, 4, 0, &f, why, sizeof why),
                   PAT_ERR_INVALID_ARG);
  assert_int_equal(pat_calibrate_fit_samples(NULL, 4, 0.25, &f, NULL, 0),
                   PAT_ERR_INVALID_ARG);
}

/* ---- size lists ------------------------------------------------------------
 */

static void size_lists_parse(void **state) {
  struct {
    const char *list;
    size_t n, want[4];
  } good[] = {
      {"8,1K,64K", 3, {8, 1024, 65536}},
      {"4M,8,8,1k", 3, {8, 1024, 4u << 20}}, /* sorted, duplicates dropped */
      {"1G,16", 2, {16, 1u << 30}},
      {"24,1m,2K,1g", 4, {24, 2048, 1u << 20, 1u << 30}},
  };
  (void)state;
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    size_t *v = NULL, n = 0;
    char why[512] = "";
    if (pat_calibrate_parse_sizes(good[i].list, &v, &n, why, sizeof why) != 0)
      fail_msg("\"%s\": %s", good[i].list, why);
    assert_int_equal(n, good[i].n);
    for (size_t k = 0; k < n; k++)
      assert_int_equal(v[k], good[i].want[k]);
    free(v);
  }
}

static void bad_size_lists_say_why(void **state) {
  struct {
    const char *list, *reason;
  } bad[] = {
      {"", "an empty entry"},
      {"8,,16", "an empty entry"},
      {"8,", "an empty entry"},
      {"8", "one size cannot make a line"},
      {"8,8", "one size cannot make a line"},
      {"12,16", "\"12\" is not a multiple of 8 bytes"},
      {"0,8", "\"0\" is not positive"},
      {"-8,16", "\"-8\" is not a size"},
      {"+8,16", "\"+8\" is not a size"},
      {"8, 16", "\" 16\" is not a size"},
      {"8,2G", "\"2G\" is more than 1G"},
      {"8,1025M", "\"1025M\" is more than 1G"},
      {"8,99999999999999999999999", "is more than 1G"},
      {"1.001K,8", "\"1.001K\" is not a size"}, /* 1025.024 bytes */
      {"8,16KB", "\"16KB\" is not a size"},
      {"8,K", "\"K\" is not a size"},
      {"8;16", "\"8;16\" is not a size"},
  };
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t *v = (size_t *)bad, n = 7;
    char why[512] = "";
    assert_int_equal(
        pat_calibrate_parse_sizes(bad[i].list, &v, &n, why, sizeof why),
        PAT_CALIBRATE_USAGE);
    assert_null(v);
    assert_int_equal(n, 0);
    if (strstr(why, bad[i].reason) == NULL || strstr(why, "--sizes") == NULL ||
        strstr(why, "valid: ") == NULL)
      fail_msg("\"%s\": \"%s\" does not say \"%s\"", bad[i].list, why,
               bad[i].reason);
  }
}

/* ---- options ---------------------------------------------------------------
 */

/* Parses up to 14 arguments (after the program name), NULL-terminated. */
static int parse(pat_calibrate_options *o, char *why, size_t whylen,
                 const char *const *args) {
  char *argv[16] = {"patcalibrate"};
  int argc = 1;
  while (argc < 15 && args[argc - 1] != NULL) {
    argv[argc] = (char *)args[argc - 1];
    argc++;
  }
  return pat_calibrate_parse_args(argc, argv, o, why, whylen);
}

#define ARGS(...)                                                              \
  (const char *const[]) { __VA_ARGS__, NULL }

static void options_parse(void **state) {
  pat_calibrate_options o, d;
  char why[512] = "", text[128];
  (void)state;
  assert_int_equal(parse(&d, why, sizeof why, ARGS(NULL)), 0);
  assert_true(d.reps >= 1 && d.warmup >= 0 && d.max_residual > 0);
  assert_string_equal(d.output, "patreduce.model");
  assert_true(d.nsizes >= 2 && d.sizes[0] == 8 &&
              d.sizes[d.nsizes - 1] == 4u << 20);
  for (size_t k = 1; k < d.nsizes; k++)
    assert_true(d.sizes[k] == 2 * d.sizes[k - 1]); /* geometric */
  /* --help states the defaults the code uses */
  snprintf(text, sizeof text, "(default %d)", d.reps);
  assert_non_null(strstr(pat_calibrate_usage(), text));
  snprintf(text, sizeof text, "(default %d)", d.warmup);
  assert_non_null(strstr(pat_calibrate_usage(), text));
  snprintf(text, sizeof text, "(default %g)", d.max_residual);
  assert_non_null(strstr(pat_calibrate_usage(), text));
  snprintf(text, sizeof text, "(default %s)", d.output);
  assert_non_null(strstr(pat_calibrate_usage(), text));

  assert_int_equal(parse(&o, why, sizeof why,
                         ARGS("--sizes=8,1K", "--reps", "7", "--warmup", "0",
                              "--output", "-", "--max-residual", "0.1")),
                   0);
  assert_int_equal(o.nsizes, 2);
  assert_int_equal(o.sizes[1], 1024);
  assert_int_equal(o.reps, 7);
  assert_int_equal(o.warmup, 0);
  assert_string_equal(o.output, "-");
  assert_true(o.max_residual == 0.1);
  pat_calibrate_options_free(&o);

  /* parsing again in the same process starts afresh */
  assert_int_equal(parse(&o, why, sizeof why, ARGS("--reps=3")), 0);
  assert_int_equal(o.reps, 3);
  assert_int_equal(o.warmup, d.warmup);
  assert_int_equal(o.nsizes, d.nsizes);
  pat_calibrate_options_free(&o);
  pat_calibrate_options_free(&d);

  assert_int_equal(parse(&o, why, sizeof why, ARGS("--reps", "2", "--help")),
                   PAT_CALIBRATE_HELP);
  pat_calibrate_options_free(&o);
  assert_non_null(strstr(pat_calibrate_usage(), "--sizes LIST"));
  assert_non_null(strstr(pat_calibrate_usage(), "--max-residual"));
}

static void bad_options_say_why(void **state) {
  struct {
    const char *args[3], *reason[3];
  } bad[] = {
      {{"--reps", "0"}, {"--reps \"0\"", "valid: ", "1..1000000"}},
      {{"--reps", "-3"}, {"--reps \"-3\"", "valid: ", "1..1000000"}},
      {{"--reps", "1x"}, {"--reps \"1x\"", "valid: ", "1..1000000"}},
      {{"--reps", "1000001"}, {"--reps \"1000001\"", "valid: ", "1..1000000"}},
      {{"--reps", " 5"}, {"--reps \" 5\"", "valid: ", ""}},
      {{"--reps", "99999999999999999999"}, {"--reps \"9999", "valid: ", ""}},
      {{"--warmup", "-1"}, {"--warmup \"-1\"", "valid: ", "0..1000000"}},
      {{"--output", ""}, {"--output \"\"", "valid: ", "- for stdout"}},
      {{"--max-residual", "0"}, {"--max-residual \"0\"", "valid: ", "> 0"}},
      {{"--max-residual", "nan"}, {"--max-residual \"nan\"", "valid: ", ""}},
      {{"--max-residual", "0.2x"}, {"--max-residual \"0.2x\"", "valid", ""}},
      {{"--sizes", "8,12"}, {"--sizes \"8,12\"", "\"12\"", "valid: "}},
      {{"--bogus"}, {"unknown option \"--bogus\"", "valid: ", "--sizes"}},
      {{"-x"}, {"unknown option \"-x\"", "valid: ", ""}},
      {{"--help=3"}, {"--help takes no value", "", ""}},
      {{"--reps"}, {"--reps needs a value", "", ""}},
      {{"extra"}, {"unexpected argument \"extra\"", "", ""}},
      {{"--reps", "3", "extra"}, {"unexpected argument \"extra\"", "", ""}},
  };
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pat_calibrate_options o;
    char why[512] = "";
    int rc = parse(&o, why, sizeof why,
                   ARGS(bad[i].args[0], bad[i].args[1], bad[i].args[2]));
    pat_calibrate_options_free(&o);
    if (rc != PAT_CALIBRATE_USAGE)
      fail_msg("%s %s: returned %d, want %d", bad[i].args[0],
               bad[i].args[1] ? bad[i].args[1] : "", rc, PAT_CALIBRATE_USAGE);
    for (int k = 0; k < 3; k++)
      if (strstr(why, bad[i].reason[k]) == NULL)
        fail_msg("%s: \"%s\" does not say \"%s\"", bad[i].args[0], why,
                 bad[i].reason[k]);
  }
}

/* ---- model files ---------------------------------------------------------
 */

static void round_trip(const pat_model *m) {
  pat_model r = {-1, -1, -1};
  char path[] = "/tmp/patcalXXXXXX", why[256] = "";
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  assert_non_null(f);
  assert_int_equal(pat_model_write(f, m), PAT_SUCCESS);
  assert_int_equal(fclose(f), 0);
  if (pat_model_read(path, &r, why, sizeof why) != PAT_SUCCESS)
    fail_msg("%s", why);
  unlink(path);
  if (memcmp(m, &r, sizeof r) != 0)
    fail_msg("wrote %.17g %.17g %.17g, read %.17g %.17g %.17g", m->alpha,
             m->beta, m->gamma, r.alpha, r.beta, r.gamma);
}

static void model_file_round_trip_is_exact(void **state) {
  pat_calibrate_sample s[20];
  pat_calibrate_fit f;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  (void)state;
  /* fitted values: arbitrary bits in every digit */
  for (unsigned long seed = 1; seed <= 50; seed++) {
    gsl_rng_set(rng, seed);
    synthesise(&machines[seed % 3], s, 20);
    for (size_t i = 0; i < 20; i++) {
      s[i].transfer *= 1 + gsl_ran_gaussian(rng, 0.05);
      s[i].combine *= 1 + gsl_ran_gaussian(rng, 0.05);
    }
    fit_or_fail(s, 20, 0.25, &f);
    round_trip(&f.model);
  }
  gsl_rng_free(rng);
  {
    /* values that need all 17 digits, and extremes */
    pat_model edge[] = {
        {1.0 / 3, nextafter(1e-10, 1), nextafter(1e-10, 0)},
        {DBL_MIN, DBL_TRUE_MIN, DBL_MAX},
        {0, 0, 2.2250738585072009e-308},
        {nextafter(2.66e-6, 1), 0, 0},
    };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
      round_trip(&edge[i]);
  }
}

/* ---- the file an MPI run wrote --------------------------------------------
 */

static const char *written_model;

static void written_model_is_readable(void **state) {
  pat_model m = {-1, -1, -1};
  char why[512] = "";
  (void)state;
  if (pat_model_read(written_model, &m, why, sizeof why) != PAT_SUCCESS)
    fail_msg("%s", why);
  assert_true(m.alpha >= 0 && m.beta >= 0 && m.gamma >= 0);
  /* a round of 64 KiB costs more than nothing and less than a second */
  assert_true(pat_model_round_cost(&m, 65536) > 0);
  assert_true(pat_model_round_cost(&m, 65536) < 1);
  assert_true(pat_model_round_cost(&m, 65536) >= pat_model_round_cost(&m, 8));
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exact_data_gives_the_parameters_back),
      cmocka_unit_test(noisy_data_within_tolerance),
      cmocka_unit_test(quadratic_data_is_flagged),
      cmocka_unit_test(round_off_the_model_is_flagged),
      cmocka_unit_test(negative_fits_are_clamped),
      cmocka_unit_test(unusable_samples_are_rejected),
      cmocka_unit_test(size_lists_parse),
      cmocka_unit_test(bad_size_lists_say_why),
      cmocka_unit_test(options_parse),
      cmocka_unit_test(bad_options_say_why),
      cmocka_unit_test(model_file_round_trip_is_exact),
  };
  const struct CMUnitTest model_tests[] = {
      cmocka_unit_test(written_model_is_readable),
  };
  if (argc == 3 && strcmp(argv[1], "model") == 0) {
    written_model = argv[2];
    return cmocka_run_group_tests(model_tests, NULL, NULL);
  }
  if (argc != 1) {
    fprintf(stderr, "usage: test_calibrate [model FILE]\n");
    return 2;
  }
  return cmocka_run_group_tests(tests, NULL, NULL);
}
