/*
 * auto's decision without MPI (auto.c): what the row runs per call, from
 * the call's parameters, the predicted arrivals and the real arrivals of
 * earlier calls; the unit tests drive it with made-up sequences.
 */
#ifndef PAT_AUTO_H
#define PAT_AUTO_H

#include "core/pat_internal.h"

typedef struct pat_auto pat_auto;

/* Settled and using no prediction, the exchange's interval stretches
 * past PAT_EXCHANGE_MAX_EVERY calls (up to PAT_AUTO_MAX_APART) while
 * the calls come apart, and past PAT_AUTO_MAX_APART (up to
 * PAT_EXCHANGE_MAX_PACED) while they come back to back, as long as that
 * many calls take at most this many seconds by their periods (exit to
 * exit, the work between calls included): a change of arrivals is seen
 * within PAT_EXCHANGE_MAX_EVERY calls (back to back PAT_AUTO_MAX_APART)
 * or this time, whichever is longer (auto.c, "Pace"). */
#define PAT_AUTO_REACT 64e-3
#define PAT_AUTO_MAX_APART 1024
/* Stretched at an automatic interval of every call, the calls exchanged
 * at once after an observed call whose predicted arrivals missed (a
 * look, auto.c "Pace"): enough for the PAT layer's cycle predictor to
 * see each phase of a cycle of up to 4 calls twice. */
#define PAT_AUTO_LOOK 8
_Static_assert(PAT_AUTO_MAX_APART >= PAT_EXCHANGE_MAX_EVERY &&
                   PAT_AUTO_MAX_APART <= PAT_EXCHANGE_MAX_PACED,
               "the pace apart lies between the automatic interval's "
               "longest and the longest a pace may set");

pat_auto *pat_auto_alloc(int nranks); /* NULL when out of memory */
void pat_auto_free(pat_auto *a);      /* accepts NULL */

/* One call's choice.  params: the call (nranks as allocated), the cost
 * model and the predicted arrivals (NULL: none); props: what the call
 * needs.  call: this call's index (-1: none, never scored); exchanged: 1
 * if its real arrivals will be known (observed) and its realized time
 * too, so that it can be scored and a trial can start on it; observed:
 * the real arrivals of call observed_call (NULL: none new).  Writes 1 to
 * *switched when this call turned the use of predictions off or back on. */
pat_reduce_alg pat_auto_decide(pat_auto *a, const pat_sched_params *params,
                               const pat_call_props *props, long call,
                               int exchanged, const double *observed,
                               long observed_call, int *switched);

/* The real arrivals of call, once exchanged: scores its decision if it
 * is kept and not scored yet (pat_auto_decide's observed does the same,
 * with the idle time not known).  idle: the ranks' median idle time
 * before the call (pat_state_idle_nth; NAN: not known, taken as the calls
 * have come lately); below PAT_AUTO_IDLE the call came back to back
 * (auto.c, "Back to back"). */
void pat_auto_observed(pat_auto *a, const double *actual, long call,
                       double idle);

/* The realized time of call (the latest exit less the earliest arrival,
 * from exchanged stamps, alike on every rank), once it is known, over the
 * estimate of the row that ran it (under the call's real arrivals).  A
 * row that does not plan with arrivals adds that ratio to the machine's
 * factor (what every row pays beyond its model: the stamp exchange, skew;
 * it ranks no row above another); a row that plans with arrivals
 * (clairvoyant) adds the ratio over that factor to its correction.  Both
 * are running geometric means (weight 1/4, ratios clamped to 1/4..4); auto
 * multiplies a planning row's estimates by its correction, which fades
 * towards 1 (1/32 of its log per measured call) while the row does not
 * run.  Only a call pat_auto_decide scored counts.  The rows that do not
 * plan also keep their last realized times, which the measuring of rows
 * (auto.c, "Measured rows") compares when the model ranks them wrong.
 * While rows are measured and the calls come back to back, only there,
 * by runs: a row's consecutive calls from one that came apart, each
 * later one adding intervals[root] (each rank's exit-to-exit time,
 * pat_state_intervals_nth; NULL: none), their time per call the sample. */
void pat_auto_realized(pat_auto *a, long call, double seconds,
                       const double *intervals);

/* A row's current correction (1 until one of its calls was measured). */
double pat_auto_correction(const pat_auto *a, pat_reduce_alg alg);

/* Where a costly estimate (a row with a bound: clairvoyant's plan) comes
 * from: the schedule the call will run, built through the communicator's
 * cache (by default, without a planner: built for rank 0 and freed).
 * Returns the modeled time after the earliest arrival, and in *replay a
 * reference to the schedule's replay (NULL if it has none), with which
 * auto scores the plan once the real arrivals are known. */
typedef double (*pat_auto_planner)(void *ctx, pat_reduce_alg alg,
                                   const pat_sched_params *params,
                                   pat_replay **replay);
void pat_auto_set_planner(pat_auto *a, pat_auto_planner planner, void *ctx);

/* 1 if the last decision put the measured rows' corrections in force
 * (the model ranked the rows wrong on this machine), 2 if it found the
 * model right (its pick and binomial ran as modeled), else 0. */
int pat_auto_settled(const pat_auto *a);

/* 1 while auto chooses without the predictions. */
int pat_auto_blind(const pat_auto *a);

/* One line (no newline) on what the last decision read, for its size
 * class: the phase of measuring the rows, whether the predictions are
 * used, the aware and blind choices, a trial pending, the trusted plan,
 * the absorbing row, the predictions' cycle, the exchange's lag and pace,
 * and the last scores (PAT_REDUCE_VERBOSE=3 prints it per call, rank 0).
 * Writes at most len bytes, NUL included; returns the length the whole
 * line has (snprintf's count: len or more if cut), -1 without a buffer. */
int pat_auto_describe(const pat_auto *a, char *buf, size_t len);

/* The cycle, in calls, that the predictions of the next calls follow
 * (pat_predictor_cycle; 1, the default: none).  While there is one, every
 * call makes its aware choice (none is skimmed: see "Cost per call"). */
void pat_auto_set_cycle(pat_auto *a, int cycle);

/* The longest lag of the PAT layer's exchanges so far (pat_state_lag):
 * auto keeps as many decisions waiting as that lag needs, and at least
 * as many as the lags of the calls it decided (pat_exchange_lag). */
void pat_auto_set_lag(pat_auto *a, int lag);

/* The pace the last decision asks of the PAT layer's exchange
 * (pat_state_pace) for the calls of the decided call's size class: the
 * factor on its automatic interval, and the call that should exchange
 * whatever the interval (-1: none; the next call, of whatever size or
 * row: one asked for its realized time carries it all the same). */
void pat_auto_pace(const pat_auto *a, int *stretch, long *soon);

/* Quiet calls (auto.c): a call that is not exchanged, after two that
 * decided alike from the same inputs and state with nothing heard since,
 * is served their row without deciding.  pat_auto_set_quiet(a, 0)
 * decides every call in full (the tests' reference); quiet_calls: the
 * calls auto served so (not those the dispatcher served from its record
 * of a standing pick without asking: dispatch.c). */
void pat_auto_set_quiet(pat_auto *a, int on);

/* The same asked before the call is decided (the dispatcher, where the
 * PAT layer has nothing to do at the call): 1 with the row in *chosen when
 * the last pick stands for params (its predicted arrivals included) and
 * is a row that does not plan with arrivals, and in *through the last call
 * it stands for without auto being asked again, if the call's parameters
 * repeat and nothing is heard (call itself while a quiet call still
 * keeps another predicted spread; else LONG_MAX); else 0, and the call
 * is decided (pat_auto_decide). */
int pat_auto_standing(pat_auto *a, const pat_sched_params *params,
                      const pat_call_props *props, long call,
                      pat_reduce_alg *chosen, long *through);
unsigned long pat_auto_quiet_calls(const pat_auto *a);

/* The auto state of a communicator (NULL before auto's first call there),
 * for the tests that look at it under MPI. */
pat_auto *pat_auto_of(pat_comm_state *st);

#endif /* PAT_AUTO_H */
