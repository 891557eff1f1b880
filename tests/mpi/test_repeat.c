/* MPI test (any P, run at 4 and 5): calls that repeat the last call
 * skip the checks and the choice (src/core/dispatch.c, "repeats").
 *
 * Checks that repeats are served as repeats (the count grows by one per
 * repeated call) and stay right while the data changes, for a scheduled
 * row and a dynamic one, in place and not, and with the root moving every
 * call; that a repeat runs its own row's schedule after another call on
 * the communicator has put a different one first in the schedule cache
 * (the epoch), also when that one took the cache's only entry; that a
 * configuration reload reaches schedules (a cached schedule of the old segment
 * count is not reused); that a communicator or a user datatype freed and
 * created again under the same handle is never served from the memory of the
 * old one (user datatypes and ops are never remembered); and that a bad
 * argument after a repeat is still an error.  Calls with a PAT layer
 * (auto, clairvoyant) repeat too, their arrival, prediction and pick
 * made again: right, the same row on every rank, binomial chosen by auto
 * prepared between exchanges; and a rank whose calls never repeat (its
 * buffers alternate) runs what the repeating ones run, while the PAT
 * layer refits its model (pipeline's segments follow the model).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/pat_internal.h"

#define COUNT 7

static int rank, size, failures;

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "rank %d: FAILED: %s\n", rank, what);
    failures++;
  }
}

/* Rank r's element k in call i. */
static double value(int r, int i, int k) { return r * 100.0 + i + k * 0.5; }

/* One call of alg on comm with call i's data; checks the root's result. */
static void one_call(pat_reduce_alg alg, MPI_Comm comm, int root, int in_place,
                     int i, double *send, double *recv, const char *what) {
  int r, P, rc;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &P);
  for (int k = 0; k < COUNT; k++) {
    send[k] = value(r, i, k);
    recv[k] = r == root && in_place ? send[k] : -1;
  }
  rc = pat_reduce_using(alg, r == root && in_place ? MPI_IN_PLACE : send, recv,
                        COUNT, MPI_DOUBLE, MPI_SUM, root, comm);
  check(rc == MPI_SUCCESS, what);
  if (r == root)
    for (int k = 0; k < COUNT; k++) {
      double want = 0;
      for (int q = 0; q < P; q++)
        want += value(q, i, k);
      check(recv[k] == want, what);
    }
}

/* 30 calls with the same arguments: 29 repeats, all right; from the third
 * on binomial (a program that runs in order) runs prepared. */
static void same_arguments(pat_reduce_alg alg, int in_place) {
  static double send[COUNT], recv[COUNT];
  char what[128];
  unsigned long before = pat_dispatch_repeats(0),
                prepared = pat_dispatch_repeats(1);
  snprintf(what, sizeof what, "%s, same arguments%s",
           pat_reduce_algorithm_name(alg), in_place ? ", in place" : "");
  for (int i = 0; i < 30; i++)
    one_call(alg, MPI_COMM_WORLD, size - 1, in_place, i, send, recv, what);
  check(pat_dispatch_repeats(0) - before == 29, what);
  check(alg != PAT_REDUCE_ALG_BINOMIAL ||
            pat_dispatch_repeats(1) - prepared == 28,
        what);
}

/* 30 calls with the root moving every call (IMB's loop): 29 repeats
 * unless in place (the root's sendbuf differs from the others'), all
 * right. */
static void rotating_root(pat_reduce_alg alg, int in_place) {
  static double send[COUNT], recv[COUNT];
  char what[128];
  unsigned long before = pat_dispatch_repeats(0);
  snprintf(what, sizeof what, "%s, rotating root%s",
           pat_reduce_algorithm_name(alg), in_place ? ", in place" : "");
  for (int i = 0; i < 30; i++)
    one_call(alg, MPI_COMM_WORLD, i % size, in_place, i, send, recv, what);
  check(in_place || pat_dispatch_repeats(0) - before == 29, what);
}

/* binomial, then a call that puts clairvoyant's schedule first in the
 * cache, then binomial again: the repeat runs binomial's schedule. */
static void epoch(void) {
  static double send[COUNT], recv[COUNT];
  double arrivals[64] = {0};
  const pat_schedule *mine = NULL, *now = NULL;
  unsigned long before;
  one_call(PAT_REDUCE_ALG_BINOMIAL, MPI_COMM_WORLD, 0, 0, 1, send, recv,
           "epoch: first");
  one_call(PAT_REDUCE_ALG_BINOMIAL, MPI_COMM_WORLD, 0, 0, 2, send, recv,
           "epoch: repeat");
  pat_reduce_last_schedule(MPI_COMM_WORLD, &mine);
  arrivals[size - 1] = 1e-3;
  check(pat_reduce_clairvoyant_with(send, recv, COUNT, MPI_DOUBLE, MPI_SUM, 0,
                                    MPI_COMM_WORLD, arrivals,
                                    1e-6) == MPI_SUCCESS,
        "epoch: clairvoyant told");
  pat_reduce_last_schedule(MPI_COMM_WORLD, &now);
  check(now != mine, "epoch: clairvoyant's schedule is another");
  before = pat_dispatch_repeats(0);
  one_call(PAT_REDUCE_ALG_BINOMIAL, MPI_COMM_WORLD, 0, 0, 3, send, recv,
           "epoch: repeat after another schedule");
  check(pat_dispatch_repeats(0) - before == 1, "epoch: still a repeat");
  pat_reduce_last_schedule(MPI_COMM_WORLD, &now);
  check(now == mine, "epoch: the repeat ran binomial's schedule");
}

/* The same with a cache of one schedule (PAT_REDUCE_SCHEDULE_CACHE=1):
 * the told call's schedule, for another count, takes the only entry, and
 * the repeat must not run it. */
static void epoch_cache_one(void) {
  static double send[COUNT], recv[COUNT];
  double arrivals[64] = {0};
  const pat_schedule *now = NULL;
  setenv("PAT_REDUCE_SCHEDULE_CACHE", "1", 1);
  pat_reduce_config_reload();
  one_call(PAT_REDUCE_ALG_BINOMIAL, MPI_COMM_WORLD, 0, 0, 1, send, recv,
           "epoch, one entry: first");
  one_call(PAT_REDUCE_ALG_BINOMIAL, MPI_COMM_WORLD, 0, 0, 2, send, recv,
           "epoch, one entry: repeat");
  arrivals[size - 1] = 1e-3;
  check(pat_reduce_clairvoyant_with(send, recv, COUNT - 2, MPI_DOUBLE, MPI_SUM,
                                    0, MPI_COMM_WORLD, arrivals,
                                    1e-6) == MPI_SUCCESS,
        "epoch, one entry: clairvoyant told, another count");
  one_call(PAT_REDUCE_ALG_BINOMIAL, MPI_COMM_WORLD, 0, 0, 3, send, recv,
           "epoch, one entry: repeat after another schedule");
  pat_reduce_last_schedule(MPI_COMM_WORLD, &now);
  check(now != NULL && pat_schedule_params(now)->count == COUNT,
        "epoch, one entry: the repeat ran a schedule of its own count");
  unsetenv("PAT_REDUCE_SCHEDULE_CACHE");
  pat_reduce_config_reload();
}

/* pipeline with 2 segments, then with 4 after a reload. */
static void reload(void) {
  static double send[COUNT], recv[COUNT];
  const pat_schedule *s = NULL;
  int before, after;
  setenv("PAT_REDUCE_SEGMENTS", "2", 1);
  pat_reduce_config_reload();
  for (int i = 0; i < 3; i++)
    one_call(PAT_REDUCE_ALG_PIPELINE, MPI_COMM_WORLD, 0, 0, i, send, recv,
             "reload: 2 segments");
  pat_reduce_last_schedule(MPI_COMM_WORLD, &s);
  before = s != NULL ? pat_schedule_nops(s, rank) : -1;
  setenv("PAT_REDUCE_SEGMENTS", "4", 1);
  pat_reduce_config_reload();
  one_call(PAT_REDUCE_ALG_PIPELINE, MPI_COMM_WORLD, 0, 0, 9, send, recv,
           "reload: 4 segments");
  pat_reduce_last_schedule(MPI_COMM_WORLD, &s);
  after = s != NULL ? pat_schedule_nops(s, rank) : -1;
  /* every rank of the chain sends each segment once */
  check(rank == 0 || after > before, "reload: the new segment count");
  unsetenv("PAT_REDUCE_SEGMENTS");
  pat_reduce_config_reload();
}

/* calls of alg on a communicator of its own with PAT_REDUCE_ALGORITHM =
 * list (auto's candidates): every call right and served by the same row
 * on every rank; a rank with odd set alternates its buffers (its calls
 * never repeat) and the others repeat every call after the first; with
 * counts elements.  Returns the repeats and prepared runs on this rank. */
static void pat_calls(pat_reduce_alg alg, const char *list, int odd, int calls,
                      int counts, unsigned long *repeats,
                      unsigned long *prepared, const char *what) {
  double *send[2], *recv[2];
  unsigned long r0 = pat_dispatch_repeats(0), p0 = pat_dispatch_repeats(1);
  MPI_Comm comm;
  int never = odd && rank % 2 == 1;
  setenv("PAT_REDUCE_ALGORITHM", list, 1);
  pat_reduce_config_reload();
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  for (int b = 0; b < 2; b++) {
    send[b] = malloc((size_t)counts * sizeof *send[b]);
    recv[b] = malloc((size_t)counts * sizeof *recv[b]);
  }
  for (int i = 0; i < calls; i++) {
    int b = never ? i % 2 : 0, lo, hi, rc;
    pat_reduce_alg ran = PAT_REDUCE_ALG_COUNT;
    for (int k = 0; k < counts; k++) {
      send[b][k] = value(rank, i, k % 64);
      recv[b][k] = -1;
    }
    rc = pat_reduce_using(alg, send[b], recv[b], counts, MPI_DOUBLE, MPI_SUM, 0,
                          comm);
    check(rc == MPI_SUCCESS, what);
    if (rank == 0)
      for (int k = 0; k < counts; k++) {
        double want = 0;
        for (int q = 0; q < size; q++)
          want += value(q, i, k % 64);
        if (recv[b][k] != want) {
          check(0, what);
          break;
        }
      }
    pat_reduce_last_algorithm(comm, &ran);
    MPI_Allreduce(&ran, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&ran, &hi, 1, MPI_INT, MPI_MAX, comm);
    check(lo == hi, "the same row on every rank");
  }
  for (int b = 0; b < 2; b++) {
    free(send[b]);
    free(recv[b]);
  }
  MPI_Comm_free(&comm);
  unsetenv("PAT_REDUCE_ALGORITHM");
  pat_reduce_config_reload();
  *repeats = pat_dispatch_repeats(0) - r0;
  *prepared = pat_dispatch_repeats(1) - p0;
}

/* auto, clairvoyant: repeats with a PAT layer. */
static void with_pat_layer(void) {
  unsigned long rep, prep;
  pat_calls(PAT_REDUCE_ALG_AUTO, "binomial,binomial", 0, 200, COUNT, &rep,
            &prep, "auto (binomial only), same arguments");
  check(rep == 199, "auto: 199 repeats of 200 calls");
  /* exchanged calls run the executor (the ones before them, prepared,
   * time their receives and combines) */
  check(prep >= 100, "auto: binomial prepared between exchanges");
  if (rank == 0)
    printf("auto, binomial only: %lu repeats, %lu prepared runs\n", rep, prep);
  pat_calls(PAT_REDUCE_ALG_AUTO, "", 0, 100, COUNT, &rep, &prep,
            "auto, same arguments");
  check(rep == 99, "auto: 99 repeats of 100 calls");
  pat_calls(PAT_REDUCE_ALG_CLAIRVOYANT, "", 0, 50, COUNT, &rep, &prep,
            "clairvoyant, same arguments");
  check(rep == 49, "clairvoyant: 49 repeats of 50 calls");
  /* odd ranks never repeat: every rank must still run the same schedule */
  pat_calls(PAT_REDUCE_ALG_AUTO, "pipeline,pipeline", 1, 60, 1 << 15, &rep,
            &prep, "auto (pipeline only), odd ranks never repeat");
  check(rank % 2 == 1 ? rep == 0 : rep == 59,
        "auto, odd ranks never repeat: the repeats");
  pat_calls(PAT_REDUCE_ALG_AUTO, "", 1, 60, 1 << 12, &rep, &prep,
            "auto, odd ranks never repeat");
  /* a plan follows the predictions: a repeat must not run the last one */
  pat_calls(PAT_REDUCE_ALG_CLAIRVOYANT, "", 1, 60, COUNT, &rep, &prep,
            "clairvoyant, odd ranks never repeat");
}

/* The layout of the datatype int_sum is called with: the two ints of
 * element e at ints stride * e and stride * e + gap. */
static int g_stride, g_gap;

/* A sum of the ints of g_stride / g_gap elements (a user op: Open MPI
 * refuses MPI_SUM on derived datatypes). */
static void int_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  const int *a = in;
  int *b = inout;
  (void)type;
  for (int e = 0; e < *len; e++) {
    b[g_stride * e] += a[g_stride * e];
    b[g_stride * e + g_gap] += a[g_stride * e + g_gap];
  }
}

/* A communicator freed and made again, and a datatype freed and made
 * again with another layout: both most likely under the same handles. */
static void freed_handles(void) {
  static double send[COUNT], recv[COUNT];
  int dsend[3 * 3], drecv[3 * 3];
  MPI_Op sum;
  MPI_Comm comm;
  MPI_Datatype type;
  unsigned long before;
  for (int round = 0; round < 2; round++) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    for (int i = 0; i < 3; i++)
      one_call(PAT_REDUCE_ALG_BINOMIAL, comm, 0, 0, i + round, send, recv,
               "a communicator made again");
    MPI_Comm_free(&comm);
  }
  MPI_Op_create(int_sum, 1, &sum);
  before = pat_dispatch_repeats(0);
  for (int round = 0; round < 2; round++) {
    /* round 0: 2 contiguous ints; round 1: the 1st and 3rd of 3 */
    if (round == 0)
      MPI_Type_contiguous(2, MPI_INT, &type);
    else
      MPI_Type_vector(2, 1, 2, MPI_INT, &type);
    g_stride = round == 0 ? 2 : 3;
    g_gap = round == 0 ? 1 : 2;
    MPI_Type_commit(&type);
    for (int i = 0; i < 3; i++) {
      for (int k = 0; k < 9; k++) {
        dsend[k] = 100 * rank + 10 * i + k;
        drecv[k] = -1;
      }
      check(pat_reduce_using(PAT_REDUCE_ALG_BINOMIAL, dsend, drecv, 3, type,
                             sum, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
            "a datatype made again");
      if (rank == 0)
        for (int e = 0; e < 3; e++)
          for (int b = 0; b < 2; b++) {
            /* element e's block b: round 0 at 2e + b, round 1 at 3e + 2b */
            int k = round == 0 ? 2 * e + b : 3 * e + 2 * b;
            int want = 0;
            for (int q = 0; q < size; q++)
              want += 100 * q + 10 * i + k;
            check(drecv[k] == want, "a datatype made again: the sum");
          }
    }
    MPI_Type_free(&type);
  }
  MPI_Op_free(&sum);
  check(pat_dispatch_repeats(0) == before,
        "user datatypes and ops are never repeats");
}

/* A bad root right after repeats is an error, and the next good call is
 * right. */
static void bad_after_repeat(void) {
  static double send[COUNT], recv[COUNT];
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int i = 0; i < 3; i++)
    one_call(PAT_REDUCE_ALG_BINOMIAL, MPI_COMM_WORLD, 0, 0, i, send, recv,
             "before a bad root");
  check(pat_reduce_using(PAT_REDUCE_ALG_BINOMIAL, send, recv, COUNT, MPI_DOUBLE,
                         MPI_SUM, size, MPI_COMM_WORLD) == MPI_ERR_ROOT,
        "a bad root after repeats");
  one_call(PAT_REDUCE_ALG_BINOMIAL, MPI_COMM_WORLD, 0, 0, 5, send, recv,
           "after a bad root");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  int all = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 64) {
    if (rank == 0)
      fprintf(stderr, "test_repeat: at most 64 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int in_place = 0; in_place < 2; in_place++) {
    same_arguments(PAT_REDUCE_ALG_BINOMIAL, in_place);
    same_arguments(PAT_REDUCE_ALG_RING, in_place);
    same_arguments(PAT_REDUCE_ALG_LOCALREDIRECT, in_place);
    same_arguments(PAT_REDUCE_ALG_NATIVE, in_place);
    rotating_root(PAT_REDUCE_ALG_BINOMIAL, in_place);
    rotating_root(PAT_REDUCE_ALG_LOCALREDIRECT, in_place);
  }
  epoch();
  epoch_cache_one();
  reload();
  freed_handles();
  bad_after_repeat();
  with_pat_layer();
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_repeat: %s (%d failures)\n", all == 0 ? "ok" : "FAILED", all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
