/*
 * The MPI_Reduce override: libpatreduce_pmpi.so defines MPI_Reduce and
 * forwards it to pat_reduce(), which picks the algorithm named by
 * PAT_REDUCE_ALGORITHM.  Load it with LD_PRELOAD or link it before libmpi.
 * The library itself only calls PMPI_* functions, so there is no recursion.
 */
#include "reduce/pat_reduce.h"

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  return pat_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}
