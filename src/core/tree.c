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
 *    (all receives of a round are in flight together).
 */
#include "pat_internal.h"

#define MAX_SLOTS (PAT_SLOT_TMP0 + 8)

typedef struct emitter {
  pat_schedule *sched;
  const pat_sched_params *p;
  int rank;
  int err;
  int acc;                   /* slot holding this rank's partial */
  int busy_round[MAX_SLOTS]; /* last round a slot was received into/freed */
} emitter;

static void op(emitter *e, pat_sched_kind kind, int round, int peer, int src,
               int dst) {
  pat_sched_op o = {.kind = kind,
                    .round = round,
                    .peer = peer,
                    .src = src,
                    .dst = dst,
                    .offset = 0,
                    .count = e->p->count};
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

int pat_tree_emit(pat_schedule *sched, const pat_sched_params *p, int rank,
                  const pat_tree_event *ev, int nev) {
  emitter e = {.sched = sched,
               .p = p,
               .rank = rank,
               .err = PAT_SUCCESS,
               .acc = PAT_SLOT_SEND};
  int right_left = 0; /* receives of partials after ours still to come */
  int last_round = 0;
  for (int s = 0; s < MAX_SLOTS; s++)
    e.busy_round[s] = -1;
  for (int i = 0; i < nev; i++)
    right_left += ev[i].kind == PAT_TREE_RECV_AFTER;

  for (int i = 0; i < nev && e.err == PAT_SUCCESS; i++) {
    int round = ev[i].round;
    last_round = round;
    if (ev[i].kind == PAT_TREE_SEND) {
      op(&e, PAT_SCHED_SEND, round, ev[i].peer, e.acc, -1);
    } else if (ev[i].kind == PAT_TREE_RECV_AFTER) {
      /* mine (op) child lands where the child's data arrived; at the root
       * every other such receive goes to the receive buffer, ending there */
      int dst;
      right_left--;
      if (is_root(&e) && right_left % 2 == 0 &&
          usable(&e, PAT_SLOT_RECV, round)) {
        dst = PAT_SLOT_RECV;
        e.busy_round[dst] = round;
      } else {
        dst = free_tmp(&e, round);
      }
      op(&e, PAT_SCHED_RECV, round, ev[i].peer, -1, dst);
      op(&e, PAT_SCHED_COMBINE, round, -1, e.acc, dst);
      if (!same_buffer(&e, e.acc, PAT_SLOT_SEND))
        e.busy_round[e.acc] = round; /* freed: reusable next round */
      e.acc = dst;
    } else {
      /* child (op) mine, in a writable slot */
      int tmp = free_tmp(&e, round);
      op(&e, PAT_SCHED_RECV, round, ev[i].peer, -1, tmp);
      if (!writable(&e, e.acc)) {
        int w = is_root(&e) && usable(&e, PAT_SLOT_RECV, round)
                    ? PAT_SLOT_RECV
                    : free_tmp(&e, round);
        e.busy_round[w] = round;
        op(&e, PAT_SCHED_COPY, round, -1, e.acc, w);
        e.acc = w;
      }
      op(&e, PAT_SCHED_COMBINE, round, -1, tmp, e.acc);
    }
  }
  if (is_root(&e) && !same_buffer(&e, e.acc, PAT_SLOT_RECV))
    op(&e, PAT_SCHED_COPY, last_round, -1, e.acc, PAT_SLOT_RECV);
  return e.err;
}

int pat_ceil_log2(int n) {
  int r = 0;
  while (r < 31 && (1 << r) < n)
    r++;
  return r;
}
