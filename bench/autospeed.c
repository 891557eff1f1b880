/*
 * patautospeed: what auto's decision costs (no MPI run).  For P and a
 * message size, the median time of pat_auto_decide when its inputs change
 * every call (a new predicted pattern: small jitter, one rank late by a
 * few rounds) and when they repeat (the cached choice), against the
 * modeled time of the reduction it picks (the byte model of the CURIE-like
 * platform); "plan" is what the clairvoyant builder alone takes for the
 * same inputs (when auto picks clairvoyant, the call runs the plan auto
 * made: the builder's cost, not auto's), "scored" the decision when the
 * previous call's real arrivals come in too (its plan replayed).  Two
 * patterns: jitter of a tenth of a round, and the last rank three rounds
 * late on top.  The goal (issue 14): at most 2% of a 64 KiB reduction at
 * P = 128 when the inputs change, nothing when they repeat.
 *
 * "added" is auto's own share: scored, less the plan when it picks
 * clairvoyant, over the modeled time.
 *
 * usage: patautospeed [P...]   (default 128 1024)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "auto/auto.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double median(double *t, int n) {
  gsl_sort(t, 1, (size_t)n);
  return gsl_stats_median_from_sorted_data(t, 1, (size_t)n);
}

int main(int argc, char **argv) {
  int defaults[] = {128, 1024};
  int n = argc > 1 ? argc - 1 : 2, reps = 201;
  static const int counts[] = {1, 8192, 131072}; /* 8 B, 64 KiB, 1 MiB */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  double *t = malloc((size_t)reps * sizeof *t);
  printf("%6s %5s %9s %12s %11s %11s %11s %11s %11s %8s\n", "P", "late",
         "bytes", "picked", "modeled", "changed", "plan", "scored", "cached",
         "added");
  for (int k = 0; k < n; k++) {
    int P = argc > 1 ? atoi(argv[k + 1]) : defaults[k];
    double *a = malloc((size_t)P * sizeof *a);
    for (int late = 0; late < 2; late++)
      for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        pat_sched_params p = {.nranks = P,
                              .root = 0,
                              .count = counts[c],
                              .commutative = 1,
                              .model = pat_model_curie,
                              .elem_size = 8,
                              .arrivals = a};
        pat_call_props props = {
            .commutative = 1, .contiguous = 1, .count = counts[c]};
        pat_auto *au = pat_auto_alloc(P);
        double d = pat_sched_round_cost(&p), changed, cached, modeled, plan;
        double scored;
        pat_reduce_alg pick = PAT_REDUCE_ALG_BINOMIAL;
        int sw;
        for (int i = 0; i < reps; i++) {
          double t0;
          for (int r = 0; r < P; r++) /* jitter, and the last rank late */
            a[r] = gsl_rng_uniform(rng) * 0.1 * d + (r == P - 1) * 3 * d * late;
          t0 = now();
          pick = pat_auto_decide(au, &p, &props, i, NULL, -1, &sw);
          t[i] = now() - t0;
        }
        changed = median(t, reps);
        for (int i = 0; i < reps; i++) {
          double t0 = now();
          pat_alg_table[PAT_REDUCE_ALG_CLAIRVOYANT]->estimate(&p);
          t[i] = now() - t0;
        }
        plan = median(t, reps);
        for (int i = 0; i < reps; i++) {
          double t0;
          for (int r = 0; r < P; r++)
            a[r] = gsl_rng_uniform(rng) * 0.1 * d + (r == P - 1) * 3 * d * late;
          t0 = now();
          pick =
              pat_auto_decide(au, &p, &props, reps + i, a, reps + i - 1, &sw);
          t[i] = now() - t0;
        }
        scored = median(t, reps);
        for (int i = 0; i < reps; i++) {
          double t0 = now();
          pick = pat_auto_decide(au, &p, &props, -1, NULL, -1, &sw);
          t[i] = now() - t0;
        }
        cached = median(t, reps);
        modeled = pat_alg_table[pick]->estimate(&p);
        printf(
            "%6d %5d %9.0f %12s %11.3g %11.3g %11.3g %11.3g %11.3g %7.2f%%\n",
            P, late, counts[c] * 8.0, pat_alg_table[pick]->name, modeled,
            changed, plan, scored, cached,
            100 * (scored - (pick == PAT_REDUCE_ALG_CLAIRVOYANT ? plan : 0)) /
                modeled);
        pat_auto_free(au);
      }
    free(a);
  }
  free(t);
  gsl_rng_free(rng);
  return 0;
}
