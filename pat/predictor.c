/*
 * Predictors of the next call's arrival pattern, behind a small vtable.
 * Patterns are stored relative to their earliest rank.  Every rank feeds
 * the same exchanged data in the same order, so every rank predicts the
 * same bits.
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
  int default_window;
} pat_predictor_type;

static const pat_predictor_type pat_predictor_types[] = {
    {"sma", 5},
    {"last", 1},
};
enum { NTYPES = sizeof pat_predictor_types / sizeof pat_predictor_types[0] };

struct pat_predictor {
  const pat_predictor_type *type;
  int nranks, window;
  long observed;
  double *ring; /* window patterns of nranks, oldest overwritten */
};

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
    /* only the moving average has a window */
    ok = w >= 1 && w <= 100000 && end != NULL && *end == '\0' &&
         *type == &pat_predictor_types[0];
    *window = (int)w;
  }
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
  if (p != NULL)
    p->ring = calloc((size_t)window * (size_t)nranks, sizeof *p->ring);
  if (p == NULL || p->ring == NULL) {
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
    free(pred);
  }
}

int pat_predictor_observe(pat_predictor *pred, const double *arrivals) {
  double first = INFINITY, *slot;
  if (pred == NULL || arrivals == NULL)
    return PAT_ERR_INVALID_ARG;
  for (int r = 0; r < pred->nranks; r++) {
    if (!isfinite(arrivals[r]))
      return PAT_ERR_INVALID_ARG;
    first = arrivals[r] < first ? arrivals[r] : first;
  }
  slot = pred->ring + (size_t)(pred->observed % pred->window) * pred->nranks;
  for (int r = 0; r < pred->nranks; r++)
    slot[r] = arrivals[r] - first;
  pred->observed++;
  return PAT_SUCCESS;
}

int pat_predictor_predict(const pat_predictor *pred, double *out) {
  long n;
  double first = INFINITY;
  if (pred == NULL || out == NULL)
    return PAT_ERR_INVALID_ARG;
  n = pred->observed < pred->window ? pred->observed : pred->window;
  for (int r = 0; r < pred->nranks; r++) {
    double sum = 0;
    /* oldest first, always in the same order: identical bits everywhere */
    for (long k = pred->observed - n; k < pred->observed; k++)
      sum += pred->ring[(size_t)(k % pred->window) * pred->nranks + r];
    out[r] = n > 0 ? sum / (double)n : 0.0;
    first = out[r] < first ? out[r] : first;
  }
  for (int r = 0; r < pred->nranks; r++)
    out[r] -= first;
  return PAT_SUCCESS;
}

long pat_predictor_observed(const pat_predictor *pred) {
  return pred ? pred->observed : 0;
}
