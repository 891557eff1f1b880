/*
 * binomial: the binomial tree reduction.
 *
 * Idea.  Number the ranks v = 0..P-1 relative to the tree root.  In round j
 * (mask 2^j) a rank whose bit j is set sends its partial result to v - 2^j
 * and is done; a rank with bit j clear receives from v + 2^j, if it exists,
 * and combines.  After ceil(log2 P) rounds rank v = 0 holds the result.
 *
 * Cost.  ceil(log2 P) (alpha + m beta + m gamma) for m bytes, the root on
 * the critical path; every rank but the root sends exactly once.
 *
 * Root and non-commutative ops.  For a commutative op the tree is rooted at
 * the root (v = rank - root mod P).  Otherwise the tree keeps rank order:
 * it is rooted at rank 0, every rank combines its partial (covering ranks
 * v..) with a child's partial covering the ranks right after it, as
 * "mine (op) child", and rank 0 forwards the result to the root in one more
 * round: ceil(log2 P) + 1 rounds when root != 0.
 *
 * Buffers.  A receive lands in a temporary slot and the combine writes
 * there (dst = partial (op) received), so the user's send buffer is never
 * written.  At the root the receive slots alternate so that the last one
 * is the receive buffer: no final copy.  Two temporaries at most.
 *
 * Tunables: none.
 */
#include "core/pat_internal.h"

typedef struct builder {
  pat_schedule *sched;
  int rank;
  int err;
} builder;

static void emit(builder *b, pat_sched_kind kind, int round, int peer,
                 int src, int dst, int count) {
  pat_sched_op op = {.kind = kind,
                     .round = round,
                     .peer = peer,
                     .src = src,
                     .dst = dst,
                     .offset = 0,
                     .count = count};
  if (b->err == PAT_SUCCESS)
    b->err = pat_schedule_add(b->sched, b->rank, &op);
}

/* Number of children of relative rank v in a tree of P ranks. */
static int nchildren(int v, int P) {
  int n = 0;
  for (int mask = 1; mask < P && !(v & mask); mask <<= 1)
    if (v + mask < P)
      n++;
  return n;
}

int pat_binomial_build(const pat_sched_params *p, int rank,
                       pat_schedule *sched) {
  builder b = {.sched = sched, .rank = rank, .err = PAT_SUCCESS};
  int P = p->nranks, m = p->count;
  int tree_root = p->commutative ? p->root : 0;
  int v = (rank - tree_root + P) % P;
  /* At the root the send buffer may alias the receive buffer (in place). */
  int at_root = rank == p->root && rank == tree_root;
  int acc = PAT_SLOT_SEND; /* slot holding this rank's partial */
  int kids = nchildren(v, P), kid = 0, round = 0, mask;

  for (mask = 1; mask < P; mask <<= 1, round++) {
    if (v & mask) {
      emit(&b, PAT_SCHED_SEND, round, (v - mask + tree_root) % P, acc, -1, m);
      break;
    }
    if (v + mask < P) {
      int left = kids - 1 - kid++; /* receives after this one */
      int dst = left % 2 == 0 ? PAT_SLOT_RECV : PAT_SLOT_TMP0;
      if (!at_root)
        dst = acc == PAT_SLOT_TMP0 ? PAT_SLOT_TMP0 + 1 : PAT_SLOT_TMP0;
      else if (dst == PAT_SLOT_RECV && acc == PAT_SLOT_SEND && p->in_place)
        dst = PAT_SLOT_TMP0 + 1; /* the receive buffer still holds our data */
      emit(&b, PAT_SCHED_RECV, round, (v + mask + tree_root) % P, -1, dst, m);
      emit(&b, PAT_SCHED_COMBINE, round, -1, acc, dst, m);
      acc = dst;
    }
  }
  /* The root's partial ends outside the receive buffer only for P = 1 or
   * an in-place root with one child. */
  if (at_root && acc != PAT_SLOT_RECV &&
      !(p->in_place && acc == PAT_SLOT_SEND))
    emit(&b, PAT_SCHED_COPY, round > 0 ? round - 1 : 0, -1, acc,
         PAT_SLOT_RECV, m);
  /* Non-commutative with root != 0: rank 0 forwards in one more round. */
  if (tree_root != p->root) {
    int last = 0;
    while ((1 << last) < P)
      last++;
    if (rank == tree_root)
      emit(&b, PAT_SCHED_SEND, last, p->root, acc, -1, m);
    else if (rank == p->root)
      emit(&b, PAT_SCHED_RECV, last, tree_root, -1, PAT_SLOT_RECV, m);
  }
  return b.err;
}
