/*
 * native: the MPI library's own reduction (PMPI_Reduce), run on the private
 * duplicate so that it is a peer of the other algorithms in every test and
 * benchmark.  Cost and arrival behaviour are whatever the MPI library's
 * tuned selection gives.
 *
 * Estimate (for auto): the MPI library's algorithm is not known here, so
 * the binomial tree's (binomial's estimate, walked under the arrivals:
 * what Open MPI and MPICH run for small messages).  Ties go to the row
 * first in the table, binomial, so auto picks native only from a list
 * without binomial (PAT_REDUCE_ALGORITHM=native,ring); a rules file pins
 * it where the library's own algorithm is known to be better.
 */
#include "core/pat_internal.h"

extern const pat_alg_row pat_alg_binomial;

static double native_estimate(const pat_sched_params *p) {
  return pat_alg_table[PAT_REDUCE_ALG_BINOMIAL]->estimate(p);
}

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
                                    .estimate = native_estimate,
                                    .never_below = &pat_alg_binomial,
                                    .fallback = PAT_REDUCE_ALG_NATIVE};
