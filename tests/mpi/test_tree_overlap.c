/* MPI test (4 ranks): where a tree node's program runs in order, and where
 * the dataflow overlaps its next receive with a combine.
 *
 * binomial, root 0: the root receives rank 1's message into a temporary,
 * combines its own into it, receives rank 2's (the subtree of 2 and 3)
 * into recvbuf and combines the temporary into it; the second receive
 * does not touch what the first combine reads or writes.  Up to 4 KiB per
 * message (PAT_IN_ORDER_MAX_BYTES, src/core/exec.c) the program runs op
 * by op: the second receive is posted only after the first combine has
 * ended.  Above it the dataflow runs it, which posts a ready transfer
 * before it runs a ready combine: the second receive is posted before the
 * first combine starts, so its transfer can flow while the root combines,
 * as the byte model (src/core/simulate.c) and so every estimate assumes.
 * Checked on the root's trace, which orders these events whatever the
 * timing; every result is checked too.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "reduce/pat_reduce.h"
#include "reduce/pat_trace.h"

static int rank, failures;

static void check(int ok, const char *what, int count) {
  if (!ok) {
    fprintf(stderr, "rank %d, count %d: FAILED: %s\n", rank, count, what);
    failures++;
  }
}

/* The root's first combine and its receive from rank 2, in ev[0..n). */
static void find(const pat_trace_event *ev, size_t n,
                 const pat_trace_event **combine,
                 const pat_trace_event **recv2) {
  *combine = NULL;
  *recv2 = NULL;
  for (size_t k = 0; k < n; k++) {
    if (ev[k].kind == PAT_TRACE_COMBINE && *combine == NULL)
      *combine = &ev[k];
    if (ev[k].kind == PAT_TRACE_RECV && ev[k].peer == 2)
      *recv2 = &ev[k];
  }
}

static void run(int count, int in_order) {
  double *in = malloc((size_t)count * sizeof *in);
  double *out = malloc((size_t)count * sizeof *out);
  check(in != NULL && out != NULL, "malloc", count);
  if (in == NULL || out == NULL)
    goto out;
  for (int i = 0; i < count; i++)
    in[i] = (double)((rank + 1) * (i % 100 + 1));
  /* twice: the second call repeats the first (dispatch.c, "repeats") */
  for (int rep = 0; rep < 2; rep++) {
    pat_trace_event ev[32];
    const pat_trace_event *combine, *recv2;
    size_t n = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    pat_trace_start(MPI_COMM_WORLD, ev, 32);
    check(pat_reduce_binomial(in, out, count, MPI_DOUBLE, MPI_SUM, 0,
                              MPI_COMM_WORLD) == MPI_SUCCESS,
          "pat_reduce_binomial", count);
    pat_trace_stop(MPI_COMM_WORLD, &n, NULL);
    if (rank != 0)
      continue;
    for (int i = 0; i < count; i++)
      if (out[i] != 10.0 * (i % 100 + 1)) {
        check(0, "result", count);
        break;
      }
    find(ev, n, &combine, &recv2);
    check(combine != NULL && recv2 != NULL,
          "a combine and a receive from rank 2 in the root's trace", count);
    if (combine == NULL || recv2 == NULL)
      continue;
    printf("count %d, rep %d: receive from rank 2 posted %+.3f ms after the "
           "first combine %s\n",
           count, rep,
           (recv2->t0 - (in_order ? combine->t1 : combine->t0)) * 1e3,
           in_order ? "ended" : "started");
    if (in_order)
      check(recv2->t0 >= combine->t1,
            "in order: the second receive is posted after the first combine",
            count);
    else
      check(recv2->t0 <= combine->t0,
            "dataflow: the second receive is posted before the first combine",
            count);
  }
out:
  free(in);
  free(out);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) {
    if (rank == 0)
      fprintf(stderr, "test_tree_overlap needs 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  run(512, 1);     /* 4 KiB: in order */
  run(513, 0);     /* one double more: the dataflow */
  run(1 << 17, 0); /* 1 MiB */
  if (rank == 0 && failures == 0)
    printf("test_tree_overlap: OK\n");
  MPI_Finalize();
  return failures != 0;
}
