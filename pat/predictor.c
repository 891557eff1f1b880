/*
 * Predictors of the next call's arrival pattern, behind a small vtable:
 * one row per predictor type with its name, whether it takes a window, and
 * its observe / predict functions.  Adding a predictor is one row and two
 * functions.  Patterns are stored relative to their earliest rank.  Every
 * rank feeds the same exchanged data in the same order, so every rank
 * predicts the same bits.
 *
 *   sma:W  simple moving average of the last W patterns (thesis 3.7)
 *   last   the last pattern
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"

typedef struct pat_predictor_type {
  const char *name;
  int default_window; /* 0: takes no window */
  /* stores a relative pattern; the ring has room for window patterns */
  void (*observe)(pat_predictor *pred, const double *relative);
  /* writes the prediction (before normalisation to a 0 minimum) */
  void (*predict)(const pat_predictor *pred, double *out);
} pat_predictor_type;

struct pat_predictor {
  const pat_predictor_type *type;
  int nranks, window;
  long observed;
  double *ring;    /* window patterns of nranks, oldest overwritten */
  double *scratch; /* nranks: the pattern being observed */
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

static const pat_predictor_type pat_predictor_types[] = {
    {"sma", 5, ring_observe, sma_predict},
    {"last", 0, ring_observe, last_predict},
};
enum { NTYPES = sizeof pat_predictor_types / sizeof pat_predictor_types[0] };

/* "name" or "name:W" for a type that takes a window. */
static int parse(const char *spec, const pat_predictor_type **type,
                 int *window) {
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  int ok = 0;
  for (int i = 0; i < NTYPES && !ok; i++) {
    if (strlen(pat_predictor_types[i].name) == n &&
        strncasecmp(spec, pat_predictor_types[i].name, n) == 0) {
      *type = &pat_predictor_types[i];
      *window = pat_predictor_types[i].default_window;
      ok = 1;
    }
  }
  if (ok && colon != NULL) {
    char *end = NULL;
    long w =
        isdigit((unsigned char)colon[1]) ? strtol(colon + 1, &end, 10) : -1;
    ok = (*type)->default_window > 0 && w >= 1 && w <= 100000 && end != NULL &&
         *end == '\0';
    *window = (int)w;
  }
  if (ok && *window == 0)
    *window = 1; /* room for the last pattern */
  return ok;
}

int pat_predictor_alloc(const char *spec, int nranks, pat_predictor **out,
                        char *why, size_t whylen) {
  const pat_predictor_type *type = NULL;
  pat_predictor *p = NULL;
  int window = 0, err = PAT_SUCCESS;
  if (out == NULL || nranks < 1) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  if (spec == NULL || !parse(spec, &type, &window)) {
    if (why != NULL && whylen > 0)
      snprintf(why, whylen,
               "PAT_REDUCE_PREDICTOR=%s is not a predictor; valid: sma, "
               "sma:W (W >= 1 calls), last",
               spec ? spec : "(null)");
    err = PAT_ERR_BAD_ENV;
    goto out;
  }
  p = calloc(1, sizeof *p);
  if (p != NULL) {
    p->ring = calloc((size_t)window * (size_t)nranks, sizeof *p->ring);
    p->scratch = calloc((size_t)nranks, sizeof *p->scratch);
  }
  if (p == NULL || p->ring == NULL || p->scratch == NULL) {
    if (p != NULL) {
      free(p->ring);
      free(p->scratch);
    }
    free(p);
    p = NULL;
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  p->type = type;
  p->nranks = nranks;
  p->window = window;
out:
  if (out != NULL)
    *out = p;
  return err;
}

void pat_predictor_free(pat_predictor *pred) {
  if (pred != NULL) {
    free(pred->ring);
    free(pred->scratch);
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
  double first = INFINITY;
  if (pred == NULL || out == NULL)
    return PAT_ERR_INVALID_ARG;
  pred->type->predict(pred, out);
  for (int r = 0; r < pred->nranks; r++)
    first = out[r] < first ? out[r] : first;
  for (int r = 0; r < pred->nranks; r++)
    out[r] -= first;
  return PAT_SUCCESS;
}

long pat_predictor_observed(const pat_predictor *pred) {
  return pred ? pred->observed : 0;
}
