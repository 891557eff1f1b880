/*
 * radixk: radix-k reduce-scatter, then gather (thesis Alg. 4).
 *
 * Idea.  P is factored into a radix vector k_0 k_1 ... = P.  In round i the
 * groups of k_i ranks that differ only in digit i of their rank (mixed
 * radix, k_0 least significant) hold the same range; each cuts it in k_i
 * pieces, sends piece d directly to the member of digit d and reduces the
 * k_i - 1 pieces it receives into its own.  After the rounds every rank
 * holds m / P reduced elements; the gather runs the rounds backwards to
 * the root (src/core/scatter.c).  Radix 2 everywhere is butterfly's
 * schedule (for P a power of two); one radix P is a direct reduce-scatter.
 *
 * Cost (byte model of pat_schedule_simulate, m bytes, balanced): with
 * s_i = m / (k_0 ... k_i) the piece of round i, a rank sends and receives
 * k_i - 1 pieces at once; their latencies overlap and they share its
 * ports, so they arrive together after alpha + (k_i - 1) s_i beta, and
 * the k_i - 1 combines follow one after the other; the gather moves the
 * same pieces back, k_i - 1 at once into one rank:
 *   sum_i [ 2 alpha + 2 (k_i - 1) s_i beta + (k_i - 1) s_i gamma ]
 *     = 2 R alpha + 2 (P - 1) / P m beta + sum_i (k_i - 1) s_i gamma
 * for R rounds (unit test against the simulation; exact while k_i <= 5,
 * since a larger radix reuses temporaries, so a receive waits for a
 * combine).  Against butterfly's log2 P rounds: fewer latencies, the same
 * bytes, and combine time (P - 1) / P m gamma on the critical path as
 * well.  (Measured in SMPI on bench/platforms/curie.xml, P = 128, radices
 * 4,4,4,2: within 2.1% of this from 8 B to 4 MiB with smpi/test:0.)
 *
 * Root and non-commutative ops.  The gather ends at the root, whatever it
 * is.  Group members cover consecutive rank ranges in digit order, so a
 * rank combines the pieces it receives in rank order: non-commutative ops
 * at the same cost (receives then come in digit order instead of the
 * staggered order that spreads a round's traffic).
 *
 * Tunables.  PAT_REDUCE_RADIXK: the radix vector, e.g. 4,4,8 (product P;
 * a call on a communicator of another size fails with MPI_ERR_ARG and a
 * message naming the variable and P's factors), or auto: P's prime
 * factors merged into radices of at most 4, largest first (a prime factor
 * above 4 is a radix of its own).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "radixk/radixk.h"

enum { TARGET = 4 };

void pat_radixk_auto(int P, int target, pat_scatter_plan *plan) {
  int primes[32], np = 0, n = P;
  plan->q = P;
  plan->nradix = 0;
  for (int f = 2; f * f <= n && np < 32; f++)
    while (n % f == 0 && np < 32) {
      primes[np++] = f;
      n /= f;
    }
  if (n > 1 && np < 32)
    primes[np++] = n;
  /* largest prime first: first fit into a radix that stays <= target */
  for (int i = np - 1; i >= 0; i--) {
    int placed = 0;
    for (int j = 0; j < plan->nradix && !placed; j++)
      if (plan->radix[j] * primes[i] <= target) {
        plan->radix[j] *= primes[i];
        placed = 1;
      }
    if (!placed)
      plan->radix[plan->nradix++] = primes[i];
  }
  /* largest radix first */
  for (int i = 1; i < plan->nradix; i++)
    for (int j = i; j > 0 && plan->radix[j] > plan->radix[j - 1]; j--) {
      int t = plan->radix[j];
      plan->radix[j] = plan->radix[j - 1];
      plan->radix[j - 1] = t;
    }
}

/* "2 x 3 x 7" into buf. */
static void factors(int P, char *buf, size_t len) {
  size_t used = 0;
  int n = P, first = 1;
  buf[0] = '\0';
  for (int f = 2; n > 1 && used < len; f++) {
    if (f * f > n)
      f = n;
    while (n % f == 0 && used < len) {
      int k = snprintf(buf + used, len - used, "%s%d", first ? "" : " x ", f);
      used += k > 0 ? (size_t)k : 0;
      first = 0;
      n /= f;
    }
  }
  if (first)
    snprintf(buf, len, "%d", P);
}

int pat_radixk_plan(const pat_radixk_config *cfg, int P, pat_scatter_plan *plan,
                    char *why, size_t whylen) {
  long long prod = 1;
  if (cfg == NULL || cfg->n == 0) {
    pat_radixk_auto(P, TARGET, plan);
    return PAT_SUCCESS;
  }
  plan->q = P;
  plan->nradix = cfg->n;
  for (int i = 0; i < cfg->n; i++) {
    plan->radix[i] = cfg->radix[i];
    prod =
        prod * cfg->radix[i] > (1LL << 40) ? (1LL << 40) : prod * cfg->radix[i];
  }
  if (prod != P) {
    char f[200];
    char head[64];
    factors(P, f, sizeof f);
    snprintf(head, sizeof head, "%d", P);
    snprintf(why, whylen,
             "PAT_REDUCE_RADIXK gives radices multiplying to %lld, but the "
             "communicator has %d ranks (%s%s%s); valid: radices >= 2 "
             "multiplying to %d, or auto",
             prod, P, strcmp(f, head) == 0 ? "" : head,
             strcmp(f, head) == 0 ? "" : " = ",
             strcmp(f, head) == 0 ? (P > 1 ? "a prime" : "one rank") : f, P);
    return PAT_ERR_BAD_ENV;
  }
  return PAT_SUCCESS;
}

static const pat_env_var radixk_env[] = {
    {"PAT_REDUCE_RADIXK", "auto",
     "radixk: the radix of each round, e.g. 4,4,8 (product = communicator "
     "size), or auto (factors of P merged into radices <= 4)",
     0, PAT_SCOPE_ROWS + PAT_REDUCE_ALG_RADIXK},
    {NULL, NULL, NULL, 0, 0}};

static int radixk_parse(void *config, const char *(*get)(const char *),
                        char *why, size_t whylen) {
  pat_radixk_config *cfg = config;
  const char *v = pat_env_value(&radixk_env[0], get), *s;
  cfg->n = 0;
  if (strcasecmp(v, "auto") == 0)
    return PAT_SUCCESS;
  for (s = v;;) {
    char *end = NULL;
    long k = strtol(s, &end, 10);
    if (end == s || k < 2 || k > 65535 || cfg->n == PAT_RADIXK_MAX ||
        (*end != ',' && *end != '\0')) {
      snprintf(why, whylen,
               "%s=%s is not a radix vector; valid: auto, or up to %d "
               "integers in 2..65535 separated by commas (e.g. 4,4,8), "
               "multiplying to the communicator size",
               radixk_env[0].name, v, PAT_RADIXK_MAX);
      cfg->n = 0;
      return PAT_ERR_BAD_ENV;
    }
    cfg->radix[cfg->n++] = (uint16_t)k;
    if (*end == '\0')
      break;
    s = end + 1;
  }
  return PAT_SUCCESS;
}

static int radixk_build(const pat_sched_params *p, int rank,
                        pat_schedule *sched) {
  pat_scatter_plan plan;
  char why[400];
  int err =
      pat_radixk_plan(pat_config_alg(pat_config_get(), PAT_REDUCE_ALG_RADIXK),
                      p->nranks, &plan, why, sizeof why);
  if (err == PAT_SUCCESS)
    err = pat_scatter_emit(sched, p, rank, &plan);
  else
    pat_warn_once("%s", why);
  return err;
}

/* The header's formula for the configured (or automatic) radices, a fold
 * of alpha + m (beta + gamma) when q < P, plus the latest arrival. */
static double radixk_estimate(const pat_sched_params *p) {
  pat_scatter_plan plan;
  const pat_model *c = &p->model;
  double piece = (double)p->count * p->elem_size, t = 0;
  if (pat_radixk_plan(pat_config_alg(pat_config_get(), PAT_REDUCE_ALG_RADIXK),
                      p->nranks, &plan, NULL, 0) != PAT_SUCCESS)
    return INFINITY;
  if (plan.q < p->nranks)
    t += c->alpha + piece * (c->beta + c->gamma);
  for (int i = 0; i < plan.nradix; i++) {
    int k = plan.radix[i];
    piece /= k;
    t += 2 * c->alpha + 2 * (k - 1) * piece * c->beta +
         (k - 1) * piece * c->gamma;
  }
  return t + pat_sched_spread(p);
}

_Static_assert(sizeof(pat_radixk_config) <= PAT_ALG_CONFIG_BYTES,
               "PAT_REDUCE_RADIXK must fit the configuration cache");

const pat_alg_row pat_alg_radixk = {
    .id = PAT_REDUCE_ALG_RADIXK,
    .name = "radixk",
    .description = "radix-k reduce-scatter (PAT_REDUCE_RADIXK), then gather; "
                   "rank order for non-commutative ops",
    .build = radixk_build,
    .estimate = radixk_estimate,
    .arrivals_delay = 1,
    .fallback = PAT_REDUCE_ALG_RADIXK,
    .env = radixk_env,
    .config_size = sizeof(pat_radixk_config),
    .parse = radixk_parse};
