/*
 * patcalibrate's MPI-free part: command-line options and the fit of the
 * round-cost model (see calibrate_fit.h for the method).
 *
 * Options are parsed with getopt_long (GNU long options, --opt VALUE or
 * --opt=VALUE, unique prefixes accepted); every bad value is reported with
 * the option, the value and what is valid, and nothing is printed here:
 * the caller prints why on one rank.  The fit uses GSL's weighted linear
 * least squares with weights 1/y^2 (pat_fit_line, shared with the PAT
 * layer's online fit in pat/fit.c), i.e. it minimises the sum of squared
 * relative residuals, so an 8-byte message counts as much as a 4 MiB one.
 */
#include "calibrate_fit.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pat_internal.h" /* pat_parse_bytes */
#include "pat/pat_layer.h" /* pat_fit_line, shared with the PAT layer */
#include "reduce/pat_reduce.h"

#define SIZES_VALID                                                            \
  "valid: comma-separated whole numbers of bytes with an optional suffix K, "  \
  "M or G (x1024, x1024^2, x1024^3), each a multiple of 8 (one double) in "    \
  "8..1G, at least two different sizes, e.g. 8,1K,64K"

/* The defaults; sizes 8 B, 16 B, ..., 4 MiB. */
enum { DEFAULT_MIN = 8, DEFAULT_MAX = 4 << 20 };
#define DEFAULT_REPS 200
#define DEFAULT_WARMUP 10
#define DEFAULT_OUTPUT "patreduce.model"
#define DEFAULT_MAX_RESIDUAL 0.25
#define STR_(x) #x
#define STR(x) STR_(x)

#define REPS_TEXT STR(DEFAULT_REPS)
#define WARMUP_TEXT STR(DEFAULT_WARMUP)
#define MAX_RESIDUAL_TEXT STR(DEFAULT_MAX_RESIDUAL)

static const char usage_text[] =
    "usage: mpiexec -n P patcalibrate [options]\n"
    "\n"
    "Measures, with all ranks busy in pairs (rank 2k with 2k+1), the cost of\n"
    "a transfer, a local combine (pat_reduce_local, MPI_SUM on MPI_DOUBLE)\n"
    "and a whole round (receive + combine) for each message size m, fits\n"
    "  transfer = alpha_t + beta m,  combine = alpha_c + gamma m\n"
    "by weighted least squares (relative errors), and writes the round-cost\n"
    "model d(m) = alpha + m (beta + gamma), alpha = alpha_t + alpha_c, to the\n"
    "model file that PAT_REDUCE_MODEL reads.  Reports every size's measured\n"
    "round against the model and warns on stderr when the model fits badly.\n"
    "P >= 2; with an odd P the last rank idles.\n"
    "\n"
    "options:\n"
    "  --sizes LIST        message sizes in bytes, comma-separated, suffixes\n"
    "                      K, M, G (x1024), multiples of 8 in 8..1G\n"
    "                      (default 8,16,32,...,4M)\n"
    "  --reps N            measured repetitions per size, 1..1000000\n"
    "                      (default " REPS_TEXT ")\n"
    "  --warmup N          unmeasured repetitions per size first, 0..1000000\n"
    "                      (default " WARMUP_TEXT ")\n"
    "  --output FILE       model file to write, \"-\" for stdout (the report\n"
    "                      then goes to stderr) (default " DEFAULT_OUTPUT ")\n"
    "  --max-residual F    warn when a measured time is off its fitted line\n"
    "                      or the model by more than this fraction\n"
    "                      (default " MAX_RESIDUAL_TEXT ")\n"
    "  --help              this text\n"
    "\n"
    "exit status: 0 done (also after a bad-fit warning), 1 measurement or\n"
    "output failed, 2 bad usage (option value, number of ranks).\n";

const char *pat_calibrate_usage(void) { return usage_text; }

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* Parses one entry "123", "4K", ... of len characters; 0 or USAGE. */
static int parse_one_size(const char *list, const char *s, size_t len,
                          size_t *out, char *why, size_t whylen) {
  char buf[64];
  const char *problem = NULL;
  long long v = 0;
  int err = 0, parsed;

  if (len == 0 || len >= sizeof buf) {
    snprintf(why, whylen, "--sizes \"%s\": %s entry; " SIZES_VALID, list,
             len == 0 ? "an empty" : "a too long");
    err = PAT_CALIBRATE_USAGE;
    goto out;
  }
  memcpy(buf, s, len);
  buf[len] = '\0';
  /* sizes as everywhere in patreduce (src/core/units.c) */
  parsed = pat_parse_bytes(buf, PAT_CALIBRATE_MAX_BYTES, &v);
  if (parsed == 0) {
    snprintf(why, whylen, "--sizes \"%s\": \"%s\" is not a size; " SIZES_VALID,
             list, buf);
    err = PAT_CALIBRATE_USAGE;
    goto out;
  }
  if (parsed < 0)
    problem = "more than 1G";
  else if (v == 0)
    problem = "not positive";
  else if (v % 8 != 0)
    problem = "not a multiple of 8 bytes";
  if (problem != NULL) {
    snprintf(why, whylen, "--sizes \"%s\": \"%s\" is %s; " SIZES_VALID, list,
             buf, problem);
    err = PAT_CALIBRATE_USAGE;
    goto out;
  }
  *out = (size_t)v;
out:
  return err;
}

int pat_calibrate_parse_sizes(const char *list, size_t **sizes, size_t *n,
                              char *why, size_t whylen) {
  size_t count = 1, k = 0, distinct = 0;
  size_t *v = NULL;
  const char *s;
  int err = 0;
  char none[1];

  if (why == NULL || whylen == 0) {
    why = none;
    whylen = sizeof none;
  }
  *sizes = NULL;
  *n = 0;
  if (list == NULL) {
    snprintf(why, whylen, "--sizes: no list; " SIZES_VALID);
    err = PAT_CALIBRATE_USAGE;
    goto out;
  }
  for (s = list; *s; s++)
    count += *s == ',';
  v = malloc(count * sizeof *v);
  if (v == NULL) {
    snprintf(why, whylen, "--sizes: out of memory");
    err = PAT_CALIBRATE_USAGE;
    goto out;
  }
  for (s = list; err == 0 && k < count; k++) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    err = parse_one_size(list, s, len, &v[k], why, whylen);
    s += len + (comma != NULL);
  }
  if (err != 0)
    goto out;
  qsort(v, count, sizeof *v, cmp_size);
  for (k = 0; k < count; k++)
    if (k == 0 || v[k] != v[distinct - 1])
      v[distinct++] = v[k];
  if (distinct < 2) {
    snprintf(why, whylen,
             "--sizes \"%s\": one size cannot make a line; " SIZES_VALID, list);
    err = PAT_CALIBRATE_USAGE;
    goto out;
  }
  *sizes = v;
  *n = distinct;
  v = NULL;
out:
  free(v);
  return err;
}

/* A whole number in lo..hi; 0 or USAGE. */
static int parse_int(const char *opt, const char *arg, long lo, long hi,
                     const char *what, int *out, char *why, size_t whylen) {
  char *end = NULL;
  long v;
  int err = 0;

  errno = 0;
  v = strtol(arg, &end, 10);
  if (end == arg || *end != '\0' || errno == ERANGE || v < lo || v > hi ||
      !(arg[0] >= '0' && arg[0] <= '9')) {
    snprintf(why, whylen, "--%s \"%s\" is not valid; valid: %s, %ld..%ld", opt,
             arg, what, lo, hi);
    err = PAT_CALIBRATE_USAGE;
    goto out;
  }
  *out = (int)v;
out:
  return err;
}

void pat_calibrate_options_free(pat_calibrate_options *opts) {
  if (opts == NULL)
    return;
  free(opts->sizes);
  opts->sizes = NULL;
  opts->nsizes = 0;
}

int pat_calibrate_parse_args(int argc, char **argv, pat_calibrate_options *opts,
                             char *why, size_t whylen) {
  enum { O_SIZES = 256, O_REPS, O_WARMUP, O_OUTPUT, O_MAXRES, O_HELP };
  static const struct option longopts[] = {
      {"sizes", required_argument, NULL, O_SIZES},
      {"reps", required_argument, NULL, O_REPS},
      {"warmup", required_argument, NULL, O_WARMUP},
      {"output", required_argument, NULL, O_OUTPUT},
      {"max-residual", required_argument, NULL, O_MAXRES},
      {"help", no_argument, NULL, O_HELP},
      {NULL, 0, NULL, 0},
  };
  const char *sizes = NULL;
  int err = 0, c;
  char none[1];

  if (why == NULL || whylen == 0) {
    why = none;
    whylen = sizeof none;
  }
  opts->sizes = NULL;
  opts->nsizes = 0;
  opts->reps = DEFAULT_REPS;
  opts->warmup = DEFAULT_WARMUP;
  opts->output = DEFAULT_OUTPUT;
  opts->max_residual = DEFAULT_MAX_RESIDUAL;
#ifdef __GLIBC__
  optind = 0; /* glibc: a full re-initialisation, so parsing can repeat */
#else
  optind = 1;
#endif
  opterr = 0; /* our own messages */
  while (err == 0 &&
         (c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
    switch (c) {
    case O_SIZES:
      sizes = optarg;
      break;
    case O_REPS:
      err =
          parse_int("reps", optarg, 1, PAT_CALIBRATE_MAX_REPS,
                    "a whole number of repetitions", &opts->reps, why, whylen);
      break;
    case O_WARMUP:
      err = parse_int("warmup", optarg, 0, PAT_CALIBRATE_MAX_REPS,
                      "a whole number of repetitions", &opts->warmup, why,
                      whylen);
      break;
    case O_OUTPUT:
      if (optarg[0] == '\0') {
        snprintf(why, whylen,
                 "--output \"\" is not valid; valid: a file name, or - for "
                 "stdout");
        err = PAT_CALIBRATE_USAGE;
      }
      opts->output = optarg;
      break;
    case O_MAXRES: {
      char *end = NULL;
      double v = strtod(optarg, &end);
      if (end == optarg || *end != '\0' || !isfinite(v) || v <= 0) {
        snprintf(why, whylen,
                 "--max-residual \"%s\" is not valid; valid: a number > 0 "
                 "(a fraction: 0.25 is 25%%)",
                 optarg);
        err = PAT_CALIBRATE_USAGE;
      }
      opts->max_residual = v;
      break;
    }
    case 'h':
    case O_HELP:
      err = PAT_CALIBRATE_HELP;
      break;
    case ':':
      snprintf(why, whylen, "%s needs a value; see --help", argv[optind - 1]);
      err = PAT_CALIBRATE_USAGE;
      break;
    default:
      if (optopt == O_HELP) {
        snprintf(why, whylen, "--help takes no value");
        err = PAT_CALIBRATE_USAGE;
        break;
      }
      snprintf(why, whylen,
               "unknown option \"%s\"; valid: --sizes, --reps, --warmup, "
               "--output, --max-residual, --help",
               argv[optind - 1]);
      err = PAT_CALIBRATE_USAGE;
      break;
    }
  }
  if (err == 0 && optind < argc) {
    snprintf(why, whylen,
             "unexpected argument \"%s\"; patcalibrate takes options only, "
             "see --help",
             argv[optind]);
    err = PAT_CALIBRATE_USAGE;
  }
  if (err == 0 && sizes != NULL)
    err = pat_calibrate_parse_sizes(sizes, &opts->sizes, &opts->nsizes, why,
                                    whylen);
  if (err == 0 && sizes == NULL) {
    size_t n = 0;
    for (size_t m = DEFAULT_MIN; m <= DEFAULT_MAX; m *= 2)
      n++;
    opts->sizes = malloc(n * sizeof *opts->sizes);
    if (opts->sizes == NULL) {
      snprintf(why, whylen, "out of memory");
      err = PAT_CALIBRATE_USAGE;
      goto out;
    }
    opts->nsizes = n;
    for (size_t k = 0, m = DEFAULT_MIN; k < n; k++, m *= 2)
      opts->sizes[k] = m;
  }
out:
  return err;
}

/* ---- fit ------------------------------------------------------------------
 */

double pat_calibrate_relative_residual(double measured, double predicted) {
  return (measured - predicted) / measured;
}

static int positive(double v) { return isfinite(v) && v > 0; }

int pat_calibrate_fit_samples(const pat_calibrate_sample *samples, size_t n,
                              double max_residual, pat_calibrate_fit *fit,
                              char *why, size_t whylen) {
  double *x = NULL, *t = NULL, *c = NULL, *w = NULL;
  size_t distinct = 0;
  int err = PAT_SUCCESS;
  char none[1];

  if (why == NULL || whylen == 0) {
    why = none;
    whylen = sizeof none;
  }
  if (samples == NULL || fit == NULL || !(max_residual > 0)) {
    snprintf(why, whylen, "no samples, no fit, or max_residual <= 0");
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  memset(fit, 0, sizeof *fit);
  for (size_t i = 0; i < n; i++) {
    const pat_calibrate_sample *s = &samples[i];
    if (!positive(s->bytes) || !positive(s->transfer) ||
        !positive(s->combine) || !(isnan(s->round) || positive(s->round))) {
      snprintf(why, whylen,
               "sample %zu (bytes %g, transfer %g s, combine %g s, round "
               "%g s): sizes and times must be finite and > 0",
               i, s->bytes, s->transfer, s->combine, s->round);
      err = PAT_ERR_INVALID_ARG;
      goto out;
    }
    distinct++;
    for (size_t j = 0; j < i; j++)
      if (samples[j].bytes == s->bytes) {
        distinct--;
        break;
      }
  }
  if (distinct < 2) {
    snprintf(why, whylen, "%zu different message size(s): a line needs two",
             distinct);
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  x = malloc(n * sizeof *x);
  t = malloc(n * sizeof *t);
  c = malloc(n * sizeof *c);
  w = malloc(n * sizeof *w);
  if (x == NULL || t == NULL || c == NULL || w == NULL) {
    snprintf(why, whylen, "out of memory");
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    x[i] = samples[i].bytes;
    t[i] = samples[i].transfer;
    c[i] = samples[i].combine;
  }
  if (pat_fit_line(x, t, w, n, &fit->transfer_alpha, &fit->transfer_beta,
                   &fit->transfer_r2) != PAT_SUCCESS ||
      pat_fit_line(x, c, w, n, &fit->combine_alpha, &fit->combine_gamma,
                   &fit->combine_r2) != PAT_SUCCESS) {
    snprintf(why, whylen, "the least-squares fit failed");
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }

  fit->model.alpha = fit->transfer_alpha + fit->combine_alpha;
  fit->model.beta = fit->transfer_beta;
  fit->model.gamma = fit->combine_gamma;
  if (fit->model.alpha < 0) {
    fit->model.alpha = 0;
    fit->flags |= PAT_CALIBRATE_CLAMPED_ALPHA;
  }
  if (fit->model.beta < 0) {
    fit->model.beta = 0;
    fit->flags |= PAT_CALIBRATE_CLAMPED_BETA;
  }
  if (fit->model.gamma < 0) {
    fit->model.gamma = 0;
    fit->flags |= PAT_CALIBRATE_CLAMPED_GAMMA;
  }
  if (fit->model.alpha + fit->model.beta + fit->model.gamma <= 0) {
    snprintf(why, whylen,
             "alpha, beta and gamma all fit to <= 0 (alpha %g s, beta %g "
             "s/B, gamma %g s/B): the times do not grow with the size",
             fit->transfer_alpha + fit->combine_alpha, fit->transfer_beta,
             fit->combine_gamma);
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }

  for (size_t i = 0; i < n; i++) {
    const pat_calibrate_sample *s = &samples[i];
    double rt = fabs(pat_calibrate_relative_residual(
        s->transfer, fit->transfer_alpha + fit->transfer_beta * s->bytes));
    double rc = fabs(pat_calibrate_relative_residual(
        s->combine, fit->combine_alpha + fit->combine_gamma * s->bytes));
    if (rt > fit->max_transfer) {
      fit->max_transfer = rt;
      fit->worst_transfer = i;
    }
    if (rc > fit->max_combine) {
      fit->max_combine = rc;
      fit->worst_combine = i;
    }
    if (!isnan(s->round)) {
      double rr = fabs(pat_calibrate_relative_residual(
          s->round, pat_model_round_cost(&fit->model, s->bytes)));
      if (rr > fit->max_round) {
        fit->max_round = rr;
        fit->worst_round = i;
      }
    }
  }
  if (fit->max_transfer > max_residual)
    fit->flags |= PAT_CALIBRATE_BAD_TRANSFER;
  if (fit->max_combine > max_residual)
    fit->flags |= PAT_CALIBRATE_BAD_COMBINE;
  if (fit->max_round > max_residual)
    fit->flags |= PAT_CALIBRATE_BAD_ROUND;
out:
  free(x);
  free(t);
  free(c);
  free(w);
  return err;
}
