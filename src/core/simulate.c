/*
 * The model simulation of a schedule (pat_schedule_simulate): the dataflow
 * executor (exec.c) run in simulated time under a byte model.
 *
 * Model.  A rank can act from its arrival time on.  An operation is ready
 * when its dataflow predecessors (dataflow.c) have finished; a transfer is
 * posted then (not before the previous transfer on its channel).  A message
 * of b bytes starts once its send and its receive are both posted: after a
 * latency of alpha (whatever else is in flight: latencies overlap) its
 * bytes flow through the sender's send port and the receiver's receive
 * port (full duplex), each of which carries 1 / beta bytes per second,
 * shared max-min fairly by the messages flowing through it; both
 * operations finish with the last byte.  One message alone at both its
 * ports thus takes alpha + b beta; k messages of b bytes out of one rank
 * at once (a radix-k round) take alpha + k b beta together, and arrive
 * together.  This is how SimGrid's SMPI prices concurrent messages
 * (bench/platforms/curie.xml; its 5% reverse "cross-traffic" of TCP
 * acknowledgements is left out).  A combine of b bytes holds the rank's
 * processor for b gamma (one combine at a time, overlapping its
 * transfers); a copy costs nothing.
 *
 * Method.  A discrete-event simulation over every rank's program: one
 * event per operation (ready; a message's end of latency and its last
 * byte; a combine's end) in an indexed heap keyed by (time, operation),
 * so ties go by rank then program order: deterministic.  Transfers are
 * posted as the executor posts them: a receive (send) of a later round
 * than the rank's first unfinished operation waits while
 * PAT_REDUCE_MAX_OUTSTANDING receives (PAT_REDUCE_MAX_SENDS sends) are in
 * flight (held in program order; a send is in flight until its message
 * has arrived).  When messages start or
 * stop flowing at a port, the rates of the messages connected to it
 * through shared ports are recomputed by progressive filling once all
 * events of that time are processed, and their end events moved.  Cost
 * O(E log E) for E operations plus dependency edges, plus per rate change
 * the connected ports times the distinct rates among them (each pass of
 * the filling scans the ports and fixes one rate level) plus the connected
 * messages: a radix-k group, a pair or one message; memory O(E).
 *
 * With alpha = d and beta = gamma = 0 this is the round-cost model of the
 * atomic algorithms when a rank receives one message at a time (a tree,
 * under the executor's default bound PAT_REDUCE_MAX_OUTSTANDING = 1):
 * every message costs d.
 */
#include <math.h>
#include <stdlib.h>

#include "heap.h"
#include "pat_internal.h"

enum { WAITING = 0, QUEUED, HELD, POSTED, LATENT, FLOWING, RUNNING, DONE };

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
  double *ready;  /* latest predecessor end, then its own end */
  double *posted; /* when a transfer was posted */
  double *cpu;    /* per rank: when its processor is free */
  const double *arrivals;
  pat_heap *events;
  /* the executor's bound on receives posted ahead: per rank the first
   * unfinished operation, the receives in flight, and the held ones (a
   * FIFO linked through held_next) */
  int max_outstanding, max_sends;
  int *first, *nrecv, *nsend, *held_head, *held_tail, *held_next;
  /* Flows (messages past their latency), by their send's id: bytes left
   * at time last, at rate bytes per second.  Port 2 r is rank r's send
   * port, 2 r + 1 its receive port; each lists its flows (doubly linked
   * through link[2 g + side], side 0 at the send port, 1 at the
   * receive port). */
  double *left, *rate, *last;
  int *port_head, *link_next, *link_prev;
  /* the rate computation: ports whose flows changed at time dirty_t
   * (dirty[] lists them), and per port and flow scratch (epoch stamps,
   * capacity left, flows not yet fixed) */
  int *dirty, ndirty, epoch;
  double dirty_t;
  int *port_seen, *flow_seen, *comp_port, *comp_flow, *nfree;
  double *cap;
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
  x->nsend[r] -= op_of(x, g)->kind == PAT_SCHED_SEND;
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
       op_of(x, g)->kind == PAT_SCHED_SEND ||
       (x->first[r] < n && round_of(x, r, x->first[r]) != round)))
    release_held(x, r, t);
}

/* As the executor: a receive (send) of a later round than the rank's
 * first unfinished operation waits while max_outstanding receives
 * (max_sends sends) are in flight. */
static int hold(sim *x, int g) {
  int r = x->rank_of[g], n = x->base[r + 1] - x->base[r];
  const pat_sched_op *o = op_of(x, g);
  if (x->first[r] >= n || o->round <= round_of(x, r, x->first[r]) ||
      (o->kind == PAT_SCHED_RECV ? x->nrecv[r] < x->max_outstanding
                                 : x->nsend[r] < x->max_sends))
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

/* ---- flows: messages sharing their ports' bandwidth ---------------- */

static int port_of(const sim *x, int g, int side) {
  return side == 0 ? 2 * x->rank_of[g] : 2 * x->rank_of[x->partner[g]] + 1;
}

static void mark_dirty(sim *x, int port, double t) {
  x->dirty_t = t;
  if (x->port_seen[port] != -1) { /* not listed yet */
    x->port_seen[port] = -1;
    x->dirty[x->ndirty++] = port;
  }
}

static void link_flow(sim *x, int g, double t) {
  for (int side = 0; side < 2; side++) {
    int p = port_of(x, g, side), l = 2 * g + side, h = x->port_head[p];
    x->link_prev[l] = -1;
    x->link_next[l] = h;
    if (h >= 0)
      x->link_prev[h] = l;
    x->port_head[p] = l;
    mark_dirty(x, p, t);
  }
}

static void unlink_flow(sim *x, int g, double t) {
  for (int side = 0; side < 2; side++) {
    int p = port_of(x, g, side), l = 2 * g + side;
    if (x->link_prev[l] >= 0)
      x->link_next[x->link_prev[l]] = x->link_next[l];
    else
      x->port_head[p] = x->link_next[l];
    if (x->link_next[l] >= 0)
      x->link_prev[x->link_next[l]] = x->link_prev[l];
    mark_dirty(x, p, t);
  }
}

/* The flows that share a port with a dirty one, transitively (ports are
 * connected by the flows between them), get their max-min fair rates at
 * time t: every port carries 1 / beta bytes per second; all flows not yet
 * fixed grow at the same rate until a port is full, whose flows are then
 * fixed (progressive filling).  Ports whose fair share is within a
 * relative 1e-9 of the least one are full together, so symmetric flows
 * get bit-identical rates and end at the same time. */
static void share(sim *x, double t) {
  int nport = 0, nflow = 0, e = ++x->epoch;
  double full = 1 / x->m->beta;
  for (int i = 0; i < x->ndirty; i++) {
    x->port_seen[x->dirty[i]] = e;
    x->comp_port[nport++] = x->dirty[i];
  }
  x->ndirty = 0;
  for (int i = 0; i < nport; i++) { /* breadth first: nport grows */
    int p = x->comp_port[i];
    x->cap[p] = full;
    x->nfree[p] = 0;
    for (int l = x->port_head[p]; l >= 0; l = x->link_next[l]) {
      int g = l / 2, q = port_of(x, g, 1 - l % 2);
      x->nfree[p]++;
      if (x->flow_seen[g] == e)
        continue;
      x->flow_seen[g] = e;
      x->comp_flow[nflow++] = g;
      x->left[g] -= x->rate[g] * (t - x->last[g]);
      x->left[g] = x->left[g] > 0 ? x->left[g] : 0;
      x->last[g] = t;
      if (x->port_seen[q] != e) {
        x->port_seen[q] = e;
        x->comp_port[nport++] = q;
      }
    }
  }
  for (;;) {
    double least = HUGE_VAL;
    for (int i = 0; i < nport; i++) {
      int p = x->comp_port[i];
      if (x->nfree[p] > 0 && x->cap[p] / x->nfree[p] < least)
        least = x->cap[p] / x->nfree[p];
    }
    if (least == HUGE_VAL)
      break;
    least = least > 0 ? least : full * 1e-300; /* rounding: never 0 */
    for (int i = 0; i < nport; i++) {
      int p = x->comp_port[i];
      if (x->nfree[p] == 0 || x->cap[p] / x->nfree[p] > least * (1 + 1e-9))
        continue;
      for (int l = x->port_head[p]; l >= 0; l = x->link_next[l]) {
        int g = l / 2;
        if (x->flow_seen[g] != e) /* fixed in this pass */
          continue;
        x->flow_seen[g] = 0; /* fixed: epochs start at 1 */
        x->rate[g] = least;
        for (int side = 0; side < 2; side++) {
          int q = port_of(x, g, side);
          x->cap[q] -= least;
          x->nfree[q]--;
        }
      }
    }
  }
  for (int i = 0; i < nflow; i++) {
    int g = x->comp_flow[i];
    double end = t + x->left[g] / x->rate[g];
    if (pat_heap_contains(x->events, g))
      pat_heap_update(x->events, g, end, 0);
    else
      pat_heap_push(x->events, g, end, 0);
  }
}

/* The message of send snd has arrived: its send and its receive finish. */
static void delivered(sim *x, int snd, double t) {
  finish(x, snd, t);
  finish(x, x->partner[snd], t);
}

/* Both sides of a message are posted: it starts, and its latency runs
 * (alpha, whatever else the ports carry). */
static void transfer(sim *x, int snd, double t) {
  x->state[snd] = LATENT;
  pat_heap_push(x->events, snd, t + x->m->alpha, 0);
}

/* A message's latency is over: its bytes flow, or it ends if it has none
 * or the bandwidth is infinite (beta 0, or so small that 1 / beta is). */
static void flow(sim *x, int snd, double t) {
  double bytes = (double)op_of(x, snd)->count * x->elem;
  if (bytes > 0 && x->m->beta > 0 && isfinite(1 / x->m->beta)) {
    x->state[snd] = FLOWING;
    x->left[snd] = bytes;
    x->rate[snd] = 0;
    x->last[snd] = t;
    link_flow(x, snd, t);
  } else {
    delivered(x, snd, t);
  }
}

static void on_event(sim *x, int g, double t) {
  const pat_sched_op *o = op_of(x, g);
  int r = x->rank_of[g], i = g - x->base[r];
  if (x->state[g] == RUNNING) { /* a combine's end */
    finish(x, g, t);
  } else if (x->state[g] == LATENT) {
    flow(x, g, t);
  } else if (x->state[g] == FLOWING) { /* a message's last byte */
    unlink_flow(x, g, t);
    delivered(x, g, t);
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
    x->nsend[r] += o->kind == PAT_SCHED_SEND;
    x->state[g] = POSTED;
    x->posted[g] = t;
    if (x->partner[g] >= 0 && x->state[x->partner[g]] == POSTED)
      transfer(x, o->kind == PAT_SCHED_SEND ? g : x->partner[g], t);
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
  free(x->first);
  free(x->nrecv);
  free(x->nsend);
  free(x->held_head);
  free(x->held_tail);
  free(x->held_next);
  free(x->left);
  free(x->rate);
  free(x->last);
  free(x->port_head);
  free(x->link_next);
  free(x->link_prev);
  free(x->dirty);
  free(x->port_seen);
  free(x->flow_seen);
  free(x->comp_port);
  free(x->comp_flow);
  free(x->nfree);
  free(x->cap);
  pat_heap_free(x->events);
}

static int sim_alloc(sim *x) {
  const pat_sched_params *p = pat_schedule_params(x->s);
  int err = PAT_SUCCESS, n;
  x->P = p->nranks;
  x->base = malloc((size_t)(x->P + 1) * sizeof *x->base);
  x->deps = calloc((size_t)x->P, sizeof *x->deps);
  x->cpu = calloc((size_t)x->P, sizeof *x->cpu);
  x->port_head = malloc((size_t)(2 * x->P) * sizeof *x->port_head);
  x->dirty = malloc((size_t)(2 * x->P) * sizeof *x->dirty);
  x->port_seen = calloc((size_t)(2 * x->P), sizeof *x->port_seen);
  x->comp_port = malloc((size_t)(2 * x->P) * sizeof *x->comp_port);
  x->nfree = malloc((size_t)(2 * x->P) * sizeof *x->nfree);
  x->cap = malloc((size_t)(2 * x->P) * sizeof *x->cap);
  x->first = calloc((size_t)x->P, sizeof *x->first);
  x->nrecv = calloc((size_t)x->P, sizeof *x->nrecv);
  x->nsend = calloc((size_t)x->P, sizeof *x->nsend);
  x->held_head = malloc((size_t)x->P * sizeof *x->held_head);
  x->held_tail = malloc((size_t)x->P * sizeof *x->held_tail);
  if (!x->base || !x->deps || !x->cpu || !x->port_head || !x->dirty ||
      !x->port_seen || !x->comp_port || !x->nfree || !x->cap || !x->first ||
      !x->nrecv || !x->nsend || !x->held_head || !x->held_tail)
    return PAT_ERR_NO_MEMORY;
  for (int r = 0; r < x->P; r++)
    x->held_head[r] = x->held_tail[r] = -1;
  for (int p = 0; p < 2 * x->P; p++)
    x->port_head[p] = -1;
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
  x->left = malloc((size_t)(n + 1) * sizeof *x->left);
  x->rate = malloc((size_t)(n + 1) * sizeof *x->rate);
  x->last = malloc((size_t)(n + 1) * sizeof *x->last);
  x->link_next = malloc((size_t)(2 * n + 1) * sizeof *x->link_next);
  x->link_prev = malloc((size_t)(2 * n + 1) * sizeof *x->link_prev);
  x->flow_seen = calloc((size_t)n + 1, sizeof *x->flow_seen);
  x->comp_flow = malloc((size_t)(n + 1) * sizeof *x->comp_flow);
  if (!x->rank_of || !x->npend || !x->partner || !x->state || !x->ready ||
      !x->posted || !x->events || !x->held_next || !x->left || !x->rate ||
      !x->last || !x->link_next || !x->link_prev || !x->flow_seen ||
      !x->comp_flow)
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
  x.max_sends = pat_schedule_sends_ahead(sched, pat_config_get()->max_sends);
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
    x.cpu[r] = arrivals ? arrivals[r] : 0.0;
    for (int g = x.base[r]; g < x.base[r + 1]; g++)
      maybe_queue(&x, g);
  }
  for (;;) {
    double t = HUGE_VAL;
    int g;
    pat_heap_peek_min(x.events, &t, NULL);
    if (x.ndirty > 0 && t > x.dirty_t) { /* before time moves on */
      share(&x, x.dirty_t);
      continue;
    }
    if ((g = pat_heap_pop_min(x.events, &t, NULL)) < 0)
      break;
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
