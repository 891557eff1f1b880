/*
 * The PAT layer's interface to the core (internal, not installed): the
 * per-communicator state of arrival stamps, their exchange, the predictor
 * and the measured cost model.  Only the dispatcher and the executor use
 * it; algorithms see its results in the call (arrivals, model).
 */
#ifndef PAT_LAYER_H
#define PAT_LAYER_H

#include <mpi.h>

#include "core/pat_internal.h"
#include "reduce/pat_pat.h"

typedef struct pat_state pat_state;

/* Collective on priv (clock offsets).  MPI error code. */
int pat_state_alloc(MPI_Comm priv, int clock_tag, const pat_config *cfg,
                    pat_state **out);
void pat_state_free(pat_state *ps); /* accepts NULL; collective */

/* The global time base. */
double pat_state_now(const pat_state *ps);

/* At the start of a call: stamps the arrival (writes it), completes the
 * exchanges due now and starts this call's.  MPI error code. */
int pat_state_arrive(pat_state *ps, double *stamp);

/* The cost model: PAT_REDUCE_ROUND_COST c as {alpha = c, 0, 0}, else the
 * PAT_REDUCE_MODEL file, else the one fitted from exchanged measurements
 * (identical on every rank).  Returns 1 and writes it, or 0 while none is
 * known. */
int pat_state_model(const pat_state *ps, pat_model *model);

/* The predicted relative arrival times of this call (nranks entries, owned
 * by ps) and the cost model to plan with; while no model is known the
 * prediction is balanced (where the greedy tree does not depend on the
 * model) and the model {1, 0, 0}. */
const double *pat_state_predict(pat_state *ps, pat_model *model);

/* The executor's measurements in the current call: one receive of bytes
 * (posted to completed, seconds) and one combine of bytes. */
void pat_state_transfer_sample(pat_state *ps, double bytes, double seconds);
void pat_state_combine_sample(pat_state *ps, double bytes, double seconds);

/* At the end of a call of bytes per message: counts it, refreshes clock
 * offsets when due. */
int pat_state_depart(pat_state *ps, double bytes);

/* Ping-pong clock offset estimation on comm with tag (pat/clock.c). */
int pat_clock_sync(MPI_Comm comm, int tag, int rounds, double *offset,
                   double *bound);

#endif /* PAT_LAYER_H */
