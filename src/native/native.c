/*
 * native: the MPI library's own reduction (PMPI_Reduce), run on the private
 * duplicate so that it is a peer of the other algorithms in every test and
 * benchmark.  Cost and arrival behaviour are whatever the MPI library's
 * tuned selection gives.
 */
#include "core/pat_internal.h"

static int native_run(const pat_call *call) {
  const void *sendbuf =
      call->in_place && call->rank == call->root ? MPI_IN_PLACE : call->sendbuf;
  return PMPI_Reduce(sendbuf, call->recvbuf, call->count, call->datatype,
                     call->op, call->root, call->priv);
}

const pat_alg_row pat_alg_native = {.id = PAT_REDUCE_ALG_NATIVE,
                                    .name = "native",
                                    .description =
                                        "the MPI library's own PMPI_Reduce",
                                    .run = native_run,
                                    .fallback = PAT_REDUCE_ALG_NATIVE};
