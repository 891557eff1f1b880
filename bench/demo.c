/*
 * patdemo: time-to-solution of a reduction when one rank arrives late.
 *
 * Every repetition: barrier, the delayed rank sleeps DELAY, every rank
 * stamps its arrival, reduces, stamps its exit.  Time-to-solution is
 * max(exit) - min(arrival) over ranks; the demo prints its median over the
 * repetitions (GSL) for each algorithm of the table, and for the clairvoyant
 * algorithm told the true arrival times (the "oracle"), interleaving the
 * algorithms per repetition so that machine noise hits all alike.  Stamps
 * are MPI_Wtime corrected by each rank's offset to rank 0 (Open MPI's
 * MPI_Wtime counts from each process's MPI_Init, so even on one machine
 * raw stamps disagree by up to tens of milliseconds).
 *
 * usage: patdemo [delay_ms=2] [reps=30] [count=1024] [delayed_rank=P-1]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <mpi.h>

#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"

/* The table's algorithms, then the oracle. */
enum { ORACLE = PAT_REDUCE_ALG_COUNT, NALGS };

static const char *name(int a) {
  return a == ORACLE ? "oracle" : pat_reduce_algorithm_name((pat_reduce_alg)a);
}

static void sleep_seconds(double s) {
  struct timespec ts = {.tv_sec = (time_t)s,
                        .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

int main(int argc, char **argv) {
  int rank, size, rc = 0;
  double delay_ms = argc > 1 ? atof(argv[1]) : 2.0;
  int reps = argc > 2 ? atoi(argv[2]) : 30;
  int count = argc > 3 ? atoi(argv[3]) : 1024;
  int late;
  double *send = NULL, *recv = NULL, *tts = NULL, *arrivals = NULL;
  double offset = 0; /* add to MPI_Wtime() for rank 0's clock */

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  late = argc > 4 ? atoi(argv[4]) : size - 1;
  if (pat_clock_estimate_offset(MPI_COMM_WORLD, 20, &offset, NULL) !=
      MPI_SUCCESS)
    rc = 1;
  if (reps < 2 || count < 1 || delay_ms < 0 || late < 0 || late >= size) {
    if (rank == 0)
      fprintf(stderr,
              "usage: patdemo [delay_ms>=0] [reps>=2] [count>=1] "
              "[delayed_rank in 0..%d]\n",
              size - 1);
    MPI_Finalize();
    return 2;
  }
  send = malloc((size_t)count * sizeof *send);
  recv = malloc((size_t)count * sizeof *recv);
  tts = malloc((size_t)reps * NALGS * sizeof *tts);
  arrivals = calloc((size_t)size, sizeof *arrivals);
  arrivals[late] = delay_ms * 1e-3; /* what the oracle is told */
  for (int i = 0; i < count; i++)
    send[i] = rank + i;

  /* warm-up: the clairvoyant calls measure the round cost the oracle uses */
  for (int w = 0; w < 5; w++)
    for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
      if (pat_reduce_using((pat_reduce_alg)a, send, recv, count, MPI_DOUBLE,
                           MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = 1;
  for (int r = 0; r < reps; r++) {
    for (int a = 0; a < NALGS; a++) {
      double t[2], arrive, leave;
      int rc_call;
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == late)
        sleep_seconds(delay_ms * 1e-3);
      arrive = MPI_Wtime() + offset;
      /* the oracle's round cost (0): the library's measured one */
      rc_call = a == ORACLE
                    ? pat_reduce_with_arrivals(PAT_REDUCE_ALG_CLAIRVOYANT, send,
                                               recv, count, MPI_DOUBLE, MPI_SUM,
                                               0, MPI_COMM_WORLD, arrivals, 0)
                    : pat_reduce_using((pat_reduce_alg)a, send, recv, count,
                                       MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rc_call != MPI_SUCCESS)
        rc = 1;
      leave = MPI_Wtime() + offset;
      t[0] = -arrive;
      t[1] = leave;
      MPI_Reduce(rank == 0 ? MPI_IN_PLACE : t, t, 2, MPI_DOUBLE, MPI_MAX, 0,
                 MPI_COMM_WORLD);
      if (rank == 0) {
        double want = (double)size * (size - 1) / 2.0;
        if (recv[0] != want) {
          fprintf(stderr, "patdemo: %s gave %g, want %g\n", name(a), recv[0],
                  want);
          rc = 1;
        }
        tts[a * reps + r] = t[1] + t[0];
      }
    }
  }
  if (rank == 0) {
    printf("patdemo: P=%d, %d doubles, rank %d delayed %.3f ms, %d reps "
           "(first dropped)\n",
           size, count, late, delay_ms, reps);
    printf("%-12s %14s %14s %14s %18s\n", "algorithm", "median tts ms",
           "min tts ms", "median-delay ms", "speedup vs binomial");
    for (int a = 0; a < NALGS; a++) {
      double *x = tts + a * reps + 1; /* drop the first repetition */
      gsl_sort(x, 1, (size_t)reps - 1);
    }
    for (int a = 0; a < NALGS; a++) {
      double *x = tts + a * reps + 1;
      double med = gsl_stats_median_from_sorted_data(x, 1, (size_t)reps - 1);
      double ref = gsl_stats_median_from_sorted_data(
          tts + PAT_REDUCE_ALG_BINOMIAL * reps + 1, 1, (size_t)reps - 1);
      printf("%-12s %14.3f %14.3f %14.3f %18.2f\n", name(a), med * 1e3,
             x[0] * 1e3, med * 1e3 - delay_ms, ref / med);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  free(send);
  free(recv);
  free(tts);
  free(arrivals);
  MPI_Finalize();
  return rc;
}
