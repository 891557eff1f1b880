/*
 * The model simulation of a schedule (pat_schedule_simulate): the dataflow
 * executor (exec.c) run in simulated time under a byte model.
 *
 * Model.  A rank can act from its arrival time on.  An operation is ready
 * when its dataflow predecessors (dataflow.c) have finished; a transfer is
 * posted then (not before the previous transfer on its channel).  A message
 * of b bytes starts once its send and its receive are both posted and the
 * sender's send port and the receiver's receive port are free (each rank
 * sends one message and receives one message at a time: full duplex); it
 * holds both ports for alpha + b beta, and both operations finish when it
 * ends.  A combine of b bytes holds the rank's processor for b gamma (one
 * combine at a time, overlapping its transfers); a copy costs nothing.
 *
 * Method.  A discrete-event simulation over every rank's program: one
 * event per operation (ready, or for a combine its end) in an indexed heap
 * keyed by (time, operation), so resources go to operations in the order
 * of simulated time, ties by rank then program order: deterministic.
 * Receives are posted as the executor posts them: one of a later round
 * than the rank's first unfinished operation waits while
 * PAT_REDUCE_MAX_OUTSTANDING receives are in flight (held in program
 * order), so a message of a later round cannot take the receive port
 * from an earlier one.  Messages whose two sides are posted at the same
 * time claim their ports after everything else of that time, in the
 * order of their sends in the senders' programs: every rank's first send
 * before any rank's second, so a staggered exchange (radix-k) runs step
 * by step as intended instead of in the order ranks happen to be
 * numbered.  Ports and processors are
 * claimed when the event is processed.  Cost O(E log E) for E operations
 * plus dependency edges, memory O(E).
 *
 * With alpha = d and beta = gamma = 0 this is the round-cost model of the
 * atomic algorithms: every message costs d, one at a time per receiver.
 */
#include <math.h>
#include <stdlib.h>

#include "heap.h"
#include "pat_internal.h"

enum { WAITING = 0, QUEUED, HELD, POSTED, MATCHED, RUNNING, DONE };

typedef struct sim {
  const pat_schedule *s;
  const pat_model *m;
  double elem;
  int P, nops;
  int *base;       /* base[r]: id of rank r's first operation; base[P] = n */
  int *rank_of;    /* rank of each operation id */
  pat_deps **deps; /* per rank */
  int *npend;      /* predecessors not finished */
  int *partner;    /* matching transfer, or -1 */
  unsigned char *state;
  double *ready;               /* latest predecessor end, then its own end */
  double *posted;              /* when a transfer was posted */
  double *cpu, *sport, *rport; /* per rank: when free */
  const double *arrivals;
  pat_heap *events;
  /* the executor's bound on receives posted ahead: per rank the first
   * unfinished operation, the receives in flight, and the held ones (a
   * FIFO linked through held_next) */
  int max_outstanding;
  int *first, *nrecv, *held_head, *held_tail, *held_next;
} sim;

static const pat_sched_op *op_of(const sim *x, int g) {
  int r = x->rank_of[g];
  return &pat_schedule_ops(x->s, r)[g - x->base[r]];
}

static double later(double a, double b) { return a > b ? a : b; }

static void schedule_event(sim *x, int g, double t) {
  x->state[g] = QUEUED;
  pat_heap_push(x->events, g, t, 0);
}

/* Queues g if its predecessors are done and its channel's previous
 * transfer is posted; its time is when all of that holds. */
static void maybe_queue(sim *x, int g) {
  int r = x->rank_of[g], i = g - x->base[r];
  int prev = x->deps[r]->chan_prev[i];
  double t = later(x->ready[g], x->arrivals ? x->arrivals[r] : 0.0);
  if (x->state[g] != WAITING || x->npend[g] > 0)
    return;
  if (prev >= 0) {
    int gp = x->base[r] + prev;
    if (x->state[gp] < POSTED)
      return;
    t = later(t, x->posted[gp]);
  }
  schedule_event(x, g, t);
}

/* The rank's held receives get another chance at time t. */
static void release_held(sim *x, int r, double t) {
  int g = x->held_head[r];
  x->held_head[r] = x->held_tail[r] = -1;
  while (g >= 0) {
    int next = x->held_next[g];
    schedule_event(x, g, t);
    g = next;
  }
}

static int round_of(const sim *x, int r, int i) {
  return pat_schedule_ops(x->s, r)[i].round;
}

static void finish(sim *x, int g, double t) {
  int r = x->rank_of[g], i = g - x->base[r];
  int n = x->base[r + 1] - x->base[r];
  int round = x->first[r] < n ? round_of(x, r, x->first[r]) : -1;
  const pat_deps *d = x->deps[r];
  x->nrecv[r] -= op_of(x, g)->kind == PAT_SCHED_RECV;
  x->state[g] = DONE;
  x->ready[g] = t;
  for (int k = d->succ_start[i]; k < d->succ_start[i + 1]; k++) {
    int h = x->base[r] + d->succ[k];
    x->ready[h] = later(x->ready[h], t);
    if (--x->npend[h] == 0)
      maybe_queue(x, h);
  }
  while (x->first[r] < n && x->state[x->base[r] + x->first[r]] == DONE)
    x->first[r]++;
  if (x->held_head[r] >= 0 &&
      (op_of(x, g)->kind == PAT_SCHED_RECV ||
       (x->first[r] < n && round_of(x, r, x->first[r]) != round)))
    release_held(x, r, t);
}

/* As the executor: a receive of a later round than the rank's first
 * unfinished operation waits while max_outstanding receives are in
 * flight. */
static int hold(sim *x, int g) {
  int r = x->rank_of[g], n = x->base[r + 1] - x->base[r];
  const pat_sched_op *o = op_of(x, g);
  if (o->kind != PAT_SCHED_RECV || x->first[r] >= n ||
      o->round <= round_of(x, r, x->first[r]) ||
      x->nrecv[r] < x->max_outstanding)
    return 0;
  x->state[g] = HELD;
  x->held_next[g] = -1;
  if (x->held_tail[r] >= 0)
    x->held_next[x->held_tail[r]] = g;
  else
    x->held_head[r] = g;
  x->held_tail[r] = g;
  return 1;
}

/* Both sides of a message are posted: it runs when the ports are free. */
static void transfer(sim *x, int snd, int rcv) {
  const pat_sched_op *o = op_of(x, snd);
  int from = x->rank_of[snd], to = x->rank_of[rcv];
  double start = later(later(x->posted[snd], x->posted[rcv]),
                       later(x->sport[from], x->rport[to]));
  double end = start + x->m->alpha + (double)o->count * x->elem * x->m->beta;
  x->sport[from] = x->rport[to] = end;
  finish(x, snd, end);
  finish(x, rcv, end);
}

static void on_event(sim *x, int g, double t) {
  const pat_sched_op *o = op_of(x, g);
  int r = x->rank_of[g], i = g - x->base[r];
  if (x->state[g] == RUNNING) { /* a combine's end */
    finish(x, g, t);
  } else if (x->state[g] == MATCHED) { /* a send whose receive is posted */
    transfer(x, g, x->partner[g]);
  } else if (o->kind == PAT_SCHED_COMBINE) {
    double start = later(t, x->cpu[r]);
    x->cpu[r] = start + (double)o->count * x->elem * x->m->gamma;
    x->state[g] = RUNNING;
    pat_heap_push(x->events, g, x->cpu[r], 0);
  } else if (o->kind == PAT_SCHED_COPY) {
    finish(x, g, t);
  } else if (!hold(x, g)) {
    int next = x->deps[r]->chan_next[i];
    x->nrecv[r] += o->kind == PAT_SCHED_RECV;
    x->state[g] = POSTED;
    x->posted[g] = t;
    if (x->partner[g] >= 0 && x->state[x->partner[g]] == POSTED) {
      /* messages matched at the same time claim ports in the order of
       * their sends in the senders' programs (after everything else
       * of that time is posted): a rank's k-th send before any rank's
       * (k+1)-th, as staggered exchanges intend */
      int snd = o->kind == PAT_SCHED_SEND ? g : x->partner[g];
      x->state[snd] = MATCHED;
      pat_heap_push(x->events, snd, t, 1 + snd - x->base[x->rank_of[snd]]);
    }
    if (next >= 0)
      maybe_queue(x, x->base[r] + next);
  }
}

/* A transfer's key: (sender, receiver, k) for the k-th message on that
 * channel, and its operation id. */
typedef struct key {
  int from, to, k, g;
} key;

static int key_cmp(const void *a, const void *b) {
  const key *x = a, *y = b;
  return x->from != y->from ? (x->from > y->from) - (x->from < y->from)
         : x->to != y->to   ? (x->to > y->to) - (x->to < y->to)
                            : (x->k > y->k) - (x->k < y->k);
}

/* Pairs the k-th send a->b with b's k-th receive from a. */
static int match(sim *x) {
  int err = PAT_SUCCESS, ns = 0, nr = 0;
  key *snd = malloc((size_t)(x->nops + 1) * sizeof *snd);
  key *rcv = malloc((size_t)(x->nops + 1) * sizeof *rcv);
  int *k = malloc((size_t)(x->nops + 1) * sizeof *k);
  if (snd == NULL || rcv == NULL || k == NULL) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (int g = 0; g < x->nops; g++) {
    const pat_sched_op *o = op_of(x, g);
    int r = x->rank_of[g], prev = x->deps[r]->chan_prev[g - x->base[r]];
    x->partner[g] = -1;
    k[g] = prev >= 0 ? k[x->base[r] + prev] + 1 : 0;
    if (o->kind == PAT_SCHED_SEND)
      snd[ns++] = (key){r, o->peer, k[g], g};
    else if (o->kind == PAT_SCHED_RECV)
      rcv[nr++] = (key){o->peer, r, k[g], g};
  }
  qsort(snd, (size_t)ns, sizeof *snd, key_cmp);
  qsort(rcv, (size_t)nr, sizeof *rcv, key_cmp);
  if (ns != nr) {
    err = PAT_ERR_INVALID_SCHEDULE;
    goto out;
  }
  for (int i = 0; i < ns && err == PAT_SUCCESS; i++) {
    if (key_cmp(&snd[i], &rcv[i]) != 0)
      err = PAT_ERR_INVALID_SCHEDULE;
    x->partner[snd[i].g] = rcv[i].g;
    x->partner[rcv[i].g] = snd[i].g;
  }
out:
  free(snd);
  free(rcv);
  free(k);
  return err;
}

static void sim_free(sim *x) {
  for (int r = 0; x->deps != NULL && r < x->P; r++)
    pat_deps_free(x->deps[r]);
  free(x->deps);
  free(x->base);
  free(x->rank_of);
  free(x->npend);
  free(x->partner);
  free(x->state);
  free(x->ready);
  free(x->posted);
  free(x->cpu);
  free(x->sport);
  free(x->rport);
  free(x->first);
  free(x->nrecv);
  free(x->held_head);
  free(x->held_tail);
  free(x->held_next);
  pat_heap_free(x->events);
}

static int sim_alloc(sim *x) {
  const pat_sched_params *p = pat_schedule_params(x->s);
  int err = PAT_SUCCESS, n;
  x->P = p->nranks;
  x->base = malloc((size_t)(x->P + 1) * sizeof *x->base);
  x->deps = calloc((size_t)x->P, sizeof *x->deps);
  x->cpu = calloc((size_t)x->P, sizeof *x->cpu);
  x->sport = calloc((size_t)x->P, sizeof *x->sport);
  x->rport = calloc((size_t)x->P, sizeof *x->rport);
  x->first = calloc((size_t)x->P, sizeof *x->first);
  x->nrecv = calloc((size_t)x->P, sizeof *x->nrecv);
  x->held_head = malloc((size_t)x->P * sizeof *x->held_head);
  x->held_tail = malloc((size_t)x->P * sizeof *x->held_tail);
  if (!x->base || !x->deps || !x->cpu || !x->sport || !x->rport ||
      !x->first || !x->nrecv || !x->held_head || !x->held_tail)
    return PAT_ERR_NO_MEMORY;
  for (int r = 0; r < x->P; r++)
    x->held_head[r] = x->held_tail[r] = -1;
  x->base[0] = 0;
  for (int r = 0; r < x->P; r++) {
    if (!pat_schedule_has_rank(x->s, r))
      return PAT_ERR_INVALID_SCHEDULE;
    x->base[r + 1] = x->base[r] + pat_schedule_nops(x->s, r);
  }
  x->nops = n = x->base[x->P];
  x->rank_of = malloc((size_t)(n + 1) * sizeof *x->rank_of);
  x->npend = malloc((size_t)(n + 1) * sizeof *x->npend);
  x->partner = malloc((size_t)(n + 1) * sizeof *x->partner);
  x->state = calloc((size_t)n + 1, sizeof *x->state);
  x->ready = calloc((size_t)n + 1, sizeof *x->ready);
  x->posted = calloc((size_t)n + 1, sizeof *x->posted);
  x->events = pat_heap_alloc(n);
  x->held_next = malloc((size_t)(n + 1) * sizeof *x->held_next);
  if (!x->rank_of || !x->npend || !x->partner || !x->state || !x->ready ||
      !x->posted || !x->events || !x->held_next)
    return PAT_ERR_NO_MEMORY;
  for (int r = 0; r < x->P && err == PAT_SUCCESS; r++) {
    err = pat_deps_alloc(pat_schedule_ops(x->s, r), pat_schedule_nops(x->s, r),
                         p->in_place && r == p->root, &x->deps[r]);
    for (int i = 0; err == PAT_SUCCESS && i < pat_schedule_nops(x->s, r); i++) {
      x->rank_of[x->base[r] + i] = r;
      x->npend[x->base[r] + i] =
          x->deps[r]->pred_start[i + 1] - x->deps[r]->pred_start[i];
    }
  }
  if (err == PAT_ERR_INVALID_ARG)
    err = PAT_ERR_INVALID_SCHEDULE;
  return err;
}

int pat_schedule_simulate(const pat_schedule *sched, const double *arrivals,
                          const pat_model *model, double *completion) {
  sim x = {0};
  int err = PAT_SUCCESS, done = 0, root;
  if (sched == NULL || completion == NULL) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  x.s = sched;
  x.m = model != NULL ? model : &pat_schedule_params(sched)->model;
  x.elem = pat_schedule_params(sched)->elem_size;
  x.arrivals = arrivals;
  x.max_outstanding = pat_config_get()->max_outstanding;
  root = pat_schedule_params(sched)->root;
  if (!(x.m->alpha >= 0 && x.m->beta >= 0 && x.m->gamma >= 0 && x.elem >= 0)) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  err = sim_alloc(&x);
  if (err == PAT_SUCCESS)
    err = match(&x);
  if (err != PAT_SUCCESS)
    goto out;
  for (int r = 0; r < x.P; r++) {
    x.cpu[r] = x.sport[r] = x.rport[r] = arrivals ? arrivals[r] : 0.0;
    for (int g = x.base[r]; g < x.base[r + 1]; g++)
      maybe_queue(&x, g);
  }
  while (pat_heap_size(x.events) > 0) {
    double t;
    int g = pat_heap_pop_min(x.events, &t, NULL);
    on_event(&x, g, t);
  }
  *completion = arrivals ? arrivals[root] : 0.0;
  for (int g = 0; g < x.nops; g++) {
    done += x.state[g] == DONE;
    if (x.rank_of[g] == root && x.ready[g] > *completion)
      *completion = x.ready[g];
  }
  if (done != x.nops) /* some operation never ran: not a valid schedule */
    err = PAT_ERR_INVALID_SCHEDULE;
out:
  sim_free(&x);
  return err;
}
