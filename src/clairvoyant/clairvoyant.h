/*
 * The clairvoyant folder's internals shared by its files and its unit
 * tests: the segmented plan (segmented.c).  Not installed.
 */
#ifndef PAT_CLAIRVOYANT_H
#define PAT_CLAIRVOYANT_H

#include "core/pat_internal.h"

/* One transfer of the segmented plan: sender sends its partial of segment
 * seg to receiver, which combines it into its own, in round. */
typedef struct pat_clairvoyant_transfer {
  int sender, receiver, seg, round;
} pat_clairvoyant_transfer;

/* The plan: n transfers in round order (N (P - 1) of them), rounds, and
 * when the root holds the result under the byte model. */
typedef struct pat_clairvoyant_plan {
  pat_clairvoyant_transfer *t;
  int n, rounds;
  double done;
} pat_clairvoyant_plan;

/* The bytes of the largest of nseg segments of params' count elements,
 * and the cost of one round of the segmented plan: its receive +
 * combine. */
double pat_clairvoyant_segment_bytes(const pat_sched_params *params, int nseg);
double pat_clairvoyant_segment_cost(const pat_sched_params *params, int nseg);

/* Plans the reduction of nseg >= 1 segments for params' arrival times
 * (finite) and model (a positive segment cost).  Returns a
 * pat_reduce_error; on error *plan is empty. */
int pat_clairvoyant_plan_segments(const pat_sched_params *params, int nseg,
                                  pat_clairvoyant_plan *plan);
void pat_clairvoyant_plan_free(pat_clairvoyant_plan *plan); /* NULL ok */

/* Most segments the automatic choice tries (PAT_REDUCE_SEGMENTS = 0), and
 * most segments served when configured (the plan takes O(P N) memory and
 * more time per segment than pipeline's chain). */
#define PAT_CLAIRVOYANT_AUTO_SEGMENTS 256
#define PAT_CLAIRVOYANT_MAX_SEGMENTS 1024

/* Most transfers ((P - 1) N) of an in-order candidate whose schedule the
 * automatic choice simulates: each simulation costs about 5-20 us per
 * transfer (P = 128-1024), and a build with new predicted arrivals pays
 * it again. */
#define PAT_CLAIRVOYANT_SIMULATE_MERGES 4096

/* A lower bound of the planned completion time with nseg segments for
 * params (P >= 2, commutative): rounds of one segment cost start at the
 * first arrival, and the root receives every segment's last partial in
 * its own round, the first after ceil(log2 P) rounds; and the last rank to
 * arrive sends (as the root: receives) nseg segments after it arrives.
 * Balanced arrivals, the plan meets it. */
double pat_clairvoyant_segment_bound(const pat_sched_params *params, int nseg);

/* The segment count the builder uses: configured (>= 1) clamped to
 * [1, min(count, PAT_CLAIRVOYANT_MAX_SEGMENTS)]; for configured 0, among
 * the powers of two up to PAT_CLAIRVOYANT_AUTO_SEGMENTS and count, the one
 * with the smallest planned completion time (ties: fewer; candidates
 * whose lower bound cannot win are not planned); for non-commutative ops,
 * the power of two, from 1 up, after which the estimated time stops
 * decreasing, then its neighbours (half, twice) while their simulated
 * time is shorter, as long as candidates have at most
 * PAT_CLAIRVOYANT_SIMULATE_MERGES transfers.  Needs a usable model. */
int pat_clairvoyant_segments(const pat_sched_params *params, int configured);

/* The completion time (after the earliest arrival) of the plan the builder
 * makes for planned (its arrivals; NULL: balanced): under actual arrivals
 * (nranks entries, any origin) its merges replayed in plan order, each
 * starting once its sender, its receiver and their ports are ready (a
 * prediction's plan met by what happened); with actual NULL what the
 * builder predicts.  INFINITY without a usable round cost. */
double pat_clairvoyant_estimate(const pat_sched_params *planned,
                                const double *actual);

#endif
