/* MPI test (P >= 2): settings that shape communication must agree.
 *
 * Run by agree.sh with one variable set differently on some ranks: every
 * rank's first call on a communicator must fail alike with MPI_ERR_ARG
 * (never hang, never run with ranks on different paths), and so must a
 * second call; with "same", everything agrees and both calls are right.
 * Prints "agree: ok" on rank 0 when every rank saw what it expected.
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "reduce/pat_reduce.h"

int main(int argc, char **argv) {
  int rank, size, expect_fail, ok = 1, all_ok = 0;
  MPI_Comm c;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  expect_fail = argc > 1 && strcmp(argv[1], "differ") == 0;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  for (int k = 0; k < 2; k++) {
    double x = rank + 1, y = 0;
    int rc = pat_reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, c), cls = rc;
    if (rc != MPI_SUCCESS)
      MPI_Error_class(rc, &cls);
    if (expect_fail ? cls != MPI_ERR_ARG
                    : rc != MPI_SUCCESS ||
                          (rank == 0 && y != size * (size + 1) / 2.0)) {
      fprintf(stderr, "rank %d, call %d: rc %d (class %d), want %s\n", rank, k,
              rc, cls, expect_fail ? "MPI_ERR_ARG" : "success");
      ok = 0;
    }
  }
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0 && all_ok)
    printf("agree: ok\n");
  MPI_Comm_free(&c);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
