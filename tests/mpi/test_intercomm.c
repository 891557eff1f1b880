/* MPI test (P >= 2, run at 4 and 5): reductions on an intercommunicator.
 *
 * No algorithm of the library spans two groups, so every row must hand an
 * intercommunicator to PMPI_Reduce untouched (src/core/dispatch.c) instead
 * of rejecting legal MPI: the even ranks form the root group, whose rank 0
 * passes MPI_ROOT and the others MPI_PROC_NULL; the odd ranks send with
 * root 0 (the root's rank in the remote group).  Each row, at several
 * counts and with a non-commutative user op, must give the root the
 * reduction of the odd ranks' data in rank order, and leave the other
 * ranks' receive buffers alone.  Then MPI_Reduce itself (the override when
 * run with the preload, argument "preload").  A schedule, which runs on an
 * intracommunicator only, is refused with MPI_ERR_COMM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "matmul.h"
#include "reduce/pat_reduce.h"
#include "reduce/pat_schedule.h"

static int wrank, failures;

static void check(int ok, const char *what, const char *alg, int count) {
  if (!ok) {
    fprintf(stderr, "rank %d: FAILED: %s (%s, count %d)\n", wrank, what, alg,
            count);
    failures++;
  }
}

/* The matrix of remote rank r: [[1, r+1], [0, 1]]; the product over
 * r = 0..n-1 in order is [[1, n(n+1)/2], [0, 1]], whatever the count. */
static void fill(double *x, int count, int r) {
  for (int i = 0; i < count; i++) {
    x[4 * i] = 1, x[4 * i + 1] = r + 1 + i, x[4 * i + 2] = 0, x[4 * i + 3] = 1;
  }
}

static void one(MPI_Comm inter, int in_root_group, int lrank, int nremote,
                int alg, int count, MPI_Datatype mat, MPI_Op op) {
  const char *name = alg < 0 ? "MPI_Reduce" : pat_reduce_algorithm_name(alg);
  double *in = malloc((size_t)(4 * count + 4) * sizeof *in);
  double *out = malloc((size_t)(4 * count + 4) * sizeof *out);
  int root = in_root_group ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, rc;
  fill(in, count, lrank);
  for (int i = 0; i < 4 * count + 4; i++)
    out[i] = -7;
  rc = alg < 0 ? MPI_Reduce(in, out, count, mat, op, root, inter)
               : pat_reduce_using((pat_reduce_alg)alg, in, out, count, mat, op,
                                  root, inter);
  check(rc == MPI_SUCCESS, "the call succeeds", name, count);
  if (root == MPI_ROOT) {
    for (int i = 0; i < count; i++) {
      double want = (double)nremote * (nremote + 1) / 2 + (double)nremote * i;
      if (out[4 * i] != 1 || out[4 * i + 1] != want || out[4 * i + 2] != 0 ||
          out[4 * i + 3] != 1) {
        check(0, "the root's result, in rank order", name, count);
        break;
      }
    }
  } else if (in_root_group) {
    int untouched = 1;
    for (int i = 0; i < 4 * count + 4; i++)
      untouched &= out[i] == -7;
    check(untouched, "MPI_PROC_NULL ranks' buffers untouched", name, count);
  }
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  MPI_Comm half, inter;
  MPI_Datatype mat;
  MPI_Op op;
  int size, color, lrank, lsize, nremote;
  const int counts[] = {0, 1, 5, 1000};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    fprintf(stderr, "test_intercomm: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  color = wrank % 2; /* even ranks: the root group */
  MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &half);
  MPI_Comm_rank(half, &lrank);
  MPI_Comm_size(half, &lsize);
  /* local leader 0; the remote leader is world rank 1 or 0 */
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 99, &inter);
  MPI_Comm_remote_size(inter, &nremote);
  MPI_Type_contiguous(4, MPI_DOUBLE, &mat);
  MPI_Type_commit(&mat);
  MPI_Op_create(matmul, 0, &op);
  if (argc > 1 && strcmp(argv[1], "preload") == 0) {
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
      one(inter, color == 0, lrank, nremote, -1, counts[k], mat, op);
  } else {
    for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
      for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        one(inter, color == 0, lrank, nremote, a, counts[k], mat, op);
    /* a schedule is for an intracommunicator: refused, not run */
    {
      pat_schedule *s = NULL;
      pat_sched_params p = {
          .nranks = lsize, .root = 0, .count = 1, .commutative = 1};
      double x[4], y[4];
      int rc;
      MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
      check(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, -1, &s) ==
                PAT_SUCCESS,
            "a schedule to try", "binomial", 1);
      fill(x, 1, lrank);
      rc = pat_schedule_execute(s, x, y, mat, MPI_SUM, inter);
      check(rc != MPI_SUCCESS, "a schedule on an intercommunicator refused",
            "binomial", 1);
      pat_schedule_free(s);
    }
  }
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  if (wrank == 0 && failures == 0)
    printf("test_intercomm: OK\n");
  MPI_Finalize();
  return failures != 0;
}
