/*
 * A hand-written ring reduce-scatter + binomial gather schedule (see
 * handring.c), shared by the validator's tests and benchmark.
 */
#ifndef PAT_HANDRING_H
#define PAT_HANDRING_H

#include "core/pat_internal.h"

/* Commutative op, root 0, count elements in P blocks (some empty when
 * count < P).  broken: rank 2 combines one block twice.  NULL if out of
 * memory. */
pat_schedule *pat_handring_alloc(int P, int count, int broken);

#endif
