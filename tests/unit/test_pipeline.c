/* Unit tests (no MPI run): the pipeline algorithm (src/pipeline/).  Its
 * schedules validate for every P in 1..257, root, op kind, in-place use,
 * segment count and count; the byte-model simulation reproduces the cost
 * formula of the file header; the automatic segment count is the
 * simulated optimum; PAT_REDUCE_SEGMENTS is parsed and honoured. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/pat_internal.h"
#include "pipeline/pipeline.h"

/* combines slower than transfers: t < c for large segments */
static const pat_model SLOW_COMBINE = {1e-6, 2e-10, 1e-9};
/* a constant cost per message */
static const pat_model ALPHA_ONLY = {5e-6, 0, 0};

static pat_sched_params params(int P, int root, int count, int commutative,
                               int in_place, pat_model model) {
  return (pat_sched_params){.nranks = P,
                            .root = root,
                            .count = count,
                            .commutative = commutative,
                            .in_place = in_place,
                            .model = model,
                            .elem_size = 8};
}

/* Every rank's program for nseg segments. */
static pat_schedule *build(const pat_sched_params *p, int nseg) {
  pat_schedule *s = NULL;
  assert_int_equal(pat_schedule_alloc(p, &s), PAT_SUCCESS);
  assert_int_equal(pat_pipeline_build_segments(p, nseg, -1, s), PAT_SUCCESS);
  for (int r = 0; r < p->nranks; r++)
    assert_int_equal(pat_schedule_mark_built(s, r), PAT_SUCCESS);
  return s;
}

/* The simulated completion of the nseg-segment schedule under arrivals
 * (NULL: all 0). */
static double simulate_at(const pat_sched_params *p, int nseg,
                          const double *arrivals) {
  pat_schedule *s = build(p, nseg);
  double t = -1;
  assert_int_equal(pat_schedule_simulate(s, arrivals, NULL, &t), PAT_SUCCESS);
  pat_schedule_free(s);
  return t;
}

static double simulate(const pat_sched_params *p, int nseg) {
  return simulate_at(p, nseg, NULL);
}

/* Each operation lies inside one segment of min(nseg, count). */
static void check_segments(const pat_schedule *s, int nseg) {
  const pat_sched_params *p = pat_schedule_params(s);
  int n = nseg < p->count ? nseg : p->count;
  for (int r = 0; r < p->nranks; r++)
    for (int i = 0; i < pat_schedule_nops(s, r); i++) {
      const pat_sched_op *o = &pat_schedule_ops(s, r)[i];
      int seg = 0;
      while (seg + 1 < n && (long long)(seg + 1) * p->count / n <= o->offset)
        seg++;
      assert_int_equal(o->offset, (long long)seg * p->count / n);
      assert_int_equal(o->offset + o->count,
                       (long long)(seg + 1) * p->count / n);
    }
}

/* (segments, count) pairs: one segment, even and uneven cuts, more
 * segments than elements, count 0 and 1. */
static const int cases[][2] = {{1, 1},  {2, 6}, {3, 10},
                               {7, 23}, {9, 4}, {3, 0}};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static void check_valid(int P, int root, int comm, int in_place, int c) {
  char why[256];
  pat_sched_params p =
      params(P, root, cases[c][1], comm, in_place, (pat_model){0, 0, 0});
  pat_schedule *s = build(&p, cases[c][0]);
  if (pat_schedule_validate_tree(s, why, sizeof why) != PAT_SUCCESS)
    fail_msg("P=%d root=%d commutative=%d in_place=%d N=%d count=%d: %s", P,
             root, comm, in_place, cases[c][0], cases[c][1], why);
  check_segments(s, cases[c][0]);
  if (p.count == 0)
    for (int r = 0; r < P; r++)
      assert_int_equal(pat_schedule_nops(s, r), 0);
  pat_schedule_free(s);
}

/* Every P in 1..257, both op kinds, in place or not, every (N, count)
 * case.  Every root up to P = 40; above, where one P's full root sweep
 * costs seconds, the roots 0, 1, P/2 - 1, P/2, P - 2, P - 1 and one that
 * moves with P (each split of a non-commutative chain has the same shape
 * up to the lengths of its two sides, which these vary). */
static void schedules_are_valid(void **state) {
  (void)state;
  for (int P = 1; P <= 257; P++) {
    int sample[7] = {0, 1, P / 2 - 1, P / 2, P - 2, P - 1, (P * 37 + 11) % P};
    int nroots = P <= 40 ? P : 7;
    for (int k = 0; k < nroots; k++) {
      int root = P <= 40 ? k : sample[k];
      if (root < 0 || root >= P)
        continue;
      for (int comm = 0; comm < 2; comm++)
        for (int c = 0; c < NCASES; c++)
          check_valid(P, root, comm, (P + root + c) % 2, c);
    }
  }
  /* in place and not for one of each shape at every case */
  for (int in_place = 0; in_place < 2; in_place++)
    for (int c = 0; c < NCASES; c++) {
      check_valid(6, 0, 0, in_place, c);
      check_valid(6, 5, 0, in_place, c);
      check_valid(6, 2, 0, in_place, c);
      check_valid(6, 4, 1, in_place, c);
    }
}

/* The chain: P - 2 + N rounds, each rank sends each segment once, the
 * root receives each once, and one temporary at most per rank (two on the
 * left side of a non-commutative chain, whose own segment is copied). */
static void chain_shape(void **state) {
  (void)state;
  for (int comm = 0; comm < 2; comm++) {
    pat_sched_params p = params(9, comm ? 4 : 0, 70, comm, 0, pat_model_curie);
    pat_schedule *s = build(&p, 7);
    int last = 0;
    for (int r = 0; r < p.nranks; r++) {
      int sends = 0, recvs = 0;
      for (int i = 0; i < pat_schedule_nops(s, r); i++) {
        sends += pat_schedule_ops(s, r)[i].kind == PAT_SCHED_SEND;
        recvs += pat_schedule_ops(s, r)[i].kind == PAT_SCHED_RECV;
      }
      assert_int_equal(sends, r == p.root ? 0 : 7);
      assert_int_equal(recvs, (r - p.root + 9) % 9 == 8 ? 0 : 7);
      assert_true(pat_schedule_ntmp(s, r) <= 1);
      if (pat_schedule_nrounds(s, r) > last)
        last = pat_schedule_nrounds(s, r);
    }
    assert_int_equal(last, 9 - 2 + 7);
    pat_schedule_free(s);
  }
}

/* (P - 1)(t + c) + (N - 1) max(t, c), exactly, when N divides count:
 * commutative at any root, non-commutative at root 0 and P - 1; with
 * t > c, t < c, t = c and beta = gamma = 0. */
static void simulation_matches_the_formula(void **state) {
  const pat_model models[] = {pat_model_curie,
                              SLOW_COMBINE,
                              ALPHA_ONLY,
                              /* t = c at N = 4, count 8000 */
                              {2e-6, 1e-10, 1e-10 + 2e-6 / 16000}};
  const int Ps[] = {2, 3, 4, 5, 8, 13, 16, 33, 64};
  const int Ns[] = {1, 2, 4, 5, 16, 40};
  const int counts[] = {80, 8000, 131072 * 5};
  (void)state;
  for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++)
    for (size_t pi = 0; pi < sizeof Ps / sizeof Ps[0]; pi++)
      for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
          for (int shape = 0; shape < 3; shape++) {
            int P = Ps[pi], N = Ns[ni];
            pat_sched_params p = params(P,
                                        shape == 0   ? P / 3
                                        : shape == 1 ? 0
                                                     : P - 1,
                                        counts[ci] - counts[ci] % N, shape == 0,
                                        shape & 1, models[mi]);
            double b = (double)p.count * 8 / N,
                   t = models[mi].alpha + b * models[mi].beta,
                   c = b * models[mi].gamma;
            double want = (P - 1) * (t + c) + (N - 1) * (t > c ? t : c);
            double got = simulate(&p, N);
            if (fabs(got - want) > 1e-9 * want)
              fail_msg("P=%d root=%d commutative=%d N=%d count=%d: simulated "
                       "%.12g s, formula %.12g s",
                       P, p.root, p.commutative, N, p.count, got, want);
            assert_true(fabs(pat_pipeline_estimate(&p, NULL, N) - want) <=
                        1e-12 * want);
          }
}

/* Non-commutative op, root inside: the simulation takes 0.58 to 1.34
 * times the header's estimate (P <= 20, N <= 64, two models). */
static void split_estimate_is_close(void **state) {
  const pat_model models[] = {pat_model_curie, SLOW_COMBINE};
  double lo = 1e9, hi = 0;
  (void)state;
  for (int mi = 0; mi < 2; mi++)
    for (int P = 3; P <= 20; P++)
      for (int root = 1; root < P - 1; root++)
        for (int N = 1; N <= 64; N *= 2) {
          pat_sched_params p = params(P, root, 64 * 125, 0, 0, models[mi]);
          double r = simulate(&p, N) / pat_pipeline_estimate(&p, NULL, N);
          lo = r < lo ? r : lo;
          hi = r > hi ? r : hi;
        }
  print_message("split root: simulated / estimate in [%.3f, %.3f]\n", lo, hi);
  assert_true(lo >= 0.57 && hi <= 1.35);
}

/* One rank late by d (the others at 0): the simulated time under those
 * arrivals, the header's "Arrivals" estimate and the old one (the
 * balanced estimate plus the spread). */
static void one_late(const pat_sched_params *p0, int nseg, int late, double d,
                     double *sim, double *est, double *old) {
  double *arr = calloc((size_t)p0->nranks, sizeof *arr);
  pat_sched_params p = *p0;
  assert_non_null(arr);
  arr[late] = d;
  p.arrivals = arr;
  *sim = simulate_at(&p, nseg, arr);
  *est = pat_pipeline_estimate_arrivals(&p, NULL, nseg);
  *old = pat_pipeline_estimate(&p, NULL, nseg) + d;
  free(arr);
}

/* The estimate under arrivals equals the simulation wherever the late
 * rank sits on a chain (every rank late by 0.25 to 2 balanced times; the
 * split chains stay in their balanced range), is never below the
 * balanced estimate nor above it plus the spread, equals the balanced
 * one for equal arrivals, and the old estimate (balanced plus spread) was
 * far off where the late rank is near the root. */
static void estimate_under_arrivals(void **state) {
  const pat_model models[] = {pat_model_curie, SLOW_COMBINE};
  const int Ps[] = {2, 3, 5, 8, 13, 33};
  const int Ns[] = {1, 4, 16};
  const double ds[] = {0.25, 1, 2};
  double lo = 1e9, hi = 0, worst_old = 0, split_lo = 1e9, split_hi = 0;
  (void)state;
  for (int mi = 0; mi < 2; mi++)
    for (size_t pi = 0; pi < sizeof Ps / sizeof Ps[0]; pi++)
      for (size_t ni = 0; ni < sizeof Ns / sizeof Ns[0]; ni++)
        for (int shape = 0; shape < 4; shape++) {
          int P = Ps[pi], N = Ns[ni];
          pat_sched_params p =
              params(P,
                     shape == 0   ? P / 3
                     : shape == 1 ? 0
                     : shape == 2 ? P - 1
                                  : P / 2,
                     8000 - 8000 % N, shape == 0, 0, models[mi]);
          double bal = pat_pipeline_estimate(&p, NULL, N);
          double *zero = calloc((size_t)P, sizeof *zero);
          assert_non_null(zero);
          p.arrivals = zero;
          assert_true(pat_pipeline_estimate_arrivals(&p, NULL, N) == bal);
          free(zero);
          p.arrivals = NULL;
          for (int late = 0; late < P; late++)
            for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
              double sim, est, old, d = ds[di] * bal;
              one_late(&p, N, late, d, &sim, &est, &old);
              assert_true(est >= bal && est <= old * (1 + 1e-12));
              if (shape == 3 && P > 2) { /* split: as loose as balanced */
                split_lo = fmin(split_lo, sim / est);
                split_hi = fmax(split_hi, sim / est);
                continue;
              }
              lo = fmin(lo, sim / est);
              hi = fmax(hi, sim / est);
              worst_old = fmax(worst_old, old / sim);
            }
        }
  print_message("one rank late: simulated / estimate in [%.3f, %.3f] "
                "(split chains [%.3f, %.3f]); the old estimate up to %.2f x "
                "the simulation\n",
                lo, hi, split_lo, split_hi, worst_old);
  assert_true(lo >= 1 - 1e-9 && hi <= 1 + 1e-9);
  assert_true(split_lo >= 0.57 && split_hi <= 1.35);
  assert_true(worst_old > 1.5);
}

/* Random arrivals of every rank (none at 0, up to 2 balanced times
 * apart): on the chain shapes each port carries one stream, so the
 * estimate stays within 0.1% of the simulation (measured: 1.1e-4; the
 * order in which a late rank's backlog and its own segments meet moves
 * a few nanoseconds). */
static void estimate_under_random_arrivals(void **state) {
  unsigned long long x = 12345;
  double worst = 0;
  (void)state;
  for (int trial = 0; trial < 300; trial++) {
    int P = 2 + (int)((x = x * 6364136223846793005ull + 1) >> 33) % 30;
    int shape = (int)((x = x * 6364136223846793005ull + 1) >> 33) % 3;
    int N = 1 + (int)((x = x * 6364136223846793005ull + 1) >> 33) % 16;
    pat_sched_params p =
        params(P,
               shape == 0   ? P / 3
               : shape == 1 ? 0
                            : P - 1,
               8000, shape == 0, 0, trial % 2 ? SLOW_COMBINE : pat_model_curie);
    double bal = pat_pipeline_estimate(&p, NULL, N), sim, est;
    double *arr = malloc((size_t)P * sizeof *arr);
    assert_non_null(arr);
    for (int r = 0; r < P; r++)
      arr[r] = 1e-3 + 2 * bal *
                          (double)((x = x * 6364136223846793005ull + 1) >> 11) /
                          9007199254740992.0;
    p.arrivals = arr;
    sim = simulate_at(&p, N, arr);
    est = pat_pipeline_estimate_arrivals(&p, NULL, N) +
          pat_sched_first_arrival(&p);
    worst = fmax(worst, fabs(sim - est) / sim);
    if (fabs(sim - est) > 1e-3 * sim)
      fail_msg("P=%d shape=%d N=%d: simulated %.12g s, estimate %.12g s", P,
               shape, N, sim, est);
    free(arr);
  }
  print_message("random arrivals: |simulated - estimate| / simulated <= %.2g\n",
                worst);
}

/* The automatic N is the simulated optimum over 1..2 N* (within 1%; the
 * segments of an uneven cut differ by one element) for the chain shapes.
 * Every N up to 64, then N* - 3 .. N* + 3 and multiples of N* from 0.5 to
 * 2 (the simulated time is unimodal in N like the formula).  The split
 * shape is left out: its formula is an estimate (see the header). */
static void automatic_segments_are_optimal(void **state) {
  const pat_model models[] = {pat_model_curie, SLOW_COMBINE, ALPHA_ONLY};
  const int Ps[] = {2, 3, 5, 8, 16, 33};
  const int counts[] = {1, 100, 4096, 131072, 300007};
  const double near[] = {0.5, 0.7, 0.8, 0.9, 0.95, 1.05, 1.1, 1.2, 1.5, 2};
  (void)state;
  for (int mi = 0; mi < 3; mi++)
    for (int pi = 0; pi < 6; pi++)
      for (int ci = 0; ci < 5; ci++)
        for (int shape = 0; shape < 2; shape++) {
          int P = Ps[pi], cand[64 + 7 + 10], nc = 0;
          pat_sched_params p = params(P, shape ? P - 1 : P / 2, counts[ci],
                                      !shape, 0, models[mi]);
          int n = pat_pipeline_segments(&p, 0), best_n = n;
          double tn = simulate(&p, n), best = tn;
          for (int N = 1; N <= 64; N++)
            cand[nc++] = N;
          for (int d = -3; d <= 3; d++)
            cand[nc++] = n + d;
          for (int k = 0; k < 10; k++)
            cand[nc++] = (int)lround(n * near[k]);
          for (int k = 0; k < nc; k++) {
            double t;
            if (cand[k] < 1 || cand[k] > 2 * n || cand[k] > p.count)
              continue;
            t = simulate(&p, cand[k]);
            if (t < best) {
              best = t;
              best_n = cand[k];
            }
          }
          if (tn > 1.01 * best)
            fail_msg("P=%d count=%d model %d: automatic N=%d takes %.9g s, "
                     "N=%d %.9g s",
                     P, p.count, mi, n, tn, best_n, best);
          assert_true(n >= 1 && n <= p.count);
        }
}

/* Clamps and defaults of the automatic choice. */
static void automatic_segments_clamped(void **state) {
  pat_sched_params p = params(8, 0, 131072, 1, 0, pat_model_curie);
  pat_sched_params none = p, ref = p;
  (void)state;
  none.model = (pat_model){0, 0, 0};
  ref.model = pat_model_curie;
  /* no model: the reference one */
  assert_int_equal(pat_pipeline_segments(&none, 0),
                   pat_pipeline_segments(&ref, 0));
  assert_true(pat_pipeline_segments(&none, 0) > 1);
  /* gamma < beta: N* = sqrt(((P-2) beta + (P-1) gamma) m / alpha) */
  {
    const pat_model *c = &pat_model_curie;
    double opt = sqrt((6 * c->beta + 7 * c->gamma) * 131072 * 8 / c->alpha);
    int n = pat_pipeline_segments(&p, 0);
    assert_true(n == (int)floor(opt) || n == (int)ceil(opt));
  }
  /* a constant cost per message: one segment */
  p.model = ALPHA_ONLY;
  assert_int_equal(pat_pipeline_segments(&p, 0), 1);
  /* no alpha: as many as allowed */
  p.model = (pat_model){0, 1e-9, 1e-9};
  assert_int_equal(pat_pipeline_segments(&p, 0), PAT_MAX_SEGMENTS);
  p.count = 100;
  assert_int_equal(pat_pipeline_segments(&p, 0), 100);
  /* count 0: none; configured: clamped to count; P = 1: one */
  p.count = 0;
  assert_int_equal(pat_pipeline_segments(&p, 0), 0);
  assert_int_equal(pat_pipeline_segments(&p, 5), 0);
  p.count = 4;
  assert_int_equal(pat_pipeline_segments(&p, 9), 4);
  assert_int_equal(pat_pipeline_segments(&p, 3), 3);
  p.nranks = 1;
  p.model = pat_model_curie;
  assert_int_equal(pat_pipeline_segments(&p, 0), 1);
  /* a bad model is no model */
  none.model = (pat_model){NAN, 1, 1};
  assert_int_equal(pat_pipeline_segments(&none, 0),
                   pat_pipeline_segments(&ref, 0));
}

/* ---- PAT_REDUCE_SEGMENTS ----------------------------------------------- */

static const char *segments_value;

static const char *fake_getenv(const char *name) {
  return strcmp(name, "PAT_REDUCE_SEGMENTS") == 0 ? segments_value : NULL;
}

static int parsed_segments(const pat_config *cfg) { return cfg->segments; }

static void segments_variable_parsed(void **state) {
  pat_config cfg;
  const char *good[][2] = {{NULL, "0"}, {"", "0"},    {"0", "0"},
                           {"1", "1"},  {"16", "16"}, {"16384", "16384"}};
  const char *bad[] = {"-1",    "abc", "1.5",
                       " 3",    "+4",  "3x",
                       "16385", "1e3", "99999999999999999999"};
  (void)state;
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    segments_value = good[i][0];
    pat_config_parse(&cfg, fake_getenv);
    assert_int_equal(cfg.error, PAT_SUCCESS);
    assert_int_equal(parsed_segments(&cfg), atoi(good[i][1]));
  }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char want[128];
    segments_value = bad[i];
    pat_config_parse(&cfg, fake_getenv);
    assert_int_equal(cfg.error, PAT_ERR_BAD_ENV);
    snprintf(want, sizeof want,
             "PAT_REDUCE_SEGMENTS=%s is not a segment count; valid: 0 "
             "(automatic) or 1..%d",
             bad[i], PAT_MAX_SEGMENTS);
    assert_string_equal(cfg.why, want);
  }
  segments_value = NULL;
}

/* The table's builder reads the configured N (and every rank's own build
 * equals its program in the whole schedule). */
static void builder_uses_configured_segments(void **state) {
  pat_sched_params p = params(5, 2, 1000, 0, 1, pat_model_curie);
  pat_schedule *all = NULL, *one = NULL;
  (void)state;
  assert_int_equal(setenv("PAT_REDUCE_SEGMENTS", "6", 1), 0);
  pat_reduce_config_reload();
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_PIPELINE, &p, -1, &all),
                   PAT_SUCCESS);
  assert_int_equal(pat_schedule_validate_tree(all, NULL, 0), PAT_SUCCESS);
  for (int r = 0; r < p.nranks; r++) {
    int sends = 0;
    for (int i = 0; i < pat_schedule_nops(all, r); i++)
      sends += pat_schedule_ops(all, r)[i].kind == PAT_SCHED_SEND;
    assert_int_equal(sends, r == p.root ? 0 : 6);
    assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_PIPELINE, &p, r, &one),
                     PAT_SUCCESS);
    assert_int_equal(pat_schedule_nops(one, r), pat_schedule_nops(all, r));
    assert_memory_equal(pat_schedule_ops(one, r), pat_schedule_ops(all, r),
                        (size_t)pat_schedule_nops(all, r) *
                            sizeof(pat_sched_op));
    pat_schedule_free(one);
  }
  pat_schedule_free(all);
  assert_int_equal(unsetenv("PAT_REDUCE_SEGMENTS"), 0);
  pat_reduce_config_reload();
}

/* test_pipeline [pattern]: only the tests whose names match. */
int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(schedules_are_valid),
      cmocka_unit_test(chain_shape),
      cmocka_unit_test(simulation_matches_the_formula),
      cmocka_unit_test(split_estimate_is_close),
      cmocka_unit_test(estimate_under_arrivals),
      cmocka_unit_test(estimate_under_random_arrivals),
      cmocka_unit_test(automatic_segments_are_optimal),
      cmocka_unit_test(automatic_segments_clamped),
      cmocka_unit_test(segments_variable_parsed),
      cmocka_unit_test(builder_uses_configured_segments),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
