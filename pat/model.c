/*
 * The round-cost model d(m) = alpha + m (beta + gamma) and its file format
 * (written by the calibration tool, read with PAT_REDUCE_MODEL).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"

double pat_model_round_cost(const pat_model *model, double bytes) {
  return model->alpha + bytes * (model->beta + model->gamma);
}

int pat_model_write(FILE *out, const pat_model *model) {
  int n;
  if (out == NULL || model == NULL)
    return PAT_ERR_INVALID_ARG;
  n = fprintf(out,
              "# patreduce round-cost model: d(m) = alpha + m (beta + "
              "gamma), m in bytes\nalpha = %.17g\nbeta = %.17g\ngamma = "
              "%.17g\n",
              model->alpha, model->beta, model->gamma);
  return n > 0 ? PAT_SUCCESS : PAT_ERR_INVALID_ARG;
}

static char *trim(char *s) {
  char *e;
  while (isspace((unsigned char)*s))
    s++;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

int pat_model_read(const char *path, pat_model *model, char *why,
                   size_t whylen) {
  static const char *const keys[3] = {"alpha", "beta", "gamma"};
  double values[3] = {0, 0, 0};
  int seen[3] = {0, 0, 0}, lineno = 0, err = PAT_SUCCESS;
  char line[512];
  char none[1];
  FILE *f = path ? fopen(path, "r") : NULL;

  if (why == NULL || whylen == 0) {
    why = none;
    whylen = sizeof none;
  }
  if (f == NULL) {
    snprintf(why, whylen, "PAT_REDUCE_MODEL=%s cannot be opened",
             path ? path : "(null)");
    err = PAT_ERR_BAD_ENV;
    goto out;
  }
  while (err == PAT_SUCCESS && fgets(line, sizeof line, f) != NULL) {
    char *s = trim(line), *eq, *key, *val, *end = NULL;
    int k;
    lineno++;
    if (*s == '\0' || *s == '#')
      continue;
    eq = strchr(s, '=');
    if (eq == NULL) {
      snprintf(why, whylen, "%s:%d: expected \"key = value\"", path, lineno);
      err = PAT_ERR_BAD_ENV;
      break;
    }
    *eq = '\0';
    key = trim(s);
    val = trim(eq + 1);
    for (k = 0; k < 3 && strcmp(key, keys[k]) != 0; k++)
      ;
    if (k == 3 || seen[k]) {
      snprintf(why, whylen,
               "%s:%d: %s key \"%s\"; valid: alpha, beta, "
               "gamma, once each",
               path, lineno, k == 3 ? "unknown" : "repeated", key);
      err = PAT_ERR_BAD_ENV;
      break;
    }
    values[k] = strtod(val, &end);
    if (end == val || *end != '\0' || !isfinite(values[k]) || values[k] < 0) {
      snprintf(why, whylen,
               "%s:%d: %s = \"%s\" is not a finite number "
               ">= 0",
               path, lineno, key, val);
      err = PAT_ERR_BAD_ENV;
      break;
    }
    seen[k] = 1;
  }
  for (int k = 0; k < 3 && err == PAT_SUCCESS; k++)
    if (!seen[k]) {
      snprintf(why, whylen, "%s: no \"%s = ...\" line", path, keys[k]);
      err = PAT_ERR_BAD_ENV;
    }
  if (err == PAT_SUCCESS && values[0] + values[1] + values[2] <= 0) {
    snprintf(why, whylen,
             "%s: alpha, beta and gamma are all 0; a round "
             "must cost something",
             path);
    err = PAT_ERR_BAD_ENV;
  }
  if (err == PAT_SUCCESS) {
    model->alpha = values[0];
    model->beta = values[1];
    model->gamma = values[2];
  }
out:
  if (f != NULL)
    fclose(f);
  return err;
}
