/*
 * An ordinary MPI program that knows nothing of patreduce: it calls
 * MPI_Reduce with a few roots and ops and checks the results.  The
 * pmpi_preload tests run it with libpatreduce_pmpi.so preloaded.
 */
#include <stdio.h>

#include <mpi.h>

int main(int argc, char **argv) {
  int rank, size, bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int root = 0; root < size; root++) {
    long in[3] = {rank, 2 * rank + 1, -rank}, out[3] = {0, 0, 0};
    MPI_Reduce(in, out, 3, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root &&
        (out[0] != (long)size * (size - 1) / 2 || out[1] != (long)size * size ||
         out[2] != -(long)size * (size - 1) / 2))
      bad++;
    int mx = rank * 10;
    if (rank == root)
      MPI_Reduce(MPI_IN_PLACE, &mx, 1, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
    else
      MPI_Reduce(&mx, NULL, 1, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
    if (rank == root && mx != (size - 1) * 10)
      bad++;
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("plain_reduce: %s\n", bad ? "WRONG RESULTS" : "results ok");
  MPI_Finalize();
  return bad != 0;
}
