/* radix-k's plan, for its tests (src/radixk/radixk.c). */
#ifndef PAT_RADIXK_H
#define PAT_RADIXK_H

#include <stddef.h>
#include <stdint.h>

#include "core/pat_internal.h"

#define PAT_RADIXK_MAX 24 /* radices in PAT_REDUCE_RADIXK */

/* Parsed PAT_REDUCE_RADIXK: n == 0 for automatic. */
typedef struct pat_radixk_config {
  int n;
  uint16_t radix[PAT_RADIXK_MAX];
} pat_radixk_config;

/* The automatic radix vector for P ranks: P's prime factors merged into
 * radices of at most target (a prime above target is a radix of its own),
 * largest first; product P (empty for P = 1). */
void pat_radixk_auto(int P, int target, pat_scatter_plan *plan);

/* The plan for P ranks under cfg (NULL: automatic).  PAT_ERR_BAD_ENV with
 * a message in why when the configured radices do not multiply to P. */
int pat_radixk_plan(const pat_radixk_config *cfg, int P, pat_scatter_plan *plan,
                    char *why, size_t whylen);

#endif /* PAT_RADIXK_H */
