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

/* The stamp exchange's tags: PAT_EXCHANGE_SLOTS exchanges in flight at
 * most (PAT_REDUCE_EXCHANGE_LAG's maximum + 1), PAT_EXCHANGE_ROUNDS
 * rounds each (P < 2^31); they start at the exchange_tag given to
 * pat_state_alloc. */
#define PAT_EXCHANGE_SLOTS 65
#define PAT_EXCHANGE_ROUNDS 31
#define PAT_EXCHANGE_TAGS (PAT_EXCHANGE_SLOTS * PAT_EXCHANGE_ROUNDS)

/* Collective on priv (clock offsets).  Uses tag clock_tag and the
 * PAT_EXCHANGE_TAGS tags from exchange_tag on.  MPI error code. */
int pat_state_alloc(MPI_Comm priv, int clock_tag, int exchange_tag,
                    const pat_config *cfg, pat_state **out);
void pat_state_free(pat_state *ps); /* accepts NULL; collective */

/* The global time base. */
double pat_state_now(const pat_state *ps);

/* At the start of a call of bytes per rank: completes the exchanges due
 * now and starts this call's if pat_exchange_interval (and the pace,
 * pat_state_pace) says so, with the arrival stamped (written to *stamp;
 * NAN on a call that does not exchange: no clock is read).  MPI error
 * code. */
int pat_state_arrive(pat_state *ps, double bytes, double *stamp);

/* Message sizes by powers of 4 (class k: 4^k to 4^(k+1) - 1 bytes per
 * rank, class 0 below 4): the PAT layer paces the exchange per class, and
 * auto learns per class. */
#define PAT_SIZE_CLASSES 32
int pat_size_class(double bytes);

/* The pace of the exchange its client (auto) wants for the calls of
 * bytes' size class, decided from exchanged data (so at the same call on
 * every rank): while the interval is automatic
 * (PAT_REDUCE_EXCHANGE_INTERVAL=auto) those calls from the next one on
 * exchange every stretch times the automatic interval (at most every
 * PAT_EXCHANGE_MAX_PACED-th), counted in the class's own calls; the
 * calls of classes never paced (a rules file's rows between the client's
 * calls) take the last stretch set, on their own automatic interval; call
 * soon (-1: none), whatever its size, exchanges whatever the interval.  A
 * set interval is kept as set (counted in the class's own calls too).
 * Per class, because the sizes' calls need not be alike: one size's calls
 * stretched to every 1024th (back to back) left another's, one call in
 * 100, exchanged once in 1024 of them, so it never learned; and counted
 * in the class's own calls, because such a class paced to every 64th of
 * all calls was exchanged at one call in 64 of its own, every 6400 calls,
 * and learned 64 times as slowly as its pace meant. */
void pat_state_pace(pat_state *ps, double bytes, int stretch, long soon);

/* The model the configuration gives (PAT_REDUCE_ROUND_COST as {c, 0, 0},
 * else PAT_REDUCE_MODEL's): 1 and *model, or 0 if it gives none. */
int pat_configured_model(const pat_config *cfg, pat_model *model);

/* The cost model: the configured one (pat_configured_model), else the one
 * fitted from exchanged measurements (identical on every rank).  Returns 1
 * and writes it, or 0 while none is known. */
int pat_state_model(const pat_state *ps, pat_model *model);

/* The predicted relative arrival times of this call of bytes per rank
 * (nranks entries, owned by ps) and the cost model to plan with; while no
 * model is known the prediction is balanced (where the greedy tree does
 * not depend on the model) and the model {1, 0, 0}.  Each time is rounded
 * to a multiple of the round cost of bytes / PAT_PREDICT_GRID, so that a
 * prediction that moved by less than that is the same prediction: the
 * same plan (from the schedule cache) and the same auto decision. */
#define PAT_PREDICT_GRID 8
const double *pat_state_predict(pat_state *ps, double bytes, pat_model *model);

/* The calls on this communicator before the current one (the current
 * call's index, counted from 0 on every rank alike). */
long pat_state_calls(const pat_state *ps);

/* 1 if the current call's stamps are being exchanged (after
 * pat_state_arrive; the same on every rank): only such a call is ever
 * observed (pat_state_observed_nth) and gets a realized time. */
int pat_state_exchanging(const pat_state *ps);

/* The arrival times of the k-th latest of the last PAT_OBSERVED_KEPT
 * calls whose stamps have been exchanged (k = 0: the latest; nranks
 * entries, owned by ps, identical on every rank) and its index; NULL and
 * -1 past them.  Calls of other rows between a caller's (auto) may push
 * its own out: the dispatcher passes what each call observed to the rows
 * that learn from it (pat_alg_row.observed). */
#define PAT_OBSERVED_KEPT 8
const double *pat_state_observed_nth(const pat_state *ps, int k, long *call);

/* The same for idle times: the median over the ranks of the time each
 * spent between the end of its call before and the start of this one,
 * the PAT layer's own work (exchanges, clock refreshes) left out, on its
 * local clock (NAN when no rank knows it, and -1 past them).  Near 0
 * where the calls come back to back: then the ranks that are not root run
 * calls ahead of it (their sends complete at once), and the arrivals and
 * realized times measure that pipelining, not the algorithm (auto). */
double pat_state_idle_nth(const pat_state *ps, int k, long *call);

/* The same for realized times: a call's latest exit stamp less its
 * earliest arrival, identical on every rank (NAN and -1 past them).  A
 * call's exits travel with the next exchanged call's stamps, so the
 * latest is the call observed before the latest one. */
double pat_state_realized_nth(const pat_state *ps, int k, long *call);

/* For the same call, per rank (nranks entries, owned by ps, identical on
 * every rank; NULL past them) its time from its exit of the call before
 * to its exit of this one, the PAT layer's own work left out: its idle
 * time before the call plus the time it took in it (NAN when not known).
 * Back to back, the root's is the call's period: what a pipeline of calls
 * of its row costs per call, where the realized time measures the
 * pipeline's depth (auto). */
const double *pat_state_intervals_nth(const pat_state *ps, int k);

/* 1 if the current call's measurements (below) will be exchanged: they
 * travel with the next call's stamps, so if that call exchanges (as far
 * as can be told now: its interval may differ with its size; from the
 * pace set since the last arrival, so the same for a quiet call that
 * skipped it, pat_state_quiet); else the
 * executor need not read the clock (a P = 2, 8-byte auto call spent a
 * sixth of its time there). */
int pat_state_sampling(const pat_state *ps);

/* The executor's measurements in the current call: one receive of bytes
 * (posted to completed, seconds) and one combine of bytes. */
void pat_state_transfer_sample(pat_state *ps, double bytes, double seconds);
void pat_state_combine_sample(pat_state *ps, double bytes, double seconds);

/* At the end of a call of bytes per message: counts it, stamps its exit
 * if it exchanged, advances the exchanges, refreshes clock offsets when
 * due, and then, if the next call exchanges or one of another size may
 * (a size called lately whose next call is due at its pace, counted in
 * its own calls), reads the local clock: its idle time starts there
 * (pat_state_idle_nth; so does pat_state_skip). */
int pat_state_depart(pat_state *ps, double bytes);

/* 1 if a call of bytes per message arriving now needs nothing of the
 * layer but its measurements, if it samples (pat_state_sampling, which
 * holds for it as after an arrival): it starts no exchange, has
 * none to complete or progress, refreshes no clock, and its interval and
 * predictions are those of the call before (no observation since, the
 * same size, a predictor that follows no cycle).  Such a call may skip
 * pat_state_arrive, the prediction and pat_state_depart, and be counted with
 * pat_state_skip instead: the layer then stands as if it had arrived and
 * departed.  The same on every rank (exchanged data and the call's arguments).
 */
int pat_state_quiet(const pat_state *ps, double bytes);
/* The cycle the predictions follow (pat_predictor_cycle of the layer's
 * predictor; 1: none). */
int pat_state_cycle(const pat_state *ps);
/* The longest lag, in calls, from an exchange's start to its observation
 * so far (1 before the first; a shorter lag held behind a longer one
 * counts as held): the same on every rank. */
int pat_state_lag(const pat_state *ps);
void pat_state_skip(pat_state *ps);

/* The last call up to which every call of bytes is quiet, from the
 * current one on, while the calls in between only skip (pat_state_skip):
 * the one before the next that exchanges, or the one before the call
 * that refreshes the clock (LONG_MAX: none ever; less than the current call:
 * it is not quiet). */
long pat_state_quiet_through(const pat_state *ps, double bytes);

/* ---- the model fit (pat/fit.c, no MPI) ---------------------------------- */

/* Of each kind of sample, the fit uses at most this many (the last ones);
 * the PAT layer's window holds as many. */
#define PAT_FIT_MAX_SAMPLES 64
/* Samples whose sizes all lie within this factor are one size. */
#define PAT_FIT_MIN_SPREAD 2.0

/* y = c0 + c1 x by least squares weighted 1/y^2 (relative residuals), with
 * w as n entries of work space; writes the weighted R^2 to r2 unless NULL.
 * Needs n >= 2, two distinct x and every y finite and != 0.  PAT_SUCCESS
 * or PAT_ERR_INVALID_ARG (nothing fitted). */
int pat_fit_line(const double *x, const double *y, double *w, size_t n,
                 double *c0, double *c1, double *r2);

/* Fits the model to nt transfer samples (a message of bytes_t[i] took
 * sec_t[i]) and nc combine samples (see pat/fit.c for the method and the
 * one-size rule).  latency: the alpha taken where the fitted one is <= 0
 * (the samples did not resolve it; 0, or not finite: keep 0).  Returns 1
 * and writes *out, or 0 (out untouched) when the samples give no model:
 * no usable transfer sample, or (latency 0) every fitted value <= 0.
 * Deterministic: the same inputs give the same bits. */
int pat_fit_model(const double *bytes_t, const double *sec_t, int nt,
                  const double *bytes_c, const double *sec_c, int nc,
                  double latency, pat_model *out);

/* Whether MPI_WTIME_IS_GLOBAL is set (every rank's PMPI_Wtime is one
 * clock: SMPI's) into *global; an MPI error code. */
int pat_clock_global(int *global);

/* Ping-pong clock offset estimation on comm with tag (pat/clock.c). */
int pat_clock_sync(MPI_Comm comm, int tag, int rounds, double *offset,
                   double *bound);

#endif /* PAT_LAYER_H */
