/*
 * Predictors of the next call's arrival pattern, behind a small vtable:
 * one row per predictor type with its name, its parameter (if it takes
 * one: its meaning, default and range) and its observe / predict
 * functions.  Adding a predictor is one row and two functions.  Patterns
 * are stored relative to their earliest rank.  Every rank feeds the same
 * exchanged data in the same order, so every rank predicts the same bits.
 *
 *   sma:W    simple moving average of the last W patterns (thesis 3.7)
 *   last     the last pattern
 *   ema:A    exponential moving average, new = old + A (pattern - old):
 *            a long memory at small A, the last pattern at A = 1
 *   trend:W  per rank, the least-squares line through its last W arrival
 *            times (GSL), extrapolated one call: no lag behind a drift,
 *            at the price of more noise than an average
 *   best     sma:5, ema:0.5, trend:8 and last side by side; each call
 *            scores each on the pattern that arrived (mean absolute error
 *            over the ranks, smoothed over calls with factor 1/4) and
 *            predicts with the best so far (the first in that order on a
 *            tie): the steady scene gets an average, a drifting one the
 *            trend or the last pattern
 *   cycle:W  sma:W, unless the arrivals repeat with a cycle of 2 to
 *            CYCLE_MAX calls (two phases of a code that alternate, a
 *            rank late every other call): then the mean of the patterns
 *            in the predicted call's phase of the cycle among the last
 *            max(W, 2 q) observed (q the cycle's length: about the calls
 *            sma:W spans, so that a change of pattern passes as fast).
 *            Each observed pattern scores sma:W and every length q on
 *            it (what each would have predicted for it from the patterns
 *            before; mean absolute error over the ranks); a length wins
 *            once it predicted each of the last max(CYCLE_SCORES, q)
 *            patterns with under CYCLE_GAIN of sma's error on the same
 *            pattern (of those that win, the least error, the shorter on
 *            a tie).  One odd pattern (a blip) in arrivals that repeat
 *            exactly is in sma's window for W calls but in q's phase
 *            every q-th call only, so q can be exact while sma is not
 *            on at most q - 1 patterns in a row: the streak asked of q
 *            is at least q (with CYCLE_SCORES alone, q = 4 won 3 calls
 *            after a blip and mispredicted the 4th: 4x sma's error).
 *            Judged pattern by pattern, a change of pattern, where both
 *            miss, makes no cycle; where arrivals do not cycle (a
 *            constant pattern, noise, a drift) no length wins and cycle
 *            predicts sma:W's bits.  The default.
 *
 * Calls.  A pattern is observed with its call's index and a prediction
 * is made for a call's index (pat_predictor_observe_at,
 * pat_predictor_predict_for; the PAT layer passes its own, as only every
 * k-th call is exchanged and the data of call k is observed L calls
 * later); without them, calls are taken as consecutive and the
 * prediction as the next one's.  Only cycle reads them: a prediction
 * depends on the call only through its phase, pat_predictor_cycle.
 *
 * Cost per call: O(P) for sma (O(P W) to predict), last and ema; O(P W)
 * for trend; the sum of its members for best; O(P (W + 2 CYCLE_MAX))
 * per length to observe for cycle, O(P W) to predict.  Memory: W
 * patterns of P doubles for sma and trend, one for last and ema,
 * max(W, 2 CYCLE_MAX) for cycle.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_fit.h>

#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"

typedef struct pat_predictor_type {
  const char *name;
  /* its parameter name:X: X's letter, or NULL if it takes none; the
   * unit of X; default and range */
  const char *param, *unit;
  double param_default, param_min, param_max;
  int integer; /* X is a whole number (a window of calls) */
  /* patterns of nranks kept: k > 0 that many, 0 as many as the
   * parameter says, -k that many but at least k */
  int keep;
  /* stores a relative pattern of call (pred->observed counts those
   * before it) */
  void (*observe)(pat_predictor *pred, const double *relative, long call);
  /* writes the prediction for call (before normalisation to a 0
   * minimum) */
  void (*predict)(const pat_predictor *pred, long call, double *out);
  const char *description;
} pat_predictor_type;

/* best's members, in tie-break order */
static const char *const best_members[] = {"sma:5", "ema:0.5", "trend:8",
                                           "last"};
enum { NMEMBERS = sizeof best_members / sizeof best_members[0] };
#define BEST_SMOOTHING 0.25

/* cycle: the longest cycle looked for (calls), the share of sma's error
 * a cycle's must be under, on each of the last CYCLE_SCORES patterns
 * (q's on the last q, if more: cycle_streak), and the scores kept */
#define CYCLE_MAX 4
#define CYCLE_GAIN 0.5
#define CYCLE_SCORES 3
#define CYCLE_KEPT (CYCLE_MAX > CYCLE_SCORES ? CYCLE_MAX : CYCLE_SCORES)
_Static_assert(CYCLE_MAX == 4, "cycle's description says 2 to 4 calls");

struct pat_predictor {
  const pat_predictor_type *type;
  int nranks, window; /* window: patterns the ring holds */
  double param;
  long observed;
  double *ring;    /* window patterns of nranks, oldest overwritten */
  double *scratch; /* nranks: the pattern being observed */
  double *fit;     /* trend: 2 window (times and values of one rank) */
  /* best: its members, their smoothed errors, a prediction's room */
  pat_predictor *member[NMEMBERS];
  double error[NMEMBERS];
  double *guess;
  /* the calls of the ring's patterns, and the last one observed */
  long *call_of;
  long last_call;
  /* cycle: the errors of sma ([1]) and of each cycle length q ([q]) on
   * the last CYCLE_KEPT patterns (a ring), and the patterns scored */
  double cscore[CYCLE_MAX + 1][CYCLE_KEPT];
  long cscored;
};

static double *slot(const pat_predictor *p, long k) {
  return p->ring + (size_t)(k % p->window) * (size_t)p->nranks;
}

static void ring_observe(pat_predictor *p, const double *relative, long call) {
  (void)call; /* kept by pat_predictor_observe_at */
  memcpy(slot(p, p->observed), relative, (size_t)p->nranks * sizeof *relative);
}

/* The mean of the last n observed patterns. */
static void mean_last(const pat_predictor *p, long n, double *out) {
  n = n < p->observed ? n : p->observed;
  for (int r = 0; r < p->nranks; r++) {
    double sum = 0;
    /* oldest first, always in the same order: identical bits everywhere */
    for (long k = p->observed - n; k < p->observed; k++)
      sum += slot(p, k)[r];
    out[r] = n > 0 ? sum / (double)n : 0.0;
  }
}

static void sma_predict(const pat_predictor *p, long call, double *out) {
  (void)call;
  mean_last(p, p->window, out);
}

static void last_predict(const pat_predictor *p, long call, double *out) {
  (void)call;
  for (int r = 0; r < p->nranks; r++)
    out[r] = p->observed > 0 ? slot(p, p->observed - 1)[r] : 0.0;
}

/* The ring's one pattern is the running average. */
static void ema_observe(pat_predictor *p, const double *relative, long call) {
  double *avg = p->ring;
  (void)call;
  for (int r = 0; r < p->nranks; r++)
    avg[r] = p->observed == 0 ? relative[r]
                              : avg[r] + p->param * (relative[r] - avg[r]);
}

static void ema_predict(const pat_predictor *p, long call, double *out) {
  (void)call;
  for (int r = 0; r < p->nranks; r++)
    out[r] = p->observed > 0 ? p->ring[r] : 0.0;
}

static void trend_predict(const pat_predictor *p, long call, double *out) {
  long n = p->observed < p->window ? p->observed : p->window;
  double *t = p->fit, *y = p->fit + p->window;
  (void)call; /* one observed call ahead */
  for (long k = 0; k < n; k++)
    t[k] = (double)k;
  for (int r = 0; r < p->nranks; r++) {
    double c0 = 0, c1 = 0, cov00, cov01, cov11, sumsq;
    for (long k = 0; k < n; k++)
      y[k] = slot(p, p->observed - n + k)[r];
    if (n >= 2)
      gsl_fit_linear(t, 1, y, 1, (size_t)n, &c0, &c1, &cov00, &cov01, &cov11,
                     &sumsq);
    out[r] = n >= 2 ? c0 + c1 * (double)n : n == 1 ? y[0] : 0.0;
  }
}

/* Normalised to a 0 minimum, as pat_predictor_predict returns it. */
static void relative_of(double *x, int n) {
  double first = INFINITY;
  for (int r = 0; r < n; r++)
    first = x[r] < first ? x[r] : first;
  for (int r = 0; r < n; r++)
    x[r] -= first;
}

/* The mean absolute error over the ranks of guess (made relative here)
 * on the relative pattern that arrived. */
static double error_of(double *guess, const double *relative, int n) {
  double err = 0;
  relative_of(guess, n);
  for (int r = 0; r < n; r++)
    err += fabs(guess[r] - relative[r]);
  return err / n;
}

/* A smoothed error: the first score as it is, then each moves it by
 * BEST_SMOOTHING of the way. */
static double smooth(double old, double err, long scored) {
  return scored == 0 ? err : old + BEST_SMOOTHING * (err - old);
}

/* Scores every member on the pattern that arrived, then feeds it. */
static void best_observe(pat_predictor *p, const double *relative, long call) {
  for (int m = 0; m < NMEMBERS; m++) {
    double err;
    p->member[m]->type->predict(p->member[m], call, p->guess);
    err = error_of(p->guess, relative, p->nranks);
    if (p->observed > 0) /* the first call scores nothing: no history */
      p->error[m] = smooth(p->error[m], err, p->observed - 1);
    pat_predictor_observe_at(p->member[m], relative, call);
  }
}

/* The member with the smallest smoothed error (the first on a tie). */
static int best_member(const pat_predictor *p) {
  int m = 0;
  for (int i = 1; i < NMEMBERS; i++)
    if (p->error[i] < p->error[m])
      m = i;
  return m;
}

static void best_predict(const pat_predictor *p, long call, double *out) {
  const pat_predictor *m = p->member[best_member(p)];
  m->type->predict(m, call, out);
}

/* cycle: the patterns of call's phase in a cycle of q calls among the
 * last max(W, 2 q) observed (W = param: about as many calls as sma:W
 * averages, so that a change of pattern passes as fast), averaged
 * (newest first, a fixed order: the same bits everywhere); 0 if there
 * are none. */
static int mean_in_phase(const pat_predictor *p, int q, long call,
                         double *out) {
  long span = (long)p->param > 2 * q ? (long)p->param : 2 * q;
  long oldest = p->observed > span ? p->observed - span : 0;
  int n = 0;
  for (int r = 0; r < p->nranks; r++)
    out[r] = 0;
  for (long k = p->observed - 1; k >= oldest; k--) {
    long back = call - p->call_of[k % p->window];
    if (back > 0 && back % q == 0) {
      const double *x = slot(p, k);
      for (int r = 0; r < p->nranks; r++)
        out[r] += x[r];
      n++;
    }
  }
  for (int r = 0; n > 0 && r < p->nranks; r++)
    out[r] /= n;
  return n;
}

/* The patterns in a row cycle length q must predict better than sma to
 * win: CYCLE_SCORES, and at least q (a blip: see the header). */
static int cycle_streak(int q) { return q > CYCLE_SCORES ? q : CYCLE_SCORES; }

/* Whether cycle length q predicted each of the last cycle_streak(q)
 * patterns with under CYCLE_GAIN of sma's error on it; its mean error
 * over the last CYCLE_SCORES of them in *err (the same count for every
 * length, so that the lengths compare). */
static int cycle_wins(const pat_predictor *p, int q, double *err) {
  int n = cycle_streak(q);
  int wins = p->cscored >= n;
  *err = 0;
  for (int i = 0; wins && i < n; i++) {
    int j = (int)((p->cscored - 1 - i) % CYCLE_KEPT);
    wins = p->cscore[q][j] < CYCLE_GAIN * p->cscore[1][j];
    if (i < CYCLE_SCORES)
      *err += p->cscore[q][j];
  }
  return wins;
}

/* The cycle length cycle's next prediction follows: of the lengths that
 * win (cycle_wins), the one with the least error, the shorter on a tie;
 * 1 (sma) if none. */
static int cycle_length(const pat_predictor *p) {
  int best = 1;
  double least = INFINITY, e;
  for (int q = 2; q <= CYCLE_MAX; q++)
    if (cycle_wins(p, q, &e) && e < least) {
      best = q;
      least = e;
    }
  return best;
}

/* Scores sma:W and every cycle length on the pattern that arrived (what
 * each would have predicted for it from the patterns before; NAN for a
 * length with no pattern of its phase), then stores it. */
static void cycle_observe(pat_predictor *p, const double *relative, long call) {
  if (p->observed > 0) {
    int j = (int)(p->cscored++ % CYCLE_KEPT);
    mean_last(p, (long)p->param, p->guess);
    p->cscore[1][j] = error_of(p->guess, relative, p->nranks);
    for (int q = 2; q <= CYCLE_MAX; q++)
      p->cscore[q][j] = mean_in_phase(p, q, call, p->guess) > 0
                            ? error_of(p->guess, relative, p->nranks)
                            : NAN;
  }
  ring_observe(p, relative, call);
}

static void cycle_predict(const pat_predictor *p, long call, double *out) {
  int q = cycle_length(p);
  if (q == 1 || mean_in_phase(p, q, call, out) == 0)
    mean_last(p, (long)p->param, out);
}

static const pat_predictor_type pat_predictor_types[] = {
    {"sma", "W", " calls", 5, 1, 100000, 1, 0, ring_observe, sma_predict,
     "simple moving average of the last W patterns (thesis 3.7)"},
    {"last", NULL, NULL, 0, 0, 0, 0, 1, ring_observe, last_predict,
     "the last pattern"},
    {"ema", "A", "", 0.5, 0.001, 1, 0, 1, ema_observe, ema_predict,
     "exponential moving average: each pattern weighs A, the past 1 - A"},
    {"trend", "W", " calls", 8, 2, 100000, 1, 0, ring_observe, trend_predict,
     "per rank, the least-squares line through its last W arrivals, one "
     "call ahead (follows a drift)"},
    {"best", NULL, NULL, 0, 0, 0, 0, 1, best_observe, best_predict,
     "sma:5, ema:0.5, trend:8 and last side by side; predicts with the one "
     "whose recent predictions were closest"},
    {"cycle", "W", " calls", 5, 1, 100000, 1, -2 * CYCLE_MAX, cycle_observe,
     cycle_predict,
     "sma:W, or where the arrivals repeat every 2 to 4 calls (q), the "
     "mean of the patterns in the predicted call's phase among the last "
     "max(W, 2q)"},
    {NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL}};
enum {
  NTYPES = sizeof pat_predictor_types / sizeof pat_predictor_types[0] - 1
};
_Static_assert(NTYPES >= 1, "at least one predictor");

const char *pat_predictor_type_name(int i) {
  return i >= 0 && i < NTYPES ? pat_predictor_types[i].name : NULL;
}

const char *pat_predictor_type_description(int i) {
  return i >= 0 && i < NTYPES ? pat_predictor_types[i].description : NULL;
}

void pat_predictor_specs(char *buf, size_t len) {
  size_t used = 0;
  if (len == 0)
    return;
  buf[0] = '\0';
  for (int i = 0; i < NTYPES && used < len; i++) {
    const pat_predictor_type *t = &pat_predictor_types[i];
    int n =
        t->param == NULL
            ? snprintf(buf + used, len - used, "%s%s", i ? ", " : "", t->name)
            : snprintf(buf + used, len - used, "%s%s, %s:%s (%s in %g..%g%s)",
                       i ? ", " : "", t->name, t->name, t->param, t->param,
                       t->param_min, t->param_max, t->unit);
    if (n < 0)
      break;
    used += (size_t)n;
  }
}

/* "name" or "name:X" for a type that takes a parameter. */
static int parse(const char *spec, const pat_predictor_type **type,
                 double *param) {
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  int ok = 0;
  for (int i = 0; i < NTYPES && !ok; i++) {
    if (strlen(pat_predictor_types[i].name) == n &&
        strncasecmp(spec, pat_predictor_types[i].name, n) == 0) {
      *type = &pat_predictor_types[i];
      *param = pat_predictor_types[i].param_default;
      ok = 1;
    }
  }
  if (ok && colon != NULL) {
    const pat_predictor_type *t = *type;
    char *end = NULL;
    double x = isdigit((unsigned char)colon[1]) || colon[1] == '.'
                   ? strtod(colon + 1, &end)
                   : NAN;
    ok = t->param != NULL && end != NULL && *end == '\0' && x >= t->param_min &&
         x <= t->param_max && (!t->integer || x == floor(x));
    *param = x;
  }
  return ok;
}

int pat_predictor_alloc(const char *spec, int nranks, pat_predictor **out,
                        char *why, size_t whylen) {
  const pat_predictor_type *type = NULL;
  pat_predictor *p = NULL;
  double param = 0;
  int err = PAT_SUCCESS, ok;
  if (out == NULL || nranks < 1) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  if (spec == NULL || !parse(spec, &type, &param)) {
    char valid[400];
    pat_predictor_specs(valid, sizeof valid);
    if (why != NULL && whylen > 0)
      snprintf(why, whylen,
               "PAT_REDUCE_PREDICTOR=%s is not a predictor; valid: %s",
               spec ? spec : "(null)", valid);
    err = PAT_ERR_BAD_ENV;
    goto out;
  }
  p = calloc(1, sizeof *p);
  if (p == NULL) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  p->type = type;
  p->nranks = nranks;
  p->param = param;
  p->window = type->keep > 0 ? type->keep : (int)param;
  if (type->keep < 0 && p->window < -type->keep)
    p->window = -type->keep;
  p->ring = calloc((size_t)p->window * (size_t)nranks, sizeof *p->ring);
  p->scratch = calloc((size_t)nranks, sizeof *p->scratch);
  p->call_of = calloc((size_t)p->window, sizeof *p->call_of);
  p->last_call = -1;
  ok = p->ring != NULL && p->scratch != NULL && p->call_of != NULL;
  if (ok && type->predict == cycle_predict)
    ok = (p->guess = calloc((size_t)nranks, sizeof *p->guess)) != NULL;
  if (ok && type->predict == trend_predict)
    ok = (p->fit = calloc(2 * (size_t)p->window, sizeof *p->fit)) != NULL;
  if (ok && type->predict == best_predict) {
    ok = (p->guess = calloc((size_t)nranks, sizeof *p->guess)) != NULL;
    for (int m = 0; m < NMEMBERS && ok; m++)
      ok = pat_predictor_alloc(best_members[m], nranks, &p->member[m], NULL,
                               0) == PAT_SUCCESS;
  }
  if (!ok) {
    pat_predictor_free(p);
    p = NULL;
    err = PAT_ERR_NO_MEMORY;
  }
out:
  if (out != NULL)
    *out = p;
  return err;
}

void pat_predictor_free(pat_predictor *pred) {
  if (pred != NULL) {
    for (int m = 0; m < NMEMBERS; m++)
      pat_predictor_free(pred->member[m]);
    free(pred->ring);
    free(pred->scratch);
    free(pred->fit);
    free(pred->guess);
    free(pred->call_of);
    free(pred);
  }
}

int pat_predictor_observe_at(pat_predictor *pred, const double *arrivals,
                             long call) {
  double first = INFINITY;
  int err = PAT_SUCCESS;
  if (pred == NULL || arrivals == NULL || call <= pred->last_call) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  for (int r = 0; r < pred->nranks; r++) {
    if (!isfinite(arrivals[r])) {
      err = PAT_ERR_INVALID_ARG;
      goto out;
    }
    first = arrivals[r] < first ? arrivals[r] : first;
  }
  for (int r = 0; r < pred->nranks; r++)
    pred->scratch[r] = arrivals[r] - first;
  pred->type->observe(pred, pred->scratch, call);
  pred->call_of[pred->observed % pred->window] = call;
  pred->last_call = call;
  pred->observed++;
out:
  return err;
}

int pat_predictor_observe(pat_predictor *pred, const double *arrivals) {
  return pat_predictor_observe_at(pred, arrivals,
                                  pred != NULL ? pred->last_call + 1 : 0);
}

int pat_predictor_predict_for(const pat_predictor *pred, long call,
                              double *out) {
  if (pred == NULL || out == NULL || call <= pred->last_call)
    return PAT_ERR_INVALID_ARG;
  pred->type->predict(pred, call, out);
  relative_of(out, pred->nranks);
  return PAT_SUCCESS;
}

int pat_predictor_predict(const pat_predictor *pred, double *out) {
  return pat_predictor_predict_for(pred, pred != NULL ? pred->last_call + 1 : 0,
                                   out);
}

int pat_predictor_cycle(const pat_predictor *pred) {
  int q = 1;
  if (pred != NULL && pred->type->predict == cycle_predict)
    q = cycle_length(pred);
  else if (pred != NULL && pred->type->predict == best_predict)
    q = pat_predictor_cycle(pred->member[best_member(pred)]);
  return q;
}

long pat_predictor_observed(const pat_predictor *pred) {
  return pred ? pred->observed : 0;
}

const char *pat_predictor_choice(const pat_predictor *pred) {
  const char *name = NULL;
  if (pred != NULL)
    name = pred->type->predict == best_predict ? best_members[best_member(pred)]
                                               : pred->type->name;
  return name;
}
