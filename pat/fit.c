/*
 * The cost model fitted from (bytes, seconds) samples, without MPI (the
 * PAT layer feeds it the window of exchanged samples; unit tests feed it
 * synthetic ones).
 *
 * Two lines, each by GSL's weighted least squares (gsl_fit_wlinear) with
 * weights 1/y^2, i.e. minimising the squared relative residuals, so a small
 * message counts as much as a large one (as patcalibrate does):
 *   transfer: seconds = alpha_t + beta bytes
 *   combine:  seconds = alpha_c + gamma bytes
 * and alpha = alpha_t + alpha_c.  Negative values are clamped to 0, but
 * for alpha: an alpha at or below 0 means the lines did not resolve the
 * latency (large transfers only, or noise), and a transfer never costs
 * nothing, so alpha is then the caller's latency (the PAT layer: the
 * last fitted alpha, else the configured model's).  A small positive
 * alpha is taken as fitted.  With alpha 0, the segmented
 * clairvoyant's bound falls with every doubling of the segments, so it
 * planned each candidate up to 1024 segments: on this project's 2-core
 * node (8 ranks, 512 KiB) fits from radixk's and butterfly's transfers
 * gave alpha 0, and auto's plans, made to score them, took 1-9 ms a call
 * against a 1 ms reduction (5% of its calls over 14 ms).
 *
 * One size: a line through samples whose sizes lie within a factor
 * PAT_FIT_MIN_SPREAD of each other is underdetermined (or wild with
 * noise), so then the rule is: alpha_t = the median transfer time, beta =
 * 0, alpha_c = 0, gamma = the median of combine seconds / bytes.  The
 * round cost at the measured size is then what was measured.  Each kind
 * is judged on its own (a transfer line and a one-size combine mix).
 *
 * Samples whose bytes or seconds are not finite and > 0 are ignored; of
 * each kind only the last PAT_FIT_MAX_SAMPLES count, so the work space is
 * on the stack and no allocation can fail on one rank only.  No transfer
 * sample: no model.  No combine sample: alpha_c = gamma = 0.
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_fit.h>
#include <gsl/gsl_statistics_double.h>

#include "pat/pat_layer.h"

int pat_fit_line(const double *x, const double *y, double *w, size_t n,
                 double *c0, double *c1, double *r2) {
  double cov00, cov01, cov11, chisq, sw = 0, swy = 0, tss = 0, mean;
  int err = PAT_SUCCESS;

  for (size_t i = 0; i < n; i++) {
    w[i] = 1.0 / (y[i] * y[i]);
    sw += w[i];
    swy += w[i] * y[i];
  }
  if (n < 2 ||
      gsl_fit_wlinear(x, 1, w, 1, y, 1, n, c0, c1, &cov00, &cov01, &cov11,
                      &chisq) != 0 ||
      !isfinite(*c0) || !isfinite(*c1)) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  mean = swy / sw;
  for (size_t i = 0; i < n; i++)
    tss += w[i] * (y[i] - mean) * (y[i] - mean);
  if (r2 != NULL)
    *r2 = tss > 0 ? 1.0 - chisq / tss : 1.0;
out:
  return err;
}

static int usable(double bytes, double seconds) {
  return isfinite(bytes) && bytes > 0 && isfinite(seconds) && seconds > 0;
}

/* Fits one kind: seconds = *c0 + *c1 bytes; one_size_slope: the one-size
 * rule gives the slope (combine) rather than the intercept (transfer).
 * Returns the number of usable samples (0: nothing written). */
static size_t fit_kind(const double *bytes, const double *sec, int n,
                       int one_size_slope, double *c0, double *c1) {
  double x[PAT_FIT_MAX_SAMPLES], y[PAT_FIT_MAX_SAMPLES], w[PAT_FIT_MAX_SAMPLES];
  double lo = INFINITY, hi = 0, med;
  size_t k = 0;
  int first = n > PAT_FIT_MAX_SAMPLES ? n - PAT_FIT_MAX_SAMPLES : 0;

  for (int i = first; i < n; i++)
    if (usable(bytes[i], sec[i])) {
      x[k] = bytes[i];
      y[k] = sec[i];
      lo = fmin(lo, x[k]);
      hi = fmax(hi, x[k]);
      k++;
    }
  if (k == 0)
    goto out;
  if (hi >= PAT_FIT_MIN_SPREAD * lo &&
      pat_fit_line(x, y, w, k, c0, c1, NULL) == PAT_SUCCESS)
    goto out;
  /* one size: the median, of the times or of the times per byte */
  for (size_t i = 0; i < k; i++)
    w[i] = one_size_slope ? y[i] / x[i] : y[i];
  /* by selection, not a sort: a refit's two heapsorts of 64 samples were
   * a sixth of an exchanged call's instructions (callgrind, P = 2, 8 B,
   * auto exchanging every call) */
  med = gsl_stats_median(w, 1, k);
  *c0 = one_size_slope ? 0 : med;
  *c1 = one_size_slope ? med : 0;
out:
  return k;
}

int pat_fit_model(const double *bytes_t, const double *sec_t, int nt,
                  const double *bytes_c, const double *sec_c, int nc,
                  double latency, pat_model *out) {
  double alpha_t = 0, beta = 0, alpha_c = 0, gamma = 0;
  pat_model m;
  int known = 0;

  if (nt <= 0 || bytes_t == NULL || sec_t == NULL ||
      fit_kind(bytes_t, sec_t, nt, 0, &alpha_t, &beta) == 0)
    goto out;
  if (nc > 0 && bytes_c != NULL && sec_c != NULL)
    fit_kind(bytes_c, sec_c, nc, 1, &alpha_c, &gamma);
  m.alpha = alpha_t + alpha_c > 0              ? alpha_t + alpha_c
            : isfinite(latency) && latency > 0 ? latency
                                               : 0;
  m.beta = fmax(beta, 0);
  m.gamma = fmax(gamma, 0);
  /* a model where nothing costs anything plans nothing well */
  known = m.alpha + m.beta + m.gamma > 0;
  if (known)
    *out = m;
out:
  return known;
}
