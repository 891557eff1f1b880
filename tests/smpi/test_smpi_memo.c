/*
 * test_smpi_memo: in SMPI the memo (src/core/memo.c) is one per process,
 * shared by all simulated ranks, not privatized with each rank's globals
 * (SMPI build only; run under smpirun, see tests/smpi/CMakeLists.txt).
 *
 * Every rank reduces with the oracle (clairvoyant told the arrivals and a
 * round cost of 10 us) on two arrival sets, CALLS calls each on one
 * duplicate of MPI_COMM_WORLD, and checks the root's sums exactly.  Each rank
 * builds one schedule per set (the communicator's cache keeps it for the later
 * calls), so the process plans each set once and the other P - 1 ranks find it:
 * after a barrier rank 0 asserts 2 plans stored and at least 2 (P - 1) found.
 * Were the memo's list one of each rank's privatized globals, every rank would
 * store its own two plans and find none.
 *
 * Also: the library leaves MPI_COMM_WORLD's error handler as it found it
 * (it swaps in MPI_ERRORS_RETURN while it reads the datatype and op;
 * SMPI's MPI_ERRHANDLER_NULL for the default once made that stick).
 *
 * usage: test_smpi_memo [count=N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/memo.h"
#include "reduce/pat_reduce.h"

enum { CALLS = 3 };

int main(int argc, char **argv) {
  int rank, P, count = 1024, bad = 0, all_bad = 0;
  MPI_Comm comm;
  double *arrivals, *in, *out;
  unsigned long s0, f0, s1, f1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], "count=", 6) == 0)
      count = atoi(argv[i] + 6);
  arrivals = calloc((size_t)P, sizeof *arrivals);
  in = malloc((size_t)count * sizeof *in);
  out = malloc((size_t)count * sizeof *out);
  if (arrivals == NULL || in == NULL || out == NULL || count < 1) {
    fprintf(stderr, "test_smpi_memo: bad count or no memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Barrier(MPI_COMM_WORLD);
  pat_memo_counts(&s0, &f0);
  for (int set = 0; set < 2; set++) {
    if (set == 1)
      arrivals[P - 1] = 1e-4; /* the last rank late */
    for (int call = 0; call < CALLS; call++) {
      for (int i = 0; i < count; i++)
        in[i] = (double)(rank + 1) * (i % 7 + 1);
      if (pat_reduce_with_arrivals(PAT_REDUCE_ALG_CLAIRVOYANT, in, out, count,
                                   MPI_DOUBLE, MPI_SUM, 0, comm, arrivals,
                                   1e-5) != MPI_SUCCESS)
        bad++;
      for (int i = 0; rank == 0 && i < count; i++)
        if (out[i] != (double)P * (P + 1) / 2 * (i % 7 + 1))
          bad++;
    }
  }
  {
    MPI_Errhandler h;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h);
    if (h == MPI_ERRORS_RETURN) {
      fprintf(stderr,
              "rank %d: MPI_COMM_WORLD's handler is now "
              "MPI_ERRORS_RETURN\n",
              rank);
      bad++;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  pat_memo_counts(&s1, &f1);
  MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("P = %d: %d wrong results or failed calls; plans stored %lu, "
           "found %lu (want 2 and at least %d)\n",
           P, all_bad, s1 - s0, f1 - f0, 2 * (P - 1));
    all_bad += s1 - s0 != 2 || f1 - f0 < 2 * (unsigned long)(P - 1);
    puts(all_bad ? "FAIL" : "PASS");
  }
  MPI_Bcast(&all_bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Comm_free(&comm);
  free(arrivals);
  free(in);
  free(out);
  MPI_Finalize();
  return all_bad ? 1 : 0;
}
