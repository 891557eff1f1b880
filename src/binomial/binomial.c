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
 * Buffers.  The builder only lists each rank's tree events (receive a
 * child, send to the parent); pat_tree_emit (src/core/tree.c) chooses the
 * slots: no copy of the send buffer, at most two temporaries, and the
 * root's result lands in the receive buffer.
 *
 * Tunables: none.
 */
#include <math.h>
#include <stdlib.h>

#include "core/pat_internal.h"

/* Events of one rank: at most one per round, plus the root's two. */
#define MAX_EVENTS 66

typedef struct events {
  pat_tree_event ev[MAX_EVENTS];
  int n;
} events;

static void add(events *e, pat_tree_kind kind, int round, int peer) {
  if (e->n < MAX_EVENTS)
    e->ev[e->n++] =
        (pat_tree_event){.kind = kind, .round = round, .peer = peer};
}

/* This rank's events in the binomial tree over the n ranks base, base + 1,
 * ... (mod P), where it has position v: children come after it. */
static void subtree(events *e, int P, int base, int n, int v) {
  int round = 0;
  for (int mask = 1; mask < n; mask <<= 1, round++) {
    if (v & mask) {
      add(e, PAT_TREE_SEND, round, (base + v - mask) % P);
      break;
    }
    if (v + mask < n)
      add(e, PAT_TREE_RECV_AFTER, round, (base + v + mask) % P);
  }
}

/* Non-commutative op, root r > 0: the left ranks 0..r-1 and the right
 * ranks r+1..P-1 reduce in order in two trees whose roots (ranks 0 and
 * r+1) send to r in round R; r computes left (op) x_r (op) right. */
static void split_at_root(events *e, int P, int r, int rank) {
  int nleft = r, nright = P - 1 - r;
  int dl = pat_ceil_log2(nleft), dr = pat_ceil_log2(nright);
  int R = dl > dr ? dl : dr;
  if (rank < r) {
    subtree(e, P, 0, nleft, rank);
    if (rank == 0)
      add(e, PAT_TREE_SEND, R, r);
  } else if (rank > r) {
    subtree(e, P, r + 1, nright, rank - r - 1);
    if (rank == r + 1)
      add(e, PAT_TREE_SEND, R, r);
  } else {
    if (nright > 0)
      add(e, PAT_TREE_RECV_AFTER, R, r + 1);
    add(e, PAT_TREE_RECV_BEFORE, R, 0);
  }
}

static int binomial_build(const pat_sched_params *p, int rank,
                          pat_schedule *sched) {
  int P = p->nranks, err = PAT_SUCCESS;
  for (int r = rank < 0 ? 0 : rank; err == PAT_SUCCESS && r < P; r++) {
    events e = {.n = 0};
    if (p->commutative || p->root == 0)
      subtree(&e, P, p->root, P, (r - p->root + P) % P);
    else
      split_at_root(&e, P, p->root, r);
    err = pat_tree_emit(sched, p, r, e.ev, e.n);
    if (rank >= 0)
      break;
  }
  return err;
}

/* When position v of the tree over the n ranks base, base + 1, ... (mod
 * P) holds its subtree's partial (ready[] has room for n), as the
 * executor runs it (PAT_REDUCE_MAX_OUTSTANDING = 1): from its arrival on,
 * v receives its children in round order, one message at a time (alpha +
 * m beta once the child holds its partial), and combines each (m gamma)
 * while the next one flows. */
static double subtree_ready(const pat_sched_params *p, int base, int n,
                            double *ready) {
  double m = (double)p->count * p->elem_size;
  double wire = p->model.alpha + m * p->model.beta, work = m * p->model.gamma;
  for (int v = n - 1; v >= 0; v--) {
    double own = p->arrivals != NULL ? p->arrivals[(base + v) % p->nranks] : 0;
    double port = own, done = own;
    for (int mask = 1; mask < n && !(v & mask); mask <<= 1)
      if (v + mask < n) {
        port = (ready[v + mask] > port ? ready[v + mask] : port) + wire;
        done = (port > done ? port : done) + work;
      }
    ready[v] = done;
  }
  return n > 0 ? ready[0] : -INFINITY;
}

/* O(P): the tree's completion under the arrivals; a non-commutative op
 * with root r > 0 ends with the root taking both subtrees' partials at
 * once. */
static double binomial_estimate(const pat_sched_params *p) {
  int P = p->nranks, r = p->root;
  double *ready = malloc((size_t)(P > 0 ? P : 1) * sizeof *ready), t;
  double first = pat_sched_first_arrival(p);
  if (ready == NULL)
    return INFINITY;
  if (p->commutative || r == 0) {
    t = subtree_ready(p, p->commutative ? r : 0, P, ready);
  } else {
    /* the left (0..r-1) and right (r+1..P-1) partials: both receives are
     * posted at once, so their latencies overlap and, while both flow,
     * they share the port fairly (each at half its rate); then r computes
     * x_r (op) right, then left (op) that */
    double m = (double)p->count * p->elem_size, wire = m * p->model.beta;
    double own = p->arrivals != NULL ? p->arrivals[r] : 0, end[2];
    int has[2] = {r > 0, r < P - 1}, a, b;
    end[0] = fmax(own, subtree_ready(p, 0, r, ready)) + p->model.alpha;
    end[1] = fmax(own, subtree_ready(p, r + 1, P - 1 - r, ready)) +
             p->model.alpha; /* the starts, so far */
    a = end[1] < end[0];     /* the one that starts first */
    b = 1 - a;
    if (has[0] && has[1] && end[b] < end[a] + wire) { /* they overlap */
      double left = wire - (end[b] - end[a]), from = end[b];
      end[a] = from + 2 * left;
      end[b] = from + left + wire;
    } else {
      end[0] += wire;
      end[1] += wire;
    }
    t = own;
    for (int i = 1; i >= 0; i--)
      if (has[i])
        t = fmax(t, end[i]) + m * p->model.gamma;
  }
  free(ready);
  return t - first;
}

const pat_alg_row pat_alg_binomial = {
    .id = PAT_REDUCE_ALG_BINOMIAL,
    .name = "binomial",
    .description = "binomial tree, ceil(log2 P) rounds; rank order for "
                   "non-commutative ops",
    .build = binomial_build,
    .estimate = binomial_estimate,
    .fallback = PAT_REDUCE_ALG_BINOMIAL};
