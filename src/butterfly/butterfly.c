/*
 * butterfly: Rabenseifner's reduction, recursive vector halving and
 * distance doubling, then a binomial gather to the root (thesis Alg. 3;
 * MPICH's reduce_scatter_gather).
 *
 * Idea.  With q the largest power of two <= P, the first 2 (P - q) ranks
 * fold pairwise into one (the survivor combines its partner's whole
 * vector).  The q ranks then run log2 q rounds: in round i, w exchanges
 * half of its current range with w xor 2^i and combines the half it keeps,
 * so every rank ends with m / q reduced elements; the gather reverses the
 * rounds, the range doubling, to the root.  The plan is radix-k's with
 * radices [2, 2, ..., 2] (src/core/scatter.c).
 *
 * Cost (byte model, m bytes, P = q a power of two):
 *   2 log2 P alpha + 2 (P - 1) / P m beta + (P - 1) / P m gamma;
 * P not a power of two adds the fold, about alpha + m beta + m gamma
 * (thesis Table 3.3; the simulation gives between alpha + (q - 1) / q m
 * gamma less, where the fold's delay overlaps the gather or a latency,
 * and m / 2 beta more, where the folded survivor's later pieces share its
 * send port with an earlier one: tests/unit/test_bandwidth.c).
 * Bandwidth-optimal for large m; for small m binomial's log2 P alpha
 * wins.
 *
 * Root and non-commutative ops.  The root is never folded away (it is its
 * pair's survivor) and the gather ends at it: no extra hop for any root.
 * Pairs and halves cover consecutive rank ranges, so each combine keeps
 * rank order ("theirs (op) mine" for the lower half, "mine (op) theirs"
 * for the upper): non-commutative ops are served at the same cost.
 *
 * Tunables: none.
 */
#include "core/pat_internal.h"

/* The power-of-two plan for P ranks. */
static void plan_of(int P, pat_scatter_plan *plan) {
  plan->q = 1;
  plan->nradix = 0;
  while (2 * plan->q <= P) {
    plan->q *= 2;
    plan->radix[plan->nradix++] = 2;
  }
}

static int butterfly_build(const pat_sched_params *p, int rank,
                           pat_schedule *sched) {
  pat_scatter_plan plan;
  plan_of(p->nranks, &plan);
  return pat_scatter_emit(sched, p, rank, &plan);
}

/* The header's formula for q, the largest power of two <= P, plus a fold
 * of alpha + m (beta + gamma) when P > q, plus the latest arrival. */
static double butterfly_estimate(const pat_sched_params *p) {
  int P = p->nranks, q = 1 << (pat_ceil_log2(P + 1) - 1);
  double m = (double)p->count * p->elem_size, L = pat_ceil_log2(q);
  const pat_model *c = &p->model;
  double t = 2 * L * c->alpha + 2.0 * (q - 1) / q * m * c->beta +
             (double)(q - 1) / q * m * c->gamma;
  if (q < P)
    t += c->alpha + m * (c->beta + c->gamma);
  return t + pat_sched_spread(p);
}

const pat_alg_row pat_alg_butterfly = {
    .id = PAT_REDUCE_ALG_BUTTERFLY,
    .name = "butterfly",
    .description = "Rabenseifner: recursive halving reduce-scatter, then "
                   "gather; rank order for non-commutative ops",
    .build = butterfly_build,
    .estimate = butterfly_estimate,
    .arrivals_delay = 1,
    .fallback = PAT_REDUCE_ALG_BUTTERFLY};
