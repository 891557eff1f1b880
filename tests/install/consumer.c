/* Uses an installed patreduce: one reduction per algorithm of the table. */
#include <stdio.h>

#include <reduce/pat_reduce.h>

int main(int argc, char **argv) {
  int rank, size, bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
    int in = rank + 1, out = 0;
    pat_reduce_using((pat_reduce_alg)a, &in, &out, 1, MPI_INT, MPI_SUM, 0,
                     MPI_COMM_WORLD);
    if (rank == 0 && out != size * (size + 1) / 2)
      bad++;
  }
  if (rank == 0)
    printf("consumer: %s\n", bad ? "WRONG RESULTS" : "results ok");
  MPI_Finalize();
  return bad != 0;
}
