/* MPI test (run at P = 3): MPI_THREAD_MULTIPLE, 8 threads per rank, each on
 * its own communicator, 100 calls each.
 *
 * The library's first use happens in the threads at once: the lazy
 * configuration, the keyvals and each communicator's state (its private
 * duplicate and the settings agreement) are made while other threads call.
 * Thread t runs every row in turn (t shifts the order, so different rows
 * run side by side), roots and counts varying per call, a sum and a
 * non-commutative 2x2 matrix product (a user datatype: its facts are read
 * anew every call, with MPI_COMM_WORLD's error handler swapped), and checks
 * every result and that the handler is the same at the end.  Under the
 * ThreadSanitizer build (PATREDUCE_TSAN) the run must also be free of data
 * races in the library.  Exit 77 (skipped, with a message) if the MPI
 * library does not provide MPI_THREAD_MULTIPLE.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "matmul.h"
#include "reduce/pat_reduce.h"

#define THREADS 8
#define CALLS 100

static int rank, size;
static MPI_Datatype mat;
static MPI_Op matmul_op;


typedef struct job {
  int t;
  MPI_Comm comm;
  int failures;
} job;

static void *run(void *arg) {
  job *j = arg;
  double in[4 * 64], out[4 * 64];
  for (int k = 0; k < CALLS; k++) {
    pat_reduce_alg alg = (pat_reduce_alg)((j->t + k) % PAT_REDUCE_ALG_COUNT);
    int root = (j->t + k) % size, count = 1 + (k * 7 + j->t) % 64;
    int product = k % 2, rc, ok = 1;
    for (int i = 0; i < count; i++) {
      if (product) { /* [[1, rank + 1 + i], [0, 1]] */
        in[4 * i] = 1, in[4 * i + 1] = rank + 1 + i;
        in[4 * i + 2] = 0, in[4 * i + 3] = 1;
      } else {
        in[i] = rank + j->t + i;
      }
      out[4 * i] = out[4 * i + 1] = -1;
    }
    rc = product ? pat_reduce_using(alg, in, out, count, mat, matmul_op, root,
                                     j->comm)
                 : pat_reduce_using(alg, in, out, count, MPI_DOUBLE, MPI_SUM,
                                    root, j->comm);
    if (rank == root)
      for (int i = 0; i < count; i++) {
        double s = (double)size * (size + 1) / 2 + (double)size * i;
        ok &= product ? out[4 * i] == 1 && out[4 * i + 1] == s
                      : out[i] == s - size + (double)size * j->t;
      }
    if (rc != MPI_SUCCESS || !ok) {
      fprintf(stderr,
              "rank %d thread %d call %d: FAILED: %s, count %d, root %d, "
              "%s: %s\n",
              rank, j->t, k, pat_reduce_algorithm_name(alg), count, root,
              product ? "product" : "sum",
              rc != MPI_SUCCESS ? "the call failed" : "wrong values");
      j->failures++;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided, failures = 0;
  pthread_t th[THREADS];
  job jobs[THREADS];
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0)
      printf("test_threads: SKIPPED: the MPI library provides thread level "
             "%d, not MPI_THREAD_MULTIPLE\n",
             provided);
    MPI_Finalize();
    return 77;
  }
  MPI_Type_contiguous(4, MPI_DOUBLE, &mat);
  MPI_Type_commit(&mat);
  MPI_Op_create(matmul, 0, &matmul_op);
  /* communicators are made here, in order; the library's first use is
   * in the threads */
  for (int t = 0; t < THREADS; t++) {
    jobs[t] = (job){.t = t, .failures = 0};
    MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
  }
  for (int t = 0; t < THREADS; t++)
    pthread_create(&th[t], NULL, run, &jobs[t]);
  for (int t = 0; t < THREADS; t++) {
    pthread_join(th[t], NULL);
    failures += jobs[t].failures;
    MPI_Comm_free(&jobs[t].comm);
  }
  { /* the threads' overlapping first uses left MPI_COMM_WORLD's handler
     * as it was (the checks swap it while they query MPI) */
    MPI_Errhandler h;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h);
    if (h != MPI_ERRORS_ARE_FATAL) {
      fprintf(stderr, "rank %d: FAILED: MPI_COMM_WORLD's error handler is no "
                      "longer MPI_ERRORS_ARE_FATAL\n", rank);
      failures++;
    }
    MPI_Errhandler_free(&h);
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_threads: %d threads x %d calls on %d ranks: %s\n", THREADS,
           CALLS, size, failures == 0 ? "OK" : "FAILED");
  MPI_Op_free(&matmul_op);
  MPI_Type_free(&mat);
  MPI_Finalize();
  return failures != 0;
}
