/*
 * patbench's statistics, on GSL: order statistics of a sample, a
 * percentile bootstrap confidence interval of its median, and a
 * permutation test of the ratio of two medians.  Medians, not means, are
 * the headline (run times have long right tails); min and upper quantiles
 * keep the tails visible.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "patbench.h"

static double median_of(double *x, size_t n) {
  gsl_sort(x, 1, n);
  return gsl_stats_median_from_sorted_data(x, 1, n);
}

double pb_median(const double *x, size_t n) {
  double *c = malloc(n * sizeof *c), m = NAN;
  if (c != NULL && n > 0) {
    memcpy(c, x, n * sizeof *c);
    m = median_of(c, n);
  }
  free(c);
  return m;
}

void pb_summarize(double *x, size_t n, size_t boot, gsl_rng *rng,
                  pb_summary *s) {
  double *meds = boot ? malloc(boot * sizeof *meds) : NULL;
  double *resample = malloc(n * sizeof *resample);
  memset(s, 0, sizeof *s);
  s->n = n;
  if (n == 0 || resample == NULL)
    goto out;
  gsl_sort(x, 1, n);
  s->min = x[0];
  s->max = x[n - 1];
  s->q25 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.25);
  s->median = gsl_stats_median_from_sorted_data(x, 1, n);
  s->q75 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.75);
  s->q95 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.95);
  s->mean = gsl_stats_mean(x, 1, n);
  s->ci_lo = s->ci_hi = s->median;
  if (meds == NULL)
    goto out;
  for (size_t b = 0; b < boot; b++) {
    for (size_t i = 0; i < n; i++)
      resample[i] = x[gsl_rng_uniform_int(rng, n)];
    meds[b] = median_of(resample, n);
  }
  gsl_sort(meds, 1, boot);
  s->ci_lo = gsl_stats_quantile_from_sorted_data(meds, 1, boot, 0.025);
  s->ci_hi = gsl_stats_quantile_from_sorted_data(meds, 1, boot, 0.975);
out:
  free(meds);
  free(resample);
}

/* Are all n values of x the same, up to rounding?  (Simulated times are
 * exact, but a time-to-solution is a difference of two clock readings.) */
static int constant(const double *x, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (fabs(x[i] - x[0]) > 1e-12 * fabs(x[0]))
      return 0;
  return 1;
}

double pb_permutation_p(const double *a, size_t na, const double *b, size_t nb,
                        size_t perms, gsl_rng *rng) {
  size_t n = na + nb, hits = 0;
  double *pool = malloc(n * sizeof *pool), *work = malloc(n * sizeof *work);
  double observed, p = 1;
  if (pool == NULL || work == NULL || na == 0 || nb == 0)
    goto out;
  if (constant(a, na) && constant(b, nb)) { /* deterministic runs (SMPI) */
    p = NAN;
    goto out;
  }
  memcpy(pool, a, na * sizeof *pool);
  memcpy(pool + na, b, nb * sizeof *pool);
  memcpy(work, a, na * sizeof *work);
  memcpy(work + na, b, nb * sizeof *work);
  observed = fabs(log(median_of(work, na) / median_of(work + na, nb)));
  for (size_t k = 0; k < perms; k++) {
    double stat;
    gsl_ran_shuffle(rng, pool, n, sizeof *pool);
    memcpy(work, pool, n * sizeof *work);
    stat = fabs(log(median_of(work, na) / median_of(work + na, nb)));
    /* a relative tolerance so that ties count as hits */
    if (stat >= observed * (1 - 1e-12))
      hits++;
  }
  p = (double)(hits + 1) / (double)(perms + 1);
out:
  free(pool);
  free(work);
  return p;
}
