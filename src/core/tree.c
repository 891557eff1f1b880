/*
 * Reduction trees to schedules.  A tree algorithm describes, per rank, the
 * events of its part of the tree in order: receive a child's partial
 * (covering the ranks right after or right before its own), or send its
 * partial to its parent.  pat_tree_emit turns them into operations on
 * buffer slots, so every tree algorithm shares one piece of buffer logic:
 *
 *  - a partial covering ranks after ours:  dst = mine (op) child, in the
 *    slot the child's data arrived in (no copy, the send buffer is never
 *    written);
 *  - a partial covering ranks before ours: mine = child (op) mine, in a
 *    writable slot (the send buffer is copied once if it is still ours);
 *  - at the root the receives are placed so that the result ends in the
 *    receive buffer without a final copy where possible;
 *  - a slot freed in a round is not reused for a receive of the same round
 *    (receives of a round may be in flight together).
 *
 * Segments.  pat_tree_emit_segments cuts [0, count) into nseg segments
 * (segment s is [s count / nseg, (s + 1) count / nseg)) and every event
 * names its segment: each segment has its own partial and slot state, and
 * its operations cover only its range, so the segments of a pipelined tree
 * share the temporary slots (disjoint ranges) and flow independently
 * through the dataflow executor.  Events are given in round order across
 * segments.  pat_tree_emit is the one-segment case.
 */
#include <stdlib.h>

#include "pat_internal.h"

#define MAX_SLOTS PAT_SLOT_MAX

/* One segment's state; the emitter works on one at a time. */
typedef struct emitter {
  pat_schedule *sched;
  const pat_sched_params *p;
  int rank;
  int err;
  int offset, count;         /* the segment's range */
  int acc;                   /* slot holding this rank's partial */
  int busy_round[MAX_SLOTS]; /* last round a slot was received into/freed */
  int right_left;            /* receives of partials after ours to come */
} emitter;

static void op(emitter *e, pat_sched_kind kind, int round, int peer, int src,
               int dst) {
  pat_sched_op o = {.kind = kind,
                    .round = round,
                    .peer = peer,
                    .src = src,
                    .dst = dst,
                    .offset = e->offset,
                    .count = e->count};
  if (e->err == PAT_SUCCESS)
    e->err = pat_schedule_add(e->sched, e->rank, &o);
}

static int is_root(const emitter *e) { return e->rank == e->p->root; }

/* The receive buffer aliases the send buffer at an in-place root. */
static int same_buffer(const emitter *e, int a, int b) {
  int in_place_root = e->p->in_place && is_root(e);
  if (in_place_root && a == PAT_SLOT_SEND)
    a = PAT_SLOT_RECV;
  if (in_place_root && b == PAT_SLOT_SEND)
    b = PAT_SLOT_RECV;
  return a == b;
}

static int writable(const emitter *e, int slot) {
  return !same_buffer(e, slot, PAT_SLOT_SEND) || (e->p->in_place && is_root(e));
}

/* Can slot take a receive (or a copy) in round? */
static int usable(const emitter *e, int slot, int round) {
  return !same_buffer(e, slot, e->acc) && e->busy_round[slot] < round &&
         (slot != PAT_SLOT_RECV || is_root(e));
}

static int free_tmp(emitter *e, int round) {
  int slot = PAT_SLOT_TMP0;
  while (slot < MAX_SLOTS - 1 && !usable(e, slot, round))
    slot++;
  if (!usable(e, slot, round) && e->err == PAT_SUCCESS)
    e->err = PAT_ERR_INVALID_ARG; /* more receives per round than slots */
  e->busy_round[slot] = round;
  return slot;
}

/* Emits the operations of one event of the emitter's segment. */
static void emit_event(emitter *e, const pat_tree_event *ev) {
  int round = ev->round;
  if (ev->kind == PAT_TREE_SEND) {
    op(e, PAT_SCHED_SEND, round, ev->peer, e->acc, -1);
  } else if (ev->kind == PAT_TREE_RECV_AFTER) {
    /* mine (op) child lands where the child's data arrived; at the root
     * every other such receive goes to the receive buffer, ending there */
    int dst;
    e->right_left--;
    if (is_root(e) && e->right_left % 2 == 0 &&
        usable(e, PAT_SLOT_RECV, round)) {
      dst = PAT_SLOT_RECV;
      e->busy_round[dst] = round;
    } else {
      dst = free_tmp(e, round);
    }
    op(e, PAT_SCHED_RECV, round, ev->peer, -1, dst);
    op(e, PAT_SCHED_COMBINE, round, -1, e->acc, dst);
    if (!same_buffer(e, e->acc, PAT_SLOT_SEND))
      e->busy_round[e->acc] = round; /* freed: reusable next round */
    e->acc = dst;
  } else {
    /* child (op) mine, in a writable slot */
    int tmp = free_tmp(e, round);
    op(e, PAT_SCHED_RECV, round, ev->peer, -1, tmp);
    if (!writable(e, e->acc)) {
      int w = is_root(e) && usable(e, PAT_SLOT_RECV, round)
                  ? PAT_SLOT_RECV
                  : free_tmp(e, round);
      e->busy_round[w] = round;
      op(e, PAT_SCHED_COPY, round, -1, e->acc, w);
      e->acc = w;
    }
    op(e, PAT_SCHED_COMBINE, round, -1, tmp, e->acc);
  }
}

int pat_tree_emit_segments(pat_schedule *sched, const pat_sched_params *p,
                           int rank, int nseg, const pat_tree_event *ev,
                           int nev) {
  emitter *seg = NULL;
  int err = PAT_SUCCESS, *last = NULL;
  if (nseg < 1 || sched == NULL || p == NULL) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  seg = calloc((size_t)nseg, sizeof *seg);
  last = malloc((size_t)nseg * sizeof *last);
  if (seg == NULL || last == NULL) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (int s = 0; s < nseg; s++) {
    emitter *e = &seg[s];
    *e = (emitter){.sched = sched,
                   .p = p,
                   .rank = rank,
                   .err = PAT_SUCCESS,
                   .offset = (int)((long long)s * p->count / nseg),
                   .acc = PAT_SLOT_SEND};
    e->count = (int)((long long)(s + 1) * p->count / nseg) - e->offset;
    for (int k = 0; k < MAX_SLOTS; k++)
      e->busy_round[k] = -1;
    last[s] = -1;
  }
  for (int i = 0; i < nev; i++) {
    if (ev[i].seg < 0 || ev[i].seg >= nseg) {
      err = PAT_ERR_INVALID_ARG;
      goto out;
    }
    seg[ev[i].seg].right_left += ev[i].kind == PAT_TREE_RECV_AFTER;
    last[ev[i].seg] = i;
  }
  /* the root's result ends in the receive buffer: a segment without events
   * is copied first, the others right after their last event (rounds stay
   * in order) */
  for (int s = 0; s < nseg && err == PAT_SUCCESS; s++)
    if (last[s] < 0 && is_root(&seg[s]) &&
        !same_buffer(&seg[s], seg[s].acc, PAT_SLOT_RECV)) {
      op(&seg[s], PAT_SCHED_COPY, nev > 0 ? ev[0].round : 0, -1, seg[s].acc,
         PAT_SLOT_RECV);
      err = seg[s].err;
    }
  for (int i = 0; i < nev && err == PAT_SUCCESS; i++) {
    emitter *e = &seg[ev[i].seg];
    emit_event(e, &ev[i]);
    if (i == last[ev[i].seg] && is_root(e) &&
        !same_buffer(e, e->acc, PAT_SLOT_RECV))
      op(e, PAT_SCHED_COPY, ev[i].round, -1, e->acc, PAT_SLOT_RECV);
    err = e->err;
  }
out:
  free(seg);
  free(last);
  return err;
}

int pat_tree_emit(pat_schedule *sched, const pat_sched_params *p, int rank,
                  const pat_tree_event *ev, int nev) {
  return pat_tree_emit_segments(sched, p, rank, 1, ev, nev);
}

int pat_ceil_log2(int n) {
  int r = 0;
  while (r < 31 && (1 << r) < n)
    r++;
  return r;
}
