/*
 * patbuildspeed: how long the clairvoyant builder takes (no MPI run).
 * For each P: random arrival times, median of repeated builds of one
 * rank's program (what a call does) and of every rank's program.
 *
 * usage: patbuildspeed [P...]   (default 128 1024 16384 1048576)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "reduce/pat_schedule.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median seconds of reps builds of rank's program (rank -1: all). */
static double time_build(const pat_sched_params *p, int rank, int reps) {
  double *t = malloc((size_t)reps * sizeof *t), med;
  for (int i = 0; i < reps; i++) {
    pat_schedule *s = NULL;
    double t0 = now();
    if (pat_schedule_build(PAT_REDUCE_ALG_CLAIRVOYANT, p, rank, &s) !=
        PAT_SUCCESS) {
      fprintf(stderr, "patbuildspeed: build failed at P=%d\n", p->nranks);
      exit(1);
    }
    t[i] = now() - t0;
    pat_schedule_free(s);
  }
  gsl_sort(t, 1, (size_t)reps);
  med = gsl_stats_median_from_sorted_data(t, 1, (size_t)reps);
  free(t);
  return med;
}

int main(int argc, char **argv) {
  int defaults[] = {128, 1024, 16384, 1048576};
  int n = argc > 1 ? argc - 1 : 4;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  printf("%10s %10s %16s %16s\n", "P", "commute", "one rank (s)",
         "all ranks (s)");
  for (int k = 0; k < n; k++) {
    int P = argc > 1 ? atoi(argv[k + 1]) : defaults[k];
    double *a = malloc((size_t)P * sizeof *a);
    int reps = P <= 1024 ? 2001 : P <= 16384 ? 51 : 5;
    for (int i = 0; i < P; i++)
      a[i] = gsl_rng_uniform(rng) * 1e-3;
    for (int comm = 1; comm >= 0; comm--) {
      pat_sched_params p = {.nranks = P,
                            .root = 0,
                            .count = 1,
                            .commutative = comm,
                            .arrivals = a,
                            .model = {5e-6, 0, 0}};
      printf("%10d %10s %16.3g %16.3g\n", P, comm ? "yes" : "no",
             time_build(&p, P / 2, reps), time_build(&p, -1, reps));
    }
    free(a);
  }
  gsl_rng_free(rng);
  return 0;
}
