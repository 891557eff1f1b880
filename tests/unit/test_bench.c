/* Unit tests (no MPI run) of patbench's parts: times, arrival patterns and
 * their distributions, trace files, statistics, the command line. */
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
#include <gsl/gsl_statistics_double.h>

#include "escape.h"
#include "patbench.h"
#include "plot.h"
#include "reduce/pat_reduce.h"

static char why[1024];

/* ---- times ---- */

static void times_parse_with_units(void **state) {
  pb_time t;
  (void)state;
  assert_int_equal(pb_time_parse("1.5ms", &t, why, sizeof why), 0);
  assert_true(fabs(t.value - 1.5e-3) < 1e-15 && !t.relative);
  assert_int_equal(pb_time_parse("250us", &t, why, sizeof why), 0);
  assert_true(fabs(t.value - 250e-6) < 1e-15);
  assert_int_equal(pb_time_parse("0.002", &t, why, sizeof why), 0);
  assert_true(fabs(t.value - 2e-3) < 1e-15);
  assert_int_equal(pb_time_parse("2x", &t, why, sizeof why), 0);
  assert_true(t.relative && t.value == 2);
  assert_true(fabs(pb_time_seconds(t, 0.25) - 0.5) < 1e-15);
  assert_int_not_equal(pb_time_parse("1h", &t, why, sizeof why), 0);
  assert_non_null(strstr(why, "'1h'"));
  assert_int_not_equal(pb_time_parse("-1ms", &t, why, sizeof why), 0);
  assert_int_not_equal(pb_time_parse("", &t, why, sizeof why), 0);
  assert_int_not_equal(pb_time_parse("nan", &t, why, sizeof why), 0);
}

/* ---- patterns ---- */

static pb_pattern parse_ok(const char *spec) {
  pb_pattern p;
  if (pb_pattern_parse(spec, &p, why, sizeof why) != 0)
    fail_msg("%s: %s", spec, why);
  return p;
}

static void parse_bad(const char *spec, const char *needle) {
  pb_pattern p;
  if (pb_pattern_parse(spec, &p, why, sizeof why) == 0)
    fail_msg("'%s' parsed", spec);
  if (strstr(why, needle) == NULL)
    fail_msg("'%s': message '%s' lacks '%s'", spec, why, needle);
  pb_pattern_clear(&p);
}

static void patterns_parse_and_reject(void **state) {
  pb_pattern p;
  (void)state;
  p = parse_ok("single");
  assert_int_equal(p.kind, PB_PAT_SINGLE);
  assert_int_equal(p.rank, -1);
  p = parse_ok("SINGLE:3");
  assert_int_equal(p.rank, 3);
  p = parse_ok("k-random:4");
  assert_int_equal(p.k, 4);
  p = parse_ok("gamma:1ms:0.5");
  assert_true(fabs(p.t1.value - 1e-3) < 1e-15 && p.cv == 0.5);
  p = parse_ok("truncgamma:1ms:3ms");
  assert_true(p.cv == 1 && fabs(p.t2.value - 3e-3) < 1e-15);
  p = parse_ok("bernoulli:0.25:2x");
  assert_true(p.p == 0.25 && p.t1.relative);
  assert_true(pb_pattern_takes_magnitude(&p) == 0);
  p = parse_ok("odd");
  assert_true(pb_pattern_takes_magnitude(&p));
  parse_bad("zigzag", "valid: none, single[:RANK]");
  parse_bad("single:x", "rank 'x'");
  parse_bad("k-random", "usage: k-random:K");
  parse_bad("k-random:0", "K '0'");
  parse_bad("gamma:1ms", "usage: gamma:MEAN:CV");
  parse_bad("gamma:1ms:-1", "CV '-1'");
  parse_bad("normal:1ms:2x", "both");
  parse_bad("bernoulli:1.5:1ms", "P '1.5'");
  parse_bad("uniform:1h", "'1h'");
  parse_bad("none:1", "usage: none");
  parse_bad("trace:/nonexistent/file", "cannot open");
  p = parse_ok("single:9");
  assert_int_not_equal(pb_pattern_check(&p, 8, why, sizeof why), 0);
  assert_non_null(strstr(why, "0..7"));
  assert_int_equal(pb_pattern_check(&p, 10, why, sizeof why), 0);
}

static void fixed_patterns_delay_the_right_ranks(void **state) {
  double d[10];
  pb_pattern p = parse_ok("single");
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  (void)state;
  pb_pattern_delays(&p, 10, 0.5, 0, rng, 0, d);
  for (int i = 0; i < 10; i++)
    assert_true(d[i] == (i == 9 ? 0.5 : 0));
  p = parse_ok("odd");
  pb_pattern_delays(&p, 10, 0.5, 0, rng, 0, d);
  for (int i = 0; i < 10; i++)
    assert_true(d[i] == (i % 2 ? 0.5 : 0));
  p = parse_ok("k-random:3");
  for (int call = 0; call < 100; call++) {
    int late = 0;
    pb_pattern_delays(&p, 10, 0.5, 0, rng, (size_t)call, d);
    for (int i = 0; i < 10; i++)
      late += d[i] == 0.5;
    assert_int_equal(late, 3);
  }
  gsl_rng_free(rng);
}

/* Mean and standard deviation of `calls` x `n` delays of a pattern. */
static void moments(const char *spec, double ref, double *mean, double *sd,
                    double *max) {
  enum { N = 100, CALLS = 2000 };
  double *d = malloc((size_t)N * CALLS * sizeof *d);
  pb_pattern p = parse_ok(spec);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 42);
  for (int c = 0; c < CALLS; c++)
    pb_pattern_delays(&p, N, 0, ref, rng, (size_t)c, d + (size_t)c * N);
  *mean = gsl_stats_mean(d, 1, (size_t)N * CALLS);
  *sd = gsl_stats_sd(d, 1, (size_t)N * CALLS);
  *max = gsl_stats_max(d, 1, (size_t)N * CALLS);
  gsl_rng_free(rng);
  free(d);
}

static void distributions_have_their_moments(void **state) {
  double m, sd, max;
  (void)state;
  /* 200000 draws: standard errors are well below 1% of these values */
  moments("uniform:2ms", 0, &m, &sd, &max);
  assert_true(fabs(m - 1e-3) < 0.01e-3);
  assert_true(fabs(sd - 2e-3 / sqrt(12)) < 0.01e-3);
  assert_true(max <= 2e-3);
  moments("normal:10ms:1ms", 0, &m, &sd, &max);
  assert_true(fabs(m - 10e-3) < 0.01e-3 && fabs(sd - 1e-3) < 0.01e-3);
  moments("gamma:1ms:0.5", 0, &m, &sd, &max);
  assert_true(fabs(m - 1e-3) < 0.01e-3);
  assert_true(fabs(sd / m - 0.5) < 0.01);
  moments("gamma:2x:1", 0.5e-3, &m, &sd, &max); /* relative mean */
  assert_true(fabs(m - 1e-3) < 0.02e-3);
  assert_true(fabs(sd / m - 1) < 0.02);
  moments("truncgamma:1ms:1.5ms", 0, &m, &sd, &max);
  assert_true(max <= 1.5e-3);
  assert_true(m < 1e-3 && m > 0.5e-3); /* truncation lowers the mean */
  moments("bernoulli:0.25:4ms", 0, &m, &sd, &max);
  assert_true(fabs(m - 1e-3) < 0.02e-3 && max == 4e-3);
}

/* ---- traces ---- */

static int trace_from(const char *text, pb_pattern *p) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  int rc;
  memset(p, 0, sizeof *p);
  rc = pb_trace_read(f, "t.txt", p, why, sizeof why);
  fclose(f);
  return rc;
}

static void traces_parse_and_reject_with_line_numbers(void **state) {
  pb_pattern p;
  double d[3];
  (void)state;
  assert_int_equal(trace_from("# delays\n0 0.001 0.002\n\n0.003,0,0 # x\n", &p),
                   0);
  assert_int_equal(p.rows, 2);
  assert_int_equal(p.cols, 3);
  p.kind = PB_PAT_TRACE;
  pb_pattern_delays(&p, 3, 0, 0, NULL, 3, d); /* call 3 = line 2 */
  assert_true(d[0] == 0.003 && d[1] == 0 && d[2] == 0);
  assert_int_not_equal(pb_pattern_check(&p, 4, why, sizeof why), 0);
  assert_non_null(strstr(why, "3 delays per line"));
  pb_pattern_clear(&p);
  assert_int_not_equal(trace_from("0 1 2\n0 1\n", &p), 0);
  assert_non_null(strstr(why, "t.txt:2:"));
  assert_int_not_equal(trace_from("0 1\n# c\n0 1 2\n", &p), 0);
  assert_non_null(strstr(why, "t.txt:3:"));
  assert_int_not_equal(trace_from("0 1\n0 abc\n", &p), 0);
  assert_non_null(strstr(why, "t.txt:2: column 2"));
  assert_int_not_equal(trace_from("0 -1\n", &p), 0);
  assert_non_null(strstr(why, "t.txt:1: column 2"));
  assert_int_not_equal(trace_from("0 1e999\n", &p), 0);
  assert_non_null(strstr(why, "t.txt:1:"));
  assert_int_not_equal(trace_from("# only a comment\n\n", &p), 0);
  assert_non_null(strstr(why, "no data lines"));
}

/* ---- statistics ---- */

static void summaries_are_right(void **state) {
  double x[9] = {9, 1, 8, 2, 7, 3, 6, 4, 5};
  pb_summary s;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  (void)state;
  pb_summarize(x, 9, 2000, rng, &s);
  assert_int_equal(s.n, 9);
  assert_true(s.min == 1 && s.max == 9 && s.median == 5 && s.mean == 5);
  assert_true(s.q25 == 3 && s.q75 == 7);
  assert_true(s.q95 > 8 && s.q95 <= 9);
  assert_true(s.ci_lo <= 5 && s.ci_hi >= 5);
  assert_true(s.ci_lo >= 1 && s.ci_hi <= 9 && s.ci_lo < s.ci_hi);
  gsl_rng_free(rng);
}

static void permutation_test_separates(void **state) {
  double a[30], b[30], c[30];
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  (void)state;
  for (int i = 0; i < 30; i++) {
    a[i] = 1 + 0.01 * gsl_rng_uniform(rng);
    b[i] = 2 + 0.01 * gsl_rng_uniform(rng);
    c[i] = 1 + 0.01 * gsl_rng_uniform(rng);
  }
  /* clearly different: no relabelling beats the observed ratio */
  assert_true(pb_permutation_p(a, 30, b, 30, 999, rng) <= 0.002);
  /* same distribution: no evidence */
  assert_true(pb_permutation_p(a, 30, c, 30, 999, rng) > 0.05);
  assert_true(pb_permutation_p(a, 30, a, 30, 999, rng) == 1);
  /* deterministic runs (SMPI): every repetition identical, no p-value */
  for (int i = 0; i < 30; i++)
    b[i] = 2, c[i] = 1;
  assert_true(isnan(pb_permutation_p(c, 30, b, 30, 999, rng)));
  assert_true(isnan(pb_permutation_p(c, 30, c, 30, 999, rng)));
  gsl_rng_free(rng);
}

/* ---- command line ---- */

static int parse(pb_options *o, const char *line) {
  char copy[512], *argv[32];
  int argc = 0, rc;
  FILE *devnull = fopen("/dev/null", "w");
  snprintf(copy, sizeof copy, "patbench %s", line);
  for (char *t = strtok(copy, " "); t != NULL && argc < 31;
       t = strtok(NULL, " "))
    argv[argc++] = t;
  argv[argc] = NULL;
  rc = pb_options_parse(argc, argv, o, devnull, why, sizeof why);
  fclose(devnull);
  return rc;
}

static void bad(const char *line, const char *needle) {
  pb_options o;
  int rc = parse(&o, line);
  pb_options_clear(&o);
  if (rc != 2)
    fail_msg("'%s' gave %d, want 2", line, rc);
  if (strstr(why, needle) == NULL)
    fail_msg("'%s': message '%s' lacks '%s'", line, why, needle);
}

static void options_defaults_and_values(void **state) {
  pb_options o;
  (void)state;
  assert_int_equal(parse(&o, ""), 0);
  assert_int_equal(o.nalgs, PAT_REDUCE_ALG_COUNT + 1); /* all + oracle */
  assert_int_equal(o.algs[o.nalgs - 1], PB_ALG_ORACLE);
  assert_int_equal(o.nsizes, 1);
  assert_true(o.sizes[0] == 512 * 1024);
  assert_int_equal(o.npatterns, 1);
  assert_int_equal(o.patterns[0].kind, PB_PAT_SINGLE);
  assert_int_equal(o.nimbalance, 5);
  assert_int_equal(o.reference, PAT_REDUCE_ALG_BINOMIAL);
  assert_int_equal(o.unit, PAT_REDUCE_ALG_BINOMIAL);
  assert_string_equal(pb_ops[o.op].name, "sum");
  assert_false(pb_ops[o.op].charged);
  assert_true(o.shared_above == PB_SHARED_ABOVE_DEFAULT);
  assert_int_equal(o.burst, 1);
  assert_int_equal(o.root, 0);
  pb_options_clear(&o);
  assert_int_equal(parse(&o, "--burst 50 --root ROTATE"), 0);
  assert_int_equal(o.burst, 50);
  assert_int_equal(o.root, PB_ROOT_ROTATE);
  pb_options_clear(&o);
  assert_int_equal(parse(&o, "--algorithms binomial,LocalRedirect,oracle "
                             "--sizes 8,1K,2M --datatype int --op max "
                             "--root last -n 7 --warmup 0 --pattern odd "
                             "--pattern gamma:1ms:0.3 --imbalance 0,2x "
                             "--sync window:2ms --reference localredirect "
                             "--unit oracle"),
                   0);
  assert_int_equal(o.nalgs, 3);
  assert_int_equal(o.algs[1], PAT_REDUCE_ALG_LOCALREDIRECT);
  assert_int_equal(o.reference, PAT_REDUCE_ALG_LOCALREDIRECT);
  assert_int_equal(o.unit, PB_ALG_ORACLE);
  assert_true(o.sizes[1] == 1024 && o.sizes[2] == 2 * 1024 * 1024);
  assert_string_equal(pb_types[o.type].name, "int");
  assert_string_equal(pb_ops[o.op].name, "max");
  assert_int_equal(o.root, -1);
  assert_int_equal(o.reps, 7);
  assert_int_equal(o.npatterns, 2);
  assert_true(o.imbalance[1].relative && o.imbalance[1].value == 2);
  assert_true(o.sync == PB_SYNC_WINDOW && fabs(o.window - 2e-3) < 1e-15);
  pb_options_clear(&o);
  assert_int_equal(parse(&o, "--help"), 1);
  pb_options_clear(&o);
}

/* --op sum-charged: MPI_SUM for the library's rows, a charged user-defined
 * sum for native (patbench.c); --shared-above takes a size. */
static void options_charged_op_and_shared_buffers(void **state) {
  pb_options o;
  (void)state;
  assert_int_equal(parse(&o, "--op sum-charged --shared-above 1M"), 0);
  assert_string_equal(pb_ops[o.op].name, "sum-charged");
  assert_true(pb_ops[o.op].charged);
  assert_true(pb_ops[o.op].op == MPI_SUM);
  assert_true(o.shared_above == 1024 * 1024);
  pb_options_clear(&o);
  assert_int_equal(parse(&o, "-o SUM-CHARGED -t int --shared-above 0"), 0);
  assert_true(pb_ops[o.op].charged);
  assert_true(o.shared_above == 0);
  pb_options_clear(&o);
  /* sum-ordered: the same sum, declared non-commutative for every row */
  assert_int_equal(parse(&o, "--op sum-ordered"), 0);
  assert_string_equal(pb_ops[o.op].name, "sum-ordered");
  assert_true(pb_ops[o.op].charged && pb_ops[o.op].ordered);
  pb_options_clear(&o);
  /* only sum has a charged or an ordered variant */
  for (int i = 0; pb_ops[i].name != NULL; i++)
    assert_true((!pb_ops[i].charged && !pb_ops[i].ordered) ||
                pb_ops[i].op == MPI_SUM);
  bad("--op sum-free", "valid: sum, sum-charged, sum-ordered, max, min");
  bad("--shared-above big", "--shared-above: 'big' is not a size in bytes");
  bad("--shared-above", "needs a value");
}

static void options_reject_bad_values(void **state) {
  (void)state;
  bad("--algorithms binomial,fast", "--algorithms: 'fast' is not an "
                                    "algorithm; valid: binomial, native");
  bad("--reps 1", "--reps: '1' is not an integer in 2..");
  bad("--reps ten", "--reps: 'ten'");
  bad("--sizes 8,1Q", "--sizes: '1Q'");
  bad("--sizes 12 --datatype double", "12 bytes is not a whole number");
  bad("--datatype complex", "valid: double, float, int, long");
  bad("--op xor", "--op: 'xor' is not valid");
  bad("--root -2", "--root: '-2'");
  bad("--burst 0", "--burst: '0' is not an integer in 1..");
  bad("--burst many", "--burst: 'many'");
  bad("--pattern gamma:1ms", "usage: gamma:MEAN:CV");
  bad("--imbalance 1ms,fast", "--imbalance: 'fast' is not a time");
  bad("--sync sometimes", "--sync: 'sometimes'");
  bad("--sync window:2x", "--sync: 'window:2x'");
  bad("--algorithms binomial --reference oracle", "not among --algorithms");
  bad("--unit fast", "--unit: 'fast' is not an algorithm; valid: binomial");
  bad("--bogus", "unknown option '--bogus'");
  bad("--reps", "needs a value");
  bad("stray", "unexpected argument 'stray'");
}

/* What f's writer made of s, in out (len bytes). */
static void written(void (*writer)(FILE *, const char *), const char *s,
                    char *out, size_t len) {
  FILE *f = tmpfile();
  size_t n;
  assert_non_null(f);
  writer(f, s);
  rewind(f);
  n = fread(out, 1, len - 1, f);
  out[n] = '\0';
  fclose(f);
}

/* User text (--tag, a trace file name) stays one CSV field and one JSON
 * string whatever it holds. */
static void user_text_is_escaped(void **state) {
  const char *csv[][2] = {{"plain", "plain"},
                          {"a,b", "\"a,b\""},
                          {"say \"hi\"", "\"say \"\"hi\"\"\""},
                          {"two\nlines", "\"two\nlines\""},
                          {"", ""}};
  const char *json[][2] = {{"plain", "\"plain\""},
                           {"q\"b\\", "\"q\\\"b\\\\\""},
                           {"n\nt\t", "\"n\\nt\\t\""},
                           {"\x01", "\"\\u0001\""},
                           {"it's", "\"it's\""}};
  char out[128];
  (void)state;
  for (size_t i = 0; i < sizeof csv / sizeof csv[0]; i++) {
    written(pb_csv_field, csv[i][0], out, sizeof out);
    if (strcmp(out, csv[i][1]) != 0)
      fail_msg("CSV of [%s]: [%s], want [%s]", csv[i][0], out, csv[i][1]);
  }
  for (size_t i = 0; i < sizeof json / sizeof json[0]; i++) {
    written(pb_json_string, json[i][0], out, sizeof out);
    if (strcmp(out, json[i][1]) != 0)
      fail_msg("JSON of [%s]: [%s], want [%s]", json[i][0], out, json[i][1]);
  }
}

/* The figures' script: the runtime with its CI as error bars, the legend
 * outside the data, a fixed colour-blind-safe palette, every point's CI in
 * the data.  (Whether gnuplot then runs is not this test's business.) */
static void figures_show_the_ci(void **state) {
  char prefix[] = "/tmp/patbench_plotXXXXXX", script[64], msg[256];
  char text[8192];
  pb_plot *plot = pb_plot_alloc();
  FILE *f;
  size_t n;
  int fd = mkstemp(prefix);
  (void)state;
  assert_true(fd >= 0);
  close(fd);
  assert_non_null(plot);
  /* balanced: the x = 0 point of a pattern measured at 1 and 2 ms only */
  assert_int_equal(
      pb_plot_add(plot, 8, "none", 0, "binomial", 0.5e-3, 0.4e-3, 0.6e-3, 1, 0),
      0);
  for (int i = 1; i <= 2; i++)
    assert_int_equal(pb_plot_add(plot, 8, "odd", i * 1e-3, "binomial", 2e-3,
                                 1.5e-3, 2.5e-3, 1, 0),
                     0);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(pb_plot_add(plot, 8, "single", i * 1e-3, "binomial",
                                 1e-3 + i * 1e-3, 0.9e-3 + i * 1e-3,
                                 1.2e-3 + i * 1e-3, 1, 0),
                     0);
    assert_int_equal(pb_plot_add(plot, 8, "single", i * 1e-3, "oracle", 1e-3,
                                 0.8e-3, 1.1e-3, 1 + i, 0),
                     0);
  }
  pb_plot_write(plot, prefix, 4, msg, sizeof msg);
  snprintf(script, sizeof script, "%s.gp", prefix);
  f = fopen(script, "r");
  assert_non_null(f);
  n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  assert_non_null(strstr(text, "using 1:2:5:6 with yerrorlines"));
  assert_non_null(strstr(text, "using 1:3 with linespoints"));
  assert_non_null(strstr(text, "set key outside right top"));
  assert_non_null(strstr(text, "set linetype 1 lc rgb '#0072b2'"));
  /* binomial at 2 ms: median 3, CI 2.9..3.2 (ms) */
  assert_non_null(strstr(text, "\n2 3 1 0 2.9 3.2\n"));
  /* pattern odd starts from the balanced point; single has its own 0 */
  assert_non_null(strstr(text, "EOD\n0 0.5 1 0 0.4 0.6\n1 2 1 0 1.5 2.5\n"));
  assert_null(strstr(text, "0 0.5 1 0 0.4 0.6\n0 1 1 0"));
  remove(script);
  for (int k = 0; k < 6; k++) { /* the figures, if gnuplot drew them */
    char fig[96];
    for (int g = 0; g < 2; g++) {
      snprintf(fig, sizeof fig, "%s-8B-%s-%s.%s", prefix, g ? "odd" : "single",
               k / 2 == 0   ? "runtime"
               : k / 2 == 1 ? "speedup"
                            : "absorption",
               k % 2 ? "svg" : "png");
      remove(fig);
    }
  }
  remove(prefix);
  pb_plot_free(plot);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(user_text_is_escaped),
      cmocka_unit_test(figures_show_the_ci),
      cmocka_unit_test(times_parse_with_units),
      cmocka_unit_test(patterns_parse_and_reject),
      cmocka_unit_test(fixed_patterns_delay_the_right_ranks),
      cmocka_unit_test(distributions_have_their_moments),
      cmocka_unit_test(traces_parse_and_reject_with_line_numbers),
      cmocka_unit_test(summaries_are_right),
      cmocka_unit_test(permutation_test_separates),
      cmocka_unit_test(options_defaults_and_values),
      cmocka_unit_test(options_reject_bad_values),
      cmocka_unit_test(options_charged_op_and_shared_buffers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
