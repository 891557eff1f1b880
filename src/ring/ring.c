/*
 * ring: the ring ("bucket") reduction, thesis Alg. 2: a ring
 * reduce-scatter, then a binomial gather of the blocks to the root.
 *
 * Idea.  Number the ranks v = rank - root mod P and cut the vector into P
 * blocks (block b = [b m / P, (b + 1) m / P): uneven when P does not
 * divide the count, empty when count < P).  In step s = 0..P-2, v sends
 * block v - s - 1 (mod P) to v + 1 and receives block v - s - 2 from
 * v - 1, which it combines with its own; after P - 1 steps v holds block v
 * reduced over every rank.  The gather is binomial in v with block runs
 * doubling: in round j, v = 2^j (mod 2^(j+1)) sends blocks [v, v + 2^j)
 * to v - 2^j, so v = 0, the root, ends with every block.
 *
 * Cost (byte model, b = m / P bytes per block, P dividing the count):
 *   (P - 1) (alpha + b beta + b gamma) + ceil(log2 P) alpha
 *     + (P - 1) b beta
 * (thesis Table 3.3): bandwidth-optimal and each step's combine on the
 * critical path, but P - 1 latencies: for large m only.
 *
 * Root and non-commutative ops.  The ring is rotated to start after the
 * root, so any root costs the same.  A block's partial travels around the
 * ring and wraps from rank P-1 to rank 0, so it cannot keep rank order:
 * non-commutative ops fall back to butterfly (same bandwidth, in order).
 *
 * Buffers.  One temporary holds every block's partial (the root uses its
 * receive buffer, an in-place root combines in place); blocks are
 * disjoint, so nothing is copied.
 *
 * Tunables: none.
 */
#include "core/pat_internal.h"

typedef struct ring {
  pat_schedule *sched;
  int rank, P, count, root, err;
} ring;

static void op(ring *e, pat_sched_kind kind, int round, int peer, int src,
               int dst, int lo, int hi) {
  if (hi > lo) /* empty blocks (count < P) are skipped on both sides */
    pat_schedule_put(e->sched, e->rank, &e->err, kind, round, peer, src, dst,
                     lo, hi);
}

/* First element of block b (b may be P: the end). */
static int block(const ring *e, int b) {
  return (int)((long long)b * e->count / e->P);
}

static int rank_of(const ring *e, int v) { return (v + e->root) % e->P; }

static int emit_rank(pat_schedule *sched, const pat_sched_params *p, int r) {
  ring e = {.sched = sched,
            .rank = r,
            .P = p->nranks,
            .count = p->count,
            .root = p->root,
            .err = PAT_SUCCESS};
  int P = p->nranks, v = (r - p->root + P) % P;
  int is_root = r == p->root, in_place = is_root && p->in_place;
  /* where partials live: combined in place at an in-place root, else in
   * the work slot the blocks arrive in */
  int work = is_root ? PAT_SLOT_RECV : PAT_SLOT_TMP0;
  int part = in_place ? PAT_SLOT_SEND : work;
  int arrive = in_place ? PAT_SLOT_TMP0 : work;
  for (int s = 0; s + 1 < P; s++) {
    int out = ((v - s - 1) % P + P) % P, in = ((v - s - 2) % P + P) % P;
    op(&e, PAT_SCHED_SEND, s, rank_of(&e, (v + 1) % P),
       s == 0 ? PAT_SLOT_SEND : part, -1, block(&e, out), block(&e, out + 1));
    op(&e, PAT_SCHED_RECV, s, rank_of(&e, (v - 1 + P) % P), -1, arrive,
       block(&e, in), block(&e, in + 1));
    if (in_place)
      op(&e, PAT_SCHED_COMBINE, s, -1, arrive, part, block(&e, in),
         block(&e, in + 1));
    else
      op(&e, PAT_SCHED_COMBINE, s, -1, PAT_SLOT_SEND, part, block(&e, in),
         block(&e, in + 1));
  }
  if (P == 1 && !in_place)
    op(&e, PAT_SCHED_COPY, 0, -1, PAT_SLOT_SEND, PAT_SLOT_RECV, 0, p->count);
  for (int j = 0, mask = 1; mask < P; j++, mask <<= 1) {
    int round = P - 1 + j;
    if (v & mask) {
      int end = v + mask < P ? v + mask : P;
      op(&e, PAT_SCHED_SEND, round, rank_of(&e, v - mask), part, -1,
         block(&e, v), block(&e, end));
      break;
    }
    if (v + mask < P) {
      int end = v + 2 * mask < P ? v + 2 * mask : P;
      op(&e, PAT_SCHED_RECV, round, rank_of(&e, v + mask), -1, part,
         block(&e, v + mask), block(&e, end));
    }
  }
  return e.err != PAT_SUCCESS ? e.err : pat_schedule_mark_built(sched, r);
}

static int ring_build(const pat_sched_params *p, int rank,
                      pat_schedule *sched) {
  int err = p->commutative ? PAT_SUCCESS : PAT_ERR_INVALID_ARG;
  for (int r = rank < 0 ? 0 : rank; err == PAT_SUCCESS && r < p->nranks; r++) {
    err = emit_rank(sched, p, r);
    if (rank >= 0)
      break;
  }
  return err;
}

/* The header's formula for blocks of ceil(m / P), plus the latest
 * arrival: every rank is in the first step. */
static double ring_estimate(const pat_sched_params *p) {
  int P = p->nranks;
  double b = (double)((p->count + P - 1) / P) * p->elem_size;
  const pat_model *c = &p->model;
  return (P - 1) * (c->alpha + b * (c->beta + c->gamma)) +
         pat_ceil_log2(P) * c->alpha + (P - 1) * b * c->beta +
         pat_sched_spread(p);
}

const pat_alg_row pat_alg_ring = {
    .id = PAT_REDUCE_ALG_RING,
    .name = "ring",
    .description = "ring reduce-scatter (P - 1 steps of m / P), then binomial "
                   "gather; commutative ops",
    .build = ring_build,
    .estimate = ring_estimate,
    .arrivals_delay = 1,
    .needs = PAT_NEEDS_COMMUTATIVE,
    .fallback = PAT_REDUCE_ALG_BUTTERFLY};
