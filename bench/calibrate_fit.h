/*
 * patcalibrate's MPI-free part: its options (the size list among them) and
 * the least-squares fit of the round-cost model d(m) = alpha + m (beta +
 * gamma) to measured times, so that unit tests reach both without an MPI
 * run.
 *
 * Method.  Per message size m the tool measures a transfer T(m), a local
 * combine C(m) and a whole round R(m) (receive + combine).  The fit is two
 * weighted straight lines (GSL gsl_fit_wlinear, weights 1/y^2, so every
 * size counts by its relative error although sizes span decades):
 *   T(m) = alpha_t + beta m,   C(m) = alpha_c + gamma m,
 * and alpha = alpha_t + alpha_c (a round's fixed cost: the message's and
 * the combine call's).  R(m) is not fitted: it checks the model.
 * Negative fitted values are clamped to 0 (and flagged), since a model file
 * holds values >= 0.
 */
#ifndef PAT_CALIBRATE_FIT_H
#define PAT_CALIBRATE_FIT_H

#include <stddef.h>

#include "reduce/pat_pat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- options ------------------------------------------------------------ */

enum {
  PAT_CALIBRATE_MAX_BYTES = 1 << 30, /* largest message size */
  PAT_CALIBRATE_MAX_REPS = 1000000,  /* largest --reps and --warmup */
};

typedef struct pat_calibrate_options {
  size_t *sizes;       /* message sizes in bytes, ascending, distinct */
  size_t nsizes;       /* >= 2 */
  int reps;            /* measured repetitions per size, >= 1 */
  int warmup;          /* unmeasured repetitions per size, >= 0 */
  const char *output;  /* model file; "-" is stdout (points into argv) */
  double max_residual; /* relative residual above which the fit is bad */
} pat_calibrate_options;

/* What pat_calibrate_parse_args returns besides 0 (go on). */
enum { PAT_CALIBRATE_HELP = 1, PAT_CALIBRATE_USAGE = 2 };

/* Parses a comma-separated list of sizes in bytes ("8,1K,64K,4M"; K, M, G
 * multiply by 1024, 1024^2, 1024^3; each a positive multiple of 8, the size
 * of a double, at most 1G) into an ascending array without duplicates,
 * allocated with malloc.  Needs >= 2 distinct sizes.  Returns 0, or
 * PAT_CALIBRATE_USAGE with a message naming --sizes, the bad value and the
 * valid ones in why (*sizes is then NULL). */
int pat_calibrate_parse_sizes(const char *list, size_t **sizes, size_t *n,
                              char *why, size_t whylen);

/* Fills opts from the command line (getopt_long; --help, --sizes, --reps,
 * --warmup, --output, --max-residual).  Returns 0, PAT_CALIBRATE_HELP
 * (--help: print pat_calibrate_usage and exit 0) or PAT_CALIBRATE_USAGE
 * (a message naming the option, the value and the valid values in why).
 * opts->sizes is allocated; free it with pat_calibrate_options_free,
 * whatever the result.  May be called more than once per process. */
int pat_calibrate_parse_args(int argc, char **argv, pat_calibrate_options *opts,
                             char *why, size_t whylen);
void pat_calibrate_options_free(pat_calibrate_options *opts);

/* The --help text. */
const char *pat_calibrate_usage(void);

/* ---- fit ---------------------------------------------------------------- */

/* What was measured at one message size (seconds). */
typedef struct pat_calibrate_sample {
  double bytes;    /* message size m */
  double transfer; /* one message of m bytes, from post to completion */
  double combine;  /* PMPI_Reduce_local of m bytes */
  double round;    /* receive + combine of m bytes; NAN if not measured */
} pat_calibrate_sample;

/* Flags of a fit: which values were clamped, which parts fit badly. */
enum {
  PAT_CALIBRATE_CLAMPED_ALPHA = 1u << 0,
  PAT_CALIBRATE_CLAMPED_BETA = 1u << 1,
  PAT_CALIBRATE_CLAMPED_GAMMA = 1u << 2,
  PAT_CALIBRATE_BAD_TRANSFER = 1u << 3, /* T(m) is not a line */
  PAT_CALIBRATE_BAD_COMBINE = 1u << 4,  /* C(m) is not a line */
  PAT_CALIBRATE_BAD_ROUND = 1u << 5,    /* the model misses R(m) */
  PAT_CALIBRATE_BAD_FIT = PAT_CALIBRATE_BAD_TRANSFER |
                          PAT_CALIBRATE_BAD_COMBINE | PAT_CALIBRATE_BAD_ROUND,
};

typedef struct pat_calibrate_fit {
  pat_model model;       /* what the model file gets (clamped, >= 0) */
  double transfer_alpha; /* fitted, not clamped: T(m) = this + beta m */
  double transfer_beta;  /* s/B */
  double combine_alpha;  /* fitted, not clamped: C(m) = this + gamma m */
  double combine_gamma;  /* s/B */
  double transfer_r2;    /* weighted R^2 of the transfer line */
  double combine_r2;     /* weighted R^2 of the combine line */
  double max_transfer;   /* max |relative residual| of T against its line */
  double max_combine;    /* same for C */
  double max_round;      /* same for R against the model (0 if no R) */
  size_t worst_transfer; /* sample index of each maximum */
  size_t worst_combine;
  size_t worst_round;
  unsigned flags; /* PAT_CALIBRATE_CLAMPED_* | PAT_CALIBRATE_BAD_* */
} pat_calibrate_fit;

/* (measured - predicted) / measured. */
double pat_calibrate_relative_residual(double measured, double predicted);

/* Fits the model to n samples (>= 2 distinct sizes, every time finite and
 * > 0 but round, which may be NAN) and judges it: a part whose max
 * |relative residual| exceeds max_residual (> 0) is flagged bad.  Returns
 * a pat_reduce_error: PAT_ERR_INVALID_ARG with the reason in why for
 * unusable samples, or when every fitted value is <= 0 (no model file
 * could hold that). */
int pat_calibrate_fit_samples(const pat_calibrate_sample *samples, size_t n,
                              double max_residual, pat_calibrate_fit *fit,
                              char *why, size_t whylen);

#ifdef __cplusplus
}
#endif

#endif /* PAT_CALIBRATE_FIT_H */
