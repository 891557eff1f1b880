/*
 * patmktrace: writes a synthetic arrival trace for patbench's trace:FILE
 * pattern, standing in for the in-situ rendering (Helsim) trace of the
 * thesis (Table 5.1): ranks fall into clusters of similar work (the parts
 * of the domain one view sees), each cluster's load drifts from call to
 * call as an AR(1) process (the camera moves slowly, so the next call
 * looks like the last: what a moving-average predictor can exploit), and
 * every rank adds its own noise (gaussian, NOISE times 2 MEAN_S standard
 * deviation, fresh every call).  Delays are the loads minus the smallest
 * one of the call, in seconds.
 *
 * usage: patmktrace P CALLS [MEAN_S=1e-3] [CLUSTERS=4] [PHI=0.9] [SEED=1]
 *                   [NOISE=0.05]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

static int number(const char *text, double lo, double hi, double *v) {
  char *end;
  errno = 0;
  *v = strtod(text, &end);
  return end != text && *end == '\0' && errno == 0 && *v >= lo && *v <= hi;
}

int main(int argc, char **argv) {
  double p, calls, mean = 1e-3, clusters = 4, phi = 0.9, seed = 1;
  double noise = 0.05;
  double *level = NULL, *load = NULL;
  gsl_rng *rng = NULL;
  int rc = 2;
  int help = argc == 2 && (strcmp(argv[1], "--help") == 0 ||
                           strcmp(argv[1], "-h") == 0);
  if (help || argc < 3 || argc > 8 || !number(argv[1], 1, 1 << 24, &p) ||
      !number(argv[2], 1, 1 << 24, &calls) ||
      (argc > 3 && !number(argv[3], 0, 1e3, &mean)) ||
      (argc > 4 && !number(argv[4], 1, p, &clusters)) ||
      (argc > 5 && !number(argv[5], 0, 0.999, &phi)) ||
      (argc > 6 && !number(argv[6], 0, 4e9, &seed)) ||
      (argc > 7 && !number(argv[7], 0, 1, &noise))) {
    fprintf(help ? stdout : stderr,
            "usage: patmktrace P CALLS [MEAN_S=1e-3] [CLUSTERS=4 in 1..P] "
            "[PHI=0.9 in 0..0.999] [SEED=1] [NOISE=0.05 in 0..1]\n");
    rc = help ? 0 : 2;
    goto out;
  }
  rng = gsl_rng_alloc(gsl_rng_mt19937);
  level = malloc((size_t)clusters * sizeof *level);
  load = malloc((size_t)p * sizeof *load);
  rc = 1;
  if (rng == NULL || level == NULL || load == NULL)
    goto out;
  gsl_rng_set(rng, (unsigned long)seed);
  /* cluster c's mean load: spread over [0, 2 mean] */
  for (int c = 0; c < (int)clusters; c++)
    level[c] = gsl_ran_flat(rng, 0, 1);
  printf("# patmktrace P=%d calls=%d mean=%g clusters=%d phi=%g seed=%lu "
         "noise=%g\n",
         (int)p, (int)calls, mean, (int)clusters, phi, (unsigned long)seed,
         noise);
  for (int k = 0; k < (int)calls; k++) {
    double lo = INFINITY;
    /* AR(1) around each cluster's mean, unit stationary variance / 9 */
    for (int c = 0; c < (int)clusters; c++)
      level[c] = phi * level[c] +
                 gsl_ran_gaussian(rng, sqrt(1 - phi * phi) / 3) +
                 (1 - phi) * 0.5;
    for (int i = 0; i < (int)p; i++) {
      int c = (int)((long)i * (long)clusters / (long)p);
      load[i] = 2 * mean * fmax(0, level[c] + gsl_ran_gaussian(rng, noise));
      lo = fmin(lo, load[i]);
    }
    for (int i = 0; i < (int)p; i++)
      printf("%s%.9g", i ? " " : "", load[i] - lo);
    printf("\n");
  }
  rc = 0;
out:
  gsl_rng_free(rng);
  free(level);
  free(load);
  return rc;
}
