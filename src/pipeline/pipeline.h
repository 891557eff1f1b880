/*
 * The pieces of pipeline's builder the tests reach: the cost formula, the
 * choice of the segment count (PAT_REDUCE_SEGMENTS, a core variable:
 * pat_config_get()->segments) and the builder for a given segment count.
 */
#ifndef PAT_PIPELINE_H
#define PAT_PIPELINE_H

#include "core/pat_internal.h"

/* The header's cost formula: completion time of the pipeline of nseg
 * segments (>= 1) for params under model (NULL: params->model), balanced
 * arrivals, every segment count / nseg elements. */
double pat_pipeline_estimate(const pat_sched_params *params,
                             const pat_model *model, int nseg);

/* pat_pipeline_estimate under params->arrivals (the header's
 * "Arrivals"); without arrivals the same.  Both take nseg as the builder
 * uses it: 1..count (pat_pipeline_segments). */
double pat_pipeline_estimate_arrivals(const pat_sched_params *params,
                                      const pat_model *model, int nseg);

/* The segment count the builder uses: configured (>= 1) clamped to
 * [1, count], or for configured 0 the formula's optimum in
 * [1, min(count, PAT_MAX_SEGMENTS)] under params->model (the
 * reference model when that is all zero or unusable).  0 for count 0. */
int pat_pipeline_segments(const pat_sched_params *params, int configured);

/* The builder with an explicit segment count (>= 1; more than count is
 * clamped to count): rank's program, or every rank's for rank -1. */
int pat_pipeline_build_segments(const pat_sched_params *params, int nseg,
                                int rank, pat_schedule *sched);

#endif /* PAT_PIPELINE_H */
