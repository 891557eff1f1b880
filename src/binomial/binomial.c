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
 * the root (v = rank - root mod P).  Otherwise trees keep rank order: every
 * rank combines its partial (covering ranks v..) with a child's partial
 * covering the ranks right after it, as "mine (op) child".  With root 0
 * that is the same tree over ranks 0..P-1.  With root r > 0 the ranks
 * 0..r-1 and r+1..P-1 reduce in two such trees, whose roots send to r in
 * the same round, and r computes left (op) x_r (op) right:
 * 1 + max(ceil(log2 r), ceil(log2 (P-1-r))) rounds, never more than
 * ceil(log2 P) + 1, and no rank receives after it has sent.
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

static void emit(builder *b, pat_sched_kind kind, int round, int peer, int src,
                 int dst, int count) {
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

static int ceil_log2(int n) {
  int r = 0;
  while ((1 << r) < n)
    r++;
  return r;
}

/* Number of children of position v in a tree of n ranks. */
static int nchildren(int v, int n) {
  int k = 0;
  for (int mask = 1; mask < n && !(v & mask); mask <<= 1)
    if (v + mask < n)
      k++;
  return k;
}

/* Emits this rank's part of the binomial tree over the n ranks base,
 * base + 1, ... (mod P); v is this rank's position.  Position 0 keeps the
 * partial, in the slot returned; the others send it to their parent.  If
 * this rank is the call's root (user_root), its last receive lands in the
 * receive buffer. */
static int subtree(builder *b, const pat_sched_params *p, int base, int n,
                   int v, int user_root) {
  int P = p->nranks, m = p->count;
  int acc = PAT_SLOT_SEND; /* slot holding this rank's partial */
  int kids = nchildren(v, n), kid = 0, round = 0;
  for (int mask = 1; mask < n; mask <<= 1, round++) {
    if (v & mask) {
      emit(b, PAT_SCHED_SEND, round, (base + v - mask) % P, acc, -1, m);
      break;
    }
    if (v + mask < n) {
      int left = kids - 1 - kid++; /* receives after this one */
      int dst = acc == PAT_SLOT_TMP0 ? PAT_SLOT_TMP0 + 1 : PAT_SLOT_TMP0;
      if (user_root) {
        dst = left % 2 == 0 ? PAT_SLOT_RECV : PAT_SLOT_TMP0;
        if (dst == PAT_SLOT_RECV && acc == PAT_SLOT_SEND && p->in_place)
          dst = PAT_SLOT_TMP0 + 1; /* the receive buffer holds our data */
      }
      emit(b, PAT_SCHED_RECV, round, (base + v + mask) % P, -1, dst, m);
      emit(b, PAT_SCHED_COMBINE, round, -1, acc, dst, m);
      acc = dst;
    }
  }
  /* The root's partial ends outside the receive buffer only for n = 1 or
   * an in-place root with one child. */
  if (user_root && acc != PAT_SLOT_RECV &&
      !(p->in_place && acc == PAT_SLOT_SEND))
    emit(b, PAT_SCHED_COPY, round > 0 ? round - 1 : 0, -1, acc, PAT_SLOT_RECV,
         m);
  return acc;
}

/* Non-commutative op, root r > 0: the left ranks 0..r-1 and the right
 * ranks r+1..P-1 reduce in order in two trees whose roots (ranks 0 and
 * r+1) send to r in round R; r computes left (op) x_r (op) right. */
static void split_at_root(builder *b, const pat_sched_params *p, int rank) {
  int P = p->nranks, r = p->root, m = p->count;
  int nleft = r, nright = P - 1 - r;
  int R = ceil_log2(nleft) > ceil_log2(nright) ? ceil_log2(nleft)
                                               : ceil_log2(nright);
  if (rank < r) {
    int acc = subtree(b, p, 0, nleft, rank, 0);
    if (rank == 0)
      emit(b, PAT_SCHED_SEND, R, r, acc, -1, m);
  } else if (rank > r) {
    int acc = subtree(b, p, r + 1, nright, rank - r - 1, 0);
    if (rank == r + 1)
      emit(b, PAT_SCHED_SEND, R, r, acc, -1, m);
  } else if (nright == 0) { /* r = P - 1: result = left (op) x_r */
    emit(b, PAT_SCHED_RECV, R, 0, -1, PAT_SLOT_TMP0, m);
    if (!p->in_place)
      emit(b, PAT_SCHED_COPY, R, -1, PAT_SLOT_SEND, PAT_SLOT_RECV, m);
    emit(b, PAT_SCHED_COMBINE, R, -1, PAT_SLOT_TMP0, PAT_SLOT_RECV, m);
  } else {
    /* in place, the receive buffer holds x_r until it is combined */
    int right = p->in_place ? PAT_SLOT_TMP0 + 1 : PAT_SLOT_RECV;
    emit(b, PAT_SCHED_RECV, R, 0, -1, PAT_SLOT_TMP0, m);
    emit(b, PAT_SCHED_RECV, R, r + 1, -1, right, m);
    emit(b, PAT_SCHED_COMBINE, R, -1, PAT_SLOT_SEND, right, m);
    emit(b, PAT_SCHED_COMBINE, R, -1, PAT_SLOT_TMP0, right, m);
    if (right != PAT_SLOT_RECV)
      emit(b, PAT_SCHED_COPY, R, -1, right, PAT_SLOT_RECV, m);
  }
}

int pat_binomial_build(const pat_sched_params *p, int rank,
                       pat_schedule *sched) {
  builder b = {.sched = sched, .rank = rank, .err = PAT_SUCCESS};
  int P = p->nranks;
  if (p->commutative || p->root == 0)
    subtree(&b, p, p->root, P, (rank - p->root + P) % P, rank == p->root);
  else
    split_at_root(&b, p, rank);
  return b.err;
}
