/*
 * The PAT layer (process arrival times) for advanced users and tests:
 * predictors of the next call's arrival pattern, the round-cost model and
 * clock-offset estimation.  pat_reduce() drives all of this itself.
 */
#ifndef PAT_PAT_H
#define PAT_PAT_H

#include <stdio.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- predictors --------------------------------------------------------- */

/* A predictor sees the arrival times of past calls and predicts the next
 * call's.  Patterns are relative: a prediction's earliest rank is at 0.
 * With no history it predicts a balanced pattern (all 0). */
typedef struct pat_predictor pat_predictor;

/* spec: a predictor type's name, or name:X for one that takes a
 * parameter, case-insensitive: "sma" or "sma:W" (simple moving average of
 * the last W patterns, default 5), "last", "ema:A" (exponential moving
 * average, default 0.5), "trend:W" (per rank, a line through its last W
 * arrivals, default 8), "best" (of sma:5, ema:0.5, trend:8 and last, the
 * one with the smallest recent error), "cycle:W" (sma:W, or where the
 * arrivals repeat every q = 2 to 4 calls, the mean of the patterns in the
 * predicted call's phase among the last max(W, 2q) observed; default 5);
 * pat_predictor_specs lists them.
 * Returns a pat_reduce_error; PAT_ERR_BAD_ENV for a bad spec, with a
 * message listing the valid ones in why (if not NULL). */
int pat_predictor_alloc(const char *spec, int nranks, pat_predictor **out,
                        char *why, size_t whylen);
void pat_predictor_free(pat_predictor *pred); /* accepts NULL */

/* Feeds one call's arrival times (nranks entries, any common origin):
 * the call after the last one observed. */
int pat_predictor_observe(pat_predictor *pred, const double *arrivals);

/* The same for call number call, which must come after every call
 * observed before (calls between that are not observed are not known):
 * PAT_ERR_INVALID_ARG otherwise. */
int pat_predictor_observe_at(pat_predictor *pred, const double *arrivals,
                             long call);

/* Writes the predicted relative arrival times (nranks entries) of the
 * call after the last one observed. */
int pat_predictor_predict(const pat_predictor *pred, double *out);

/* The same for call number call, after the last one observed
 * (PAT_ERR_INVALID_ARG otherwise). */
int pat_predictor_predict_for(const pat_predictor *pred, long call,
                              double *out);

/* The cycle, in calls, that the predictions now follow: they depend on
 * the call only through call modulo it; 1 where they do not depend on
 * the call (every type but cycle, and cycle where the arrivals do not
 * repeat). */
int pat_predictor_cycle(const pat_predictor *pred);

/* Calls observed so far. */
long pat_predictor_observed(const pat_predictor *pred);

/* The spec of the predictor that makes pred's next prediction: its own
 * type's name, or for "best" the member it chose ("ema:0.5"). */
const char *pat_predictor_choice(const pat_predictor *pred);

/* The predictor table: type i's name and description (NULL past the
 * end), and every valid spec written into buf ("sma, sma:W (W in
 * 1..100000 calls), last, ..."). */
const char *pat_predictor_type_name(int i);
const char *pat_predictor_type_description(int i);
void pat_predictor_specs(char *buf, size_t len);

/* ---- cost model -----------------------------------------------------------
 */

/* The cost of one round, receive + combine of m bytes:
 * d(m) = alpha + m (beta + gamma). */
typedef struct pat_model {
  double alpha; /* seconds per message */
  double beta;  /* seconds per byte moved */
  double gamma; /* seconds per byte combined */
} pat_model;

double pat_model_round_cost(const pat_model *model, double bytes);

/* Model files are text: "alpha = <s>", "beta = <s/B>", "gamma = <s/B>"
 * lines, "#" comments, blank lines; all three keys exactly once, values
 * finite and >= 0, not all 0.  Returns a pat_reduce_error (PAT_ERR_BAD_ENV with
 * the file, line number and reason in why for a bad file). */
int pat_model_read(const char *path, pat_model *model, char *why,
                   size_t whylen);
int pat_model_write(FILE *out, const pat_model *model);

/* The model the configuration gives (PAT_REDUCE_ROUND_COST c as {c, 0, 0},
 * else PAT_REDUCE_MODEL's file): 1 and *model (if not NULL), or 0 if it
 * gives none, in which case calls told arrival times with round_cost <= 0
 * need the PAT layer's measured one. */
int pat_model_configured(pat_model *model);

/* ---- the stamp exchange -------------------------------------------------
 */

/* The calls between the start of a stamp exchange in a call of bytes per
 * rank on a communicator of nranks ranks and its use, under model:
 * PAT_REDUCE_EXCHANGE_LAG, or when that is 0 (automatic) the calls its
 * ceil(log2 nranks) rounds need, at least 1.  A round goes out once the
 * round before came in, which a rank checks at a call's start and end
 * (pat/pat.c): two rounds a call, ceil(ceil(log2 nranks) / 2) calls,
 * where the ranks take a while in a call.  Where a round costs under
 * PAT_EXCHANGE_SMALL_ALPHAS latencies the leaves of a tree send and
 * leave as they arrive, one check, and the lag is ceil(log2 nranks)
 * (SMPI, P = 64, 8 B, localredirect under auto, balanced: with a lag of
 * 3, 48 of the 64 ranks waited 6-9 us for the exchange at its due call's
 * start, half a call, and came late to the reduction; with 6, none). */
int pat_exchange_lag(const pat_model *model, double bytes, int nranks);

/* Every how many calls a call of bytes per rank on a communicator of
 * nranks ranks starts a stamp exchange under model:
 * PAT_REDUCE_EXCHANGE_INTERVAL, or when that is auto the larger of
 *  - PAT_EXCHANGE_SMALL_EVERY when the message's round cost is under
 *    PAT_EXCHANGE_SMALL_ALPHAS latencies, else 1 (for such messages the
 *    exchange's ceil(log2 P) messages cost as much as the reduction: half
 *    of an 8 B reduction at P = 64 in SMPI when every call exchanged), and
 *  - the least power of two such that the wire time of the records a rank
 *    receives per exchange ((nranks - 1) of PAT_EXCHANGE_RECORD_BYTES,
 *    times beta), spread over that many calls, is at most
 *    1/PAT_EXCHANGE_SHARE of the round cost (SMPI, 64 KiB, exchanging
 *    every call: auto 1.06x radixk balanced at P = 256, 1.22x at
 *    P = 1024, where the records are 8 and 32 KiB; every 4th call at
 *    P = 256: 1.01x), once the records are at least
 *    PAT_EXCHANGE_WIRE_BYTES (below, their latency, which the first rule
 *    weighs, is their cost, and a model fitted from tiny messages alone
 *    can put almost all of it in beta: at P = 3 that made the interval
 *    64, and the predictions nearly never changed),
 * at most PAT_EXCHANGE_MAX_EVERY.  A call exchanges when its index is a
 * multiple; 0: never.  (While the PAT layer has no model, which it fits
 * from exchanged measurements, auto exchanges every call.) */
#define PAT_EXCHANGE_SMALL_ALPHAS 10
#define PAT_EXCHANGE_SMALL_EVERY 8
#define PAT_EXCHANGE_RECORD_BYTES 32
#define PAT_EXCHANGE_SHARE 16
#define PAT_EXCHANGE_WIRE_BYTES 4096
#define PAT_EXCHANGE_MAX_EVERY 64
/* The longest interval a client's pace may set (pat_state_pace): auto
 * keeps to PAT_EXCHANGE_MAX_EVERY but, up to 1024 (PAT_AUTO_MAX_APART),
 * while that many of its calls take at most its reaction time, exit to
 * exit (auto.c, "Pace"), and further where the calls come back to back
 * (auto.c, "Back to back"), where each exchange makes the ranks ahead
 * wait for the root (8 ranks on 2 cores, 4 B: 100-200 us of the root's
 * time per exchange, against 0.2-1.5 us a call: every 1024th call cost
 * auto 8-15% there), again while that many calls take at most its
 * reaction time. */
#define PAT_EXCHANGE_MAX_PACED 16384
_Static_assert(PAT_EXCHANGE_MAX_PACED >= PAT_EXCHANGE_MAX_EVERY,
               "a pace may stretch as far as the automatic interval goes");
int pat_exchange_interval(const pat_model *model, double bytes, int nranks);
/* 1 if the records a rank receives per exchange at nranks ranks make at
 * least PAT_EXCHANGE_WIRE_BYTES, where pat_exchange_interval may spread
 * them over calls (P > 128). */
int pat_exchange_on_wire(int nranks);

/* ---- clocks ----------------------------------------------------------------
 */

/* Estimates, collectively over comm, each rank's clock offset to rank 0:
 * rank 0 ping-pongs with every rank `rounds` times and keeps the sample
 * with the least round-trip time (as SKaMPI and ReproMPI do).  Writes the
 * offset to add to this rank's clock (0 at rank 0) and, if bound is not
 * NULL, the bound on its error: half that round trip.  Where
 * MPI_WTIME_IS_GLOBAL is set (SMPI), 0 and 0 without a message.  MPI
 * error code. */
int pat_clock_estimate_offset(MPI_Comm comm, int rounds, double *offset,
                              double *bound);

/* This process's clock as the PAT layer reads it: PMPI_Wtime() plus the
 * debug skew below. */
double pat_clock_local(void);

/* Debug hook for tests: adds skew seconds to this process's clock. */
void pat_clock_debug_skew(double skew);

#ifdef __cplusplus
}
#endif

#endif /* PAT_PAT_H */
