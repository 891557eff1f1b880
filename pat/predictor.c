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
 *
 * Cost per call: O(P) for sma (O(P W) to predict), last and ema; O(P W)
 * for trend; the sum of its members for best.  Memory: W patterns of P
 * doubles for sma and trend, one for last and ema.
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
  /* patterns of nranks kept: 0 = as many as the parameter says */
  int keep;
  /* stores a relative pattern (pred->observed counts those before it) */
  void (*observe)(pat_predictor *pred, const double *relative);
  /* writes the prediction (before normalisation to a 0 minimum) */
  void (*predict)(const pat_predictor *pred, double *out);
  const char *description;
} pat_predictor_type;

/* best's members, in tie-break order */
static const char *const best_members[] = {"sma:5", "ema:0.5", "trend:8",
                                           "last"};
enum { NMEMBERS = sizeof best_members / sizeof best_members[0] };
#define BEST_SMOOTHING 0.25

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
};

static double *slot(const pat_predictor *p, long k) {
  return p->ring + (size_t)(k % p->window) * (size_t)p->nranks;
}

static void ring_observe(pat_predictor *p, const double *relative) {
  memcpy(slot(p, p->observed), relative, (size_t)p->nranks * sizeof *relative);
}

static void sma_predict(const pat_predictor *p, double *out) {
  long n = p->observed < p->window ? p->observed : p->window;
  for (int r = 0; r < p->nranks; r++) {
    double sum = 0;
    /* oldest first, always in the same order: identical bits everywhere */
    for (long k = p->observed - n; k < p->observed; k++)
      sum += slot(p, k)[r];
    out[r] = n > 0 ? sum / (double)n : 0.0;
  }
}

static void last_predict(const pat_predictor *p, double *out) {
  for (int r = 0; r < p->nranks; r++)
    out[r] = p->observed > 0 ? slot(p, p->observed - 1)[r] : 0.0;
}

/* The ring's one pattern is the running average. */
static void ema_observe(pat_predictor *p, const double *relative) {
  double *avg = p->ring;
  for (int r = 0; r < p->nranks; r++)
    avg[r] = p->observed == 0 ? relative[r]
                              : avg[r] + p->param * (relative[r] - avg[r]);
}

static void ema_predict(const pat_predictor *p, double *out) {
  for (int r = 0; r < p->nranks; r++)
    out[r] = p->observed > 0 ? p->ring[r] : 0.0;
}

static void trend_predict(const pat_predictor *p, double *out) {
  long n = p->observed < p->window ? p->observed : p->window;
  double *t = p->fit, *y = p->fit + p->window;
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

/* Scores every member on the pattern that arrived, then feeds it. */
static void best_observe(pat_predictor *p, const double *relative) {
  for (int m = 0; m < NMEMBERS; m++) {
    double err = 0;
    p->member[m]->type->predict(p->member[m], p->guess);
    relative_of(p->guess, p->nranks);
    for (int r = 0; r < p->nranks; r++)
      err += fabs(p->guess[r] - relative[r]);
    err /= p->nranks;
    if (p->observed > 0) /* the first call scores nothing: no history */
      p->error[m] = p->observed == 1
                        ? err
                        : p->error[m] + BEST_SMOOTHING * (err - p->error[m]);
    pat_predictor_observe(p->member[m], relative);
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

static void best_predict(const pat_predictor *p, double *out) {
  const pat_predictor *m = p->member[best_member(p)];
  m->type->predict(m, out);
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
  p->ring = calloc((size_t)p->window * (size_t)nranks, sizeof *p->ring);
  p->scratch = calloc((size_t)nranks, sizeof *p->scratch);
  ok = p->ring != NULL && p->scratch != NULL;
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
    free(pred);
  }
}

int pat_predictor_observe(pat_predictor *pred, const double *arrivals) {
  double first = INFINITY;
  int err = PAT_SUCCESS;
  if (pred == NULL || arrivals == NULL) {
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
  pred->type->observe(pred, pred->scratch);
  pred->observed++;
out:
  return err;
}

int pat_predictor_predict(const pat_predictor *pred, double *out) {
  if (pred == NULL || out == NULL)
    return PAT_ERR_INVALID_ARG;
  pred->type->predict(pred, out);
  relative_of(out, pred->nranks);
  return PAT_SUCCESS;
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
