/*
 * clairvoyant: the greedy reduction schedule for known arrival times
 * (Marendic 2016, Algorithm 8), and an order-preserving variant for
 * non-commutative ops; with N > 1 segments the segmented plan (Algorithm
 * 10, segmented.c) or, for non-commutative ops, the in-order tree
 * pipelined over the segments (segmented_merges below).
 *
 * Idea (commutative ops).  Keep every rank in a binary heap keyed by the
 * time its partial is ready (its arrival at first).  Repeatedly take the
 * two earliest: the later-ready one sends to the earlier-ready one, whose
 * partial is then ready at max(t_i, t_j) + d; the root always receives
 * (it must survive); ties go to the lower rank.  For atomic data this
 * greedy tree is optimal (thesis ch. 5; tests/unit/test_clairvoyant.c
 * checks it against exhaustive search).  Building is O(P log P); a rank
 * that builds only its own program still simulates the whole tree, so
 * every rank derives the same tree from the same inputs.  The plan (every
 * rank's events, bucketed) is kept in the process's memo (core/memo.c,
 * PAT_REDUCE_PLAN_MEMO) under those inputs: other ranks of the process
 * that plan the same take it and cut their program out in O(their
 * events).  In SMPI, where all ranks are one process, that turns P plans
 * per call into one (patbench's oracle row at P = 4096: 18.6 s against
 * 24.3 s; at P = 16384 the scale run takes 520 s, where planning per rank
 * passed 16 GB within minutes).
 *
 * Non-commutative ops.  Pairing arbitrary ranks would reorder operands.
 * Instead only adjacent rank intervals merge, "left (op) right": keep the
 * candidate merges of neighbouring intervals in a heap keyed by the time
 * the merge would complete, max(t_left, t_right) + d, and repeatedly
 * perform the earliest (ties: the leftmost).  The earlier-ready holder
 * receives, except that an interval holding the root is always held by the
 * root.  The result is the in-order reduction, bitwise.
 *
 * Heaps.  Both variants use the indexed min-heap of src/core/heap.c, keyed
 * by (time, rank), so ties go to the lower rank.  Commutative: one entry
 * per partial; the merged partial takes over the second-earliest one's
 * entry with the receiver's rank as its tie (updated in place, not popped
 * and pushed again).  Non-commutative: one entry per interval with a right
 * neighbour, named by its lowest rank; a merge removes one candidate and
 * updates two keys in place, so no stale entries are left behind.
 *
 * Cost.  Balanced arrivals: ceil(log2 P) rounds of alpha + m beta + m gamma,
 * like binomial.  One rank late by delta: the others reduce while it is
 * late; its partial then merges r times, the i-th time with a partial of
 * the others that holds up to 2^(F - r - 1 + i) ranks (2^k ranks take k d),
 * and the completion time is the least T, among multiples of d and delta
 * plus multiples of d, with F = floor(T / d), r = floor((T - delta) / d)
 * >= 1 and those partials covering the P - 1 others.  At delta = ceil(log2
 * P) d for P = 2^k this is (k + 1) d against binomial's 2 k d: the speedup
 * 2 / (1 + 1/k) of the thesis.
 *
 * Segments.  N from PAT_REDUCE_SEGMENTS (at most 1024 and the count), or
 * with 0 the power of two up to 256 with the least planned completion
 * time (1 for small messages).  Candidates are planned best first by a
 * lower bound (pat_clairvoyant_segment_bound: n + N - 1 rounds from the
 * first arrival, N rounds after the last), and one whose bound cannot beat
 * the best plan so far is not planned: balanced arrivals meet the bound,
 * so one plan is built, not each candidate's (P = 128, 128 KiB: 43 against
 * 187 us; P = 1024, 1 MiB: 1.7 against 13.5 ms).  In-order plans have no
 * such bound: N is the power of two, from 1 up, after which their
 * estimate (segmented_merges) stops improving; then, while candidates
 * have at most PAT_CLAIRVOYANT_SIMULATE_MERGES transfers, the neighbour
 * (half, twice as many) whose whole schedule simulates faster
 * (pat_schedule_simulate: the byte model and the arrivals), and so on;
 * the simulated time is then the prediction.  The estimate is 0.8-1.05 of
 * the simulation and its N up to 6% slower (P = 16, 2 MiB: N = 2, 4.40
 * ms, against N = 8, 4.17); simulating every candidate instead found the
 * same N or one on the same plateau but cost 0.13-0.2 s at P = 128 and
 * 1.2-2.2 s at P = 1024.  Building with segments costs the plan
 * (segmented.c: O(N) rounds of O(N P / 64) word operations); the schedule cache
 * keeps the result while the inputs repeat.
 *
 * Inputs: params->arrivals (any common origin) and the round cost d, from
 * params' byte model for count elements: alpha + m (beta + gamma).
 * Tunables: PAT_REDUCE_SEGMENTS (a core variable, shared with pipeline);
 * the predictor and cost model live in pat/.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "clairvoyant/clairvoyant.h"
#include "core/heap.h"
#include "core/memo.h"

typedef struct merge {
  int sender, receiver, round;
  pat_tree_kind kind; /* what the receiver gets: partial after/before its own */
  int seg;            /* the segment (0 for atomic data) */
} merge;

static unsigned long long hash_mix(unsigned long long h, unsigned long long v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

static double later(double a, double b) { return a > b ? a : b; }

/* Commutative: the greedy pairing.  The heap holds one slot per partial,
 * keyed by (ready time, holder rank); holder[slot] is the rank holding it.
 * Writes P - 1 merges; returns the time the root's result is ready. */
static double greedy(const pat_sched_params *p, double d, pat_heap *h,
                     int *last_round, int *holder, merge *m) {
  int P = p->nranks, nm = 0;
  double done = p->arrivals[p->root];
  for (int r = 0; r < P; r++) {
    pat_heap_push(h, r, p->arrivals[r], r);
    holder[r] = r;
    last_round[r] = -1;
  }
  while (pat_heap_size(h) > 1) {
    /* the merged partial takes the second one's slot: one sift, not two */
    double tx, ty;
    int x = pat_heap_pop_min(h, &tx, NULL), y = pat_heap_peek_min(h, &ty, NULL);
    int recv = holder[x], send = holder[y], round;
    if (send == p->root) {
      recv = holder[y];
      send = holder[x];
    }
    round = (last_round[recv] > last_round[send] ? last_round[recv]
                                                 : last_round[send]) +
            1;
    last_round[recv] = round;
    m[nm++] = (merge){send, recv, round, PAT_TREE_RECV_AFTER, 0};
    done = later(tx, ty) + d;
    holder[y] = recv;
    pat_heap_update(h, y, done, recv);
  }
  return done;
}

/* Non-commutative: merges of adjacent intervals.  Interval i is stored at
 * its lowest rank lo: hi[lo], holder[lo], ready[lo].  The heap holds the
 * candidate merges of neighbouring intervals, one per interval that has a
 * right neighbour, named by its lowest rank and keyed by (completion time,
 * lowest rank): a merge updates two keys in place instead of leaving stale
 * entries behind. */
static double in_order(const pat_sched_params *p, double d, pat_heap *c,
                       int *last_round, merge *m, int *ints, double *ready) {
  int P = p->nranks, nm = 0;
  int *hi = ints, *prev = ints + P, *holder = ints + 2 * P;
  double done = p->arrivals[p->root];
  for (int r = 0; r < P; r++) {
    hi[r] = r;
    prev[r] = r - 1;
    holder[r] = r;
    ready[r] = p->arrivals[r];
    last_round[r] = -1;
  }
  for (int r = 0; r + 1 < P; r++)
    pat_heap_push(c, r, later(ready[r], ready[r + 1]) + d, r);
  while (nm < P - 1) {
    double t;
    int L = pat_heap_peek_min(c, &t, NULL), R = hi[L] + 1, recv, send, round;
    /* the earlier-ready holder receives; the root always does */
    recv = ready[L] <= ready[R] ? holder[L] : holder[R];
    if (holder[L] == p->root || holder[R] == p->root)
      recv = p->root;
    send = recv == holder[L] ? holder[R] : holder[L];
    round = (last_round[recv] > last_round[send] ? last_round[recv]
                                                 : last_round[send]) +
            1;
    last_round[recv] = round;
    m[nm++] = (merge){
        send, recv, round,
        recv == holder[L] ? PAT_TREE_RECV_AFTER : PAT_TREE_RECV_BEFORE, 0};
    done = t;
    /* L absorbs R: R's candidate goes, L's and its left neighbour's change */
    pat_heap_remove(c, R);
    holder[L] = recv;
    ready[L] = t;
    hi[L] = hi[R];
    if (hi[L] + 1 < P) {
      prev[hi[L] + 1] = L;
      pat_heap_update(c, L, later(ready[L], ready[hi[L] + 1]) + d, L);
    } else {
      pat_heap_remove(c, L);
    }
    if (prev[L] >= 0)
      pat_heap_update(c, prev[L], later(ready[prev[L]], ready[L]) + d, prev[L]);
  }
  return done;
}

/* Buckets the events of the merges m (round order) of P ranks by rank:
 * rank r's are ev[start[r] .. start[r + 1]), in round order.  start has
 * P + 1 entries, fill P (scratch), ev room for 2 nm. */
static void bucket(const merge *m, int nm, int P, int *start, int *fill,
                   pat_tree_event *ev) {
  for (int r = 0; r <= P; r++)
    start[r] = 0;
  for (int i = 0; i < nm; i++) {
    start[m[i].sender + 1]++;
    start[m[i].receiver + 1]++;
  }
  for (int r = 0; r < P; r++)
    start[r + 1] += start[r];
  for (int r = 0; r < P; r++)
    fill[r] = start[r];
  for (int i = 0; i < nm; i++) {
    ev[fill[m[i].receiver]++] = (pat_tree_event){.kind = m[i].kind,
                                                 .round = m[i].round,
                                                 .peer = m[i].sender,
                                                 .seg = m[i].seg};
    ev[fill[m[i].sender]++] = (pat_tree_event){.kind = PAT_TREE_SEND,
                                               .round = m[i].round,
                                               .peer = m[i].receiver,
                                               .seg = m[i].seg};
  }
}

/* Emits the programs of ranks lo..hi of nseg segments from events
 * bucketed by rank (bucket). */
static int emit(pat_schedule *sched, const pat_sched_params *p, int lo, int hi,
                int nseg, const int *start, const pat_tree_event *ev) {
  int err = PAT_SUCCESS;
  for (int r = lo; r <= hi && err == PAT_SUCCESS; r++)
    err = pat_tree_emit_segments(sched, p, r, nseg, ev + start[r],
                                 start[r + 1] - start[r]);
  return err;
}

/* The atomic tree of P - 1 merges for round cost d (greedy pairing, or
 * in-order merges for a non-commutative op) into m; its completion time in
 * *done. */
static int atomic_plan(const pat_sched_params *p, double d, merge *m,
                       double *done) {
  int P = p->nranks, err = PAT_SUCCESS;
  pat_heap *h = pat_heap_alloc(P);
  int *ints = malloc((size_t)(4 * P) * sizeof *ints);
  double *ready = malloc((size_t)P * sizeof *ready);
  if (!h || !ints || !ready)
    err = PAT_ERR_NO_MEMORY;
  else
    *done = p->commutative ? greedy(p, d, h, ints, ints + P, m)
                           : in_order(p, d, h, ints, m, ints + P, ready);
  pat_heap_free(h);
  free(ints);
  free(ready);
  return err;
}

/* The earliest and the latest of p's arrivals. */
static void arrival_range(const pat_sched_params *p, double *first,
                          double *last) {
  double lo = p->arrivals[0], hi = lo; /* locals: no store per rank */
  for (int r = 1; r < p->nranks; r++) {
    lo = p->arrivals[r] < lo ? p->arrivals[r] : lo;
    hi = p->arrivals[r] > hi ? p->arrivals[r] : hi;
  }
  *first = lo;
  *last = hi;
}

/* The merges of nseg >= 2 segments into *out (*nm of them, round order)
 * and the completion time.  Commutative: the segmented plan
 * (segmented.c).  Otherwise the in-order tree for one segment's round cost,
 * each merge repeated for every segment one round later than the previous
 * one (a pipelined tree).  Its completion time is estimated as the later
 * of the tree's time plus N - 1 segment rounds, and the busiest rank's
 * receive port: k merges of N segments, alpha + (m/N) beta each, from the
 * earliest arrival on, then the last combine (combines overlap the next
 * receives).  Against the dataflow simulation (2 MiB, CURIE model, P = 4,
 * 16, 128, N = 2..32): 0.93-1.05 of it for balanced arrivals, 0.81-1.04
 * with one rank 1 ms late. */
static int segmented_merges(const pat_sched_params *p, int nseg, merge **out,
                            int *nm, double *done) {
  int P = p->nranks, err = PAT_SUCCESS, n;
  double d = pat_clairvoyant_segment_cost(p, nseg);
  merge *m;
  *out = NULL;
  *nm = 0;
  if ((long long)(P - 1) * nseg > INT_MAX / 2)
    return PAT_ERR_NO_MEMORY; /* more merges than an int counts */
  n = (P - 1) * nseg;
  m = malloc((size_t)(n > 0 ? n : 1) * sizeof *m);
  if (m == NULL)
    return PAT_ERR_NO_MEMORY;
  if (p->commutative) {
    pat_clairvoyant_plan plan;
    err = pat_clairvoyant_plan_segments(p, nseg, &plan);
    for (int i = 0; err == PAT_SUCCESS && i < plan.n; i++)
      m[i] = (merge){plan.t[i].sender, plan.t[i].receiver, plan.t[i].round,
                     PAT_TREE_RECV_AFTER, plan.t[i].seg};
    if (err == PAT_SUCCESS)
      *done = plan.done;
    pat_clairvoyant_plan_free(&plan);
  } else {
    merge *tree = malloc((size_t)(P > 1 ? P - 1 : 1) * sizeof *tree);
    int *start = NULL, *nrecv = calloc((size_t)P, sizeof *nrecv);
    int maxround = 0, busiest = 1;
    err = tree == NULL || nrecv == NULL ? PAT_ERR_NO_MEMORY
                                        : atomic_plan(p, d, tree, done);
    for (int i = 0; err == PAT_SUCCESS && i < P - 1; i++) {
      maxround = tree[i].round > maxround ? tree[i].round : maxround;
      if (++nrecv[tree[i].receiver] > busiest)
        busiest = nrecv[tree[i].receiver];
    }
    if (err == PAT_SUCCESS)
      start = calloc((size_t)(maxround + nseg + 1), sizeof *start);
    if (err == PAT_SUCCESS && start == NULL)
      err = PAT_ERR_NO_MEMORY;
    /* counting sort by round, stable: per round the tree's order */
    for (int s = 0; err == PAT_SUCCESS && s < nseg; s++)
      for (int i = 0; i < P - 1; i++)
        start[tree[i].round + s + 1]++;
    for (int r = 0; err == PAT_SUCCESS && r < maxround + nseg; r++)
      start[r + 1] += start[r];
    for (int s = 0; err == PAT_SUCCESS && s < nseg; s++)
      for (int i = 0; i < P - 1; i++) {
        merge e = tree[i];
        e.round += s;
        e.seg = s;
        m[start[e.round]++] = e;
      }
    if (err == PAT_SUCCESS) {
      double b = pat_clairvoyant_segment_bytes(p, nseg), first, last, port;
      arrival_range(p, &first, &last);
      port = first +
             (double)busiest * nseg * (p->model.alpha + b * p->model.beta) +
             b * p->model.gamma;
      *done += (nseg - 1) * d;
      *done = port > *done ? port : *done;
    }
    free(tree);
    free(start);
    free(nrecv);
  }
  if (err == PAT_SUCCESS) {
    *out = m;
    *nm = n;
  } else {
    free(m);
  }
  return err;
}

/* The merges for nseg >= 1 segments (nseg 1: the atomic tree) and their
 * completion time. */
static int plan_merges(const pat_sched_params *p, int nseg, merge **out,
                       int *nm, double *done) {
  int err;
  if (nseg > 1)
    return segmented_merges(p, nseg, out, nm, done);
  *nm = p->nranks - 1;
  *out = malloc((size_t)(*nm > 0 ? *nm : 1) * sizeof **out);
  err = *out == NULL ? PAT_ERR_NO_MEMORY
                     : atomic_plan(p, pat_sched_round_cost(p), *out, done);
  if (err != PAT_SUCCESS) {
    free(*out);
    *out = NULL;
    *nm = 0;
  }
  return err;
}

/* A configured segment count (>= 1) clamped to what the builder serves. */
static int clamped(const pat_sched_params *p, int configured) {
  int n = configured < PAT_CLAIRVOYANT_MAX_SEGMENTS
              ? configured
              : PAT_CLAIRVOYANT_MAX_SEGMENTS;
  return n < p->count ? n : (p->count > 0 ? p->count : 1);
}

/* pat_clairvoyant_segment_bound for the first and last arrival. */
static double segment_bound(const pat_sched_params *p, int nseg, double first,
                            double last) {
  double d = pat_clairvoyant_segment_cost(p, nseg);
  double tree = first + (pat_ceil_log2(p->nranks) + nseg - 1) * d;
  return tree > last + nseg * d ? tree : last + nseg * d;
}

double pat_clairvoyant_segment_bound(const pat_sched_params *p, int nseg) {
  double first, last;
  arrival_range(p, &first, &last);
  return segment_bound(p, nseg, first, last);
}

/* The automatic choice for commutative ops: the candidate with the
 * smallest planned time (ties: fewer segments), best first by the lower
 * bound, so that only candidates that could still win are planned.  When
 * the first one planned meets its bound (balanced arrivals always do),
 * no other is.  tol covers the planner's rounding: its clock adds d per
 * round. */
static int choose_bounded(const pat_sched_params *p, int most, int *nseg,
                          merge **out, int *nm, double *done) {
  enum { MAX_CANDIDATES = 32 };
  int cand[MAX_CANDIDATES], k = 0, err = PAT_SUCCESS;
  double bound[MAX_CANDIDATES], first, last;
  arrival_range(p, &first, &last);
  for (int n = 1; n <= most && k < MAX_CANDIDATES; n *= 2, k++) {
    cand[k] = n;
    bound[k] = segment_bound(p, n, first, last);
  }
  *out = NULL;
  *nm = 0;
  *nseg = 1;
  *done = INFINITY;
  while (err == PAT_SUCCESS) {
    int next = -1, c = 0;
    double tol, t = INFINITY;
    merge *m = NULL;
    for (int i = 0; i < k; i++)
      if (cand[i] > 0 && (next < 0 || bound[i] < bound[next]))
        next = i; /* ties: the earlier, fewer segments */
    if (next < 0)
      break;
    tol = *out == NULL ? 0
                       : 1e-9 * (*done - first) +
                             4.0 * (pat_ceil_log2(p->nranks) + most) *
                                 DBL_EPSILON * fabs(*done);
    if (*out != NULL && (bound[next] - tol > *done ||
                         (bound[next] - tol >= *done && cand[next] > *nseg)))
      break; /* neither it nor a later one can win */
    err = plan_merges(p, cand[next], &m, &c, &t);
    if (err != PAT_SUCCESS && *out != NULL) {
      err = PAT_SUCCESS; /* a candidate that cannot be planned: the others */
      t = INFINITY;
    }
    if (err == PAT_SUCCESS &&
        (t < *done || (t == *done && cand[next] < *nseg))) {
      free(*out);
      *out = m;
      *nm = c;
      *done = t;
      *nseg = cand[next];
    } else {
      free(m);
    }
    cand[next] = 0;
  }
  if (err != PAT_SUCCESS) {
    free(*out);
    *out = NULL;
    *nm = 0;
  }
  return err;
}

/* The completion time of the whole schedule of merges m (nm of them, nseg
 * segments) in the byte-model simulation (pat_schedule_simulate) under
 * p's model and arrivals: what the dataflow executor takes, where the
 * in-order estimate was 0.8-1.05 of it. */
static int simulated(const pat_sched_params *p, int nseg, const merge *m,
                     int nm, double *t) {
  pat_schedule *s = NULL;
  /* only what is the same on every rank may decide: the root alone
   * passes MPI_IN_PLACE, which changes its copies, so not that */
  pat_sched_params q = *p;
  int P = p->nranks, err;
  int *start = malloc((size_t)(2 * P + 1) * sizeof *start);
  pat_tree_event *ev = malloc((size_t)(2 * nm + 1) * sizeof *ev);
  q.in_place = 0;
  err = start == NULL || ev == NULL ? PAT_ERR_NO_MEMORY
                                    : pat_schedule_alloc(&q, &s);
  if (err == PAT_SUCCESS) {
    bucket(m, nm, P, start, start + P + 1, ev);
    err = emit(s, &q, 0, P - 1, nseg, start, ev);
  }
  free(start);
  free(ev);
  for (int r = 0; err == PAT_SUCCESS && r < q.nranks; r++)
    err = pat_schedule_mark_built(s, r);
  if (err == PAT_SUCCESS)
    err = pat_schedule_simulate(s, q.arrivals, &q.model, t);
  pat_schedule_free(s);
  return err;
}

/* Whether an in-order candidate of nseg segments is small enough to
 * simulate (PAT_CLAIRVOYANT_SIMULATE_MERGES). */
static int affordable(const pat_sched_params *p, int nseg) {
  return (long long)(p->nranks - 1) * nseg <= PAT_CLAIRVOYANT_SIMULATE_MERGES;
}

/* The segment count for configured (pat_clairvoyant_segments) and its
 * merges: the automatic choice keeps the winning candidate's plan instead
 * of planning it again. */
static int choose(const pat_sched_params *p, int configured, int *nseg,
                  merge **out, int *nm, double *done) {
  int most = p->count < PAT_CLAIRVOYANT_AUTO_SEGMENTS
                 ? p->count
                 : PAT_CLAIRVOYANT_AUTO_SEGMENTS;
  int err;
  if (configured <= 0 && p->commutative && p->nranks > 1 && most > 1)
    return choose_bounded(p, most, nseg, out, nm, done);
  *nseg = configured > 0 ? clamped(p, configured) : 1;
  err = plan_merges(p, *nseg, out, nm, done);
  if (configured > 0)
    return err;
  /* non-commutative (no bound): the estimate's choice, doubling until the
   * estimate stops improving (ties: fewer), ... */
  for (int n = 2; err == PAT_SUCCESS && p->nranks > 1 && n <= most; n *= 2) {
    merge *m = NULL;
    int k = 0;
    double t = INFINITY;
    if (plan_merges(p, n, &m, &k, &t) != PAT_SUCCESS || !(t < *done)) {
      free(m);
      break;
    }
    free(*out);
    *out = m;
    *nm = k;
    *done = t;
    *nseg = n;
  }
  /* ... then from there to the neighbour (half or twice as many segments)
   * with a shorter simulated time, while there is one */
  if (err == PAT_SUCCESS && p->nranks > 1 && most > 1 && affordable(p, *nseg))
    err = simulated(p, *nseg, *out, *nm, done);
  else
    return err; /* the estimate's choice and time */
  for (int step = 0, from = *nseg; err == PAT_SUCCESS && step < 2; step++) {
    int moved = step == 0 || *nseg == from; /* 0: fewer, 1: more segments */
    while (moved) {
      int n = step == 0 ? *nseg / 2 : *nseg * 2, k = 0;
      merge *m = NULL;
      double t = INFINITY;
      moved = n >= 1 && n <= most && affordable(p, n) &&
              plan_merges(p, n, &m, &k, &t) == PAT_SUCCESS &&
              simulated(p, n, m, k, &t) == PAT_SUCCESS &&
              (step == 0 ? t <= *done : t < *done);
      if (moved) {
        free(*out);
        *out = m;
        *nm = k;
        *done = t;
        *nseg = n;
      } else {
        free(m);
      }
    }
  }
  return err;
}

/* A plan: the merges of the chosen segment count, their completion time
 * and hash, and every rank's events bucketed by rank, in one block of
 * memory, so that the memo (core/memo.c) can keep it for the other ranks
 * of the process that plan from the same inputs: each then cuts its
 * program out in O(its events) instead of planning in O(P log P). */
typedef struct plan {
  int nseg, nm;
  double done;
  unsigned long long hash;
  const merge *m;           /* nm of them, round order */
  const int *start;         /* rank r's events: ev[start[r] .. start[r + 1]) */
  const pat_tree_event *ev; /* 2 nm */
} plan;

/* What a plan depends on besides the arrivals (the memo key's head; the
 * arrivals are its body): the call, the configured segments and the
 * executor's bounds (the in-order choice simulates with them).  Not
 * in_place: only the root's copies depend on it, emitted per rank. */
typedef struct plan_inputs {
  char what[16]; /* "clairvoyant": this file's entries */
  int nranks, root, count, commutative, configured;
  int max_outstanding, max_sends;
  int zero; /* 8 ints: no padding before the doubles */
  pat_model model;
  double elem_size;
} plan_inputs;
_Static_assert(sizeof(plan_inputs) ==
                   16 + 8 * sizeof(int) + sizeof(pat_model) + sizeof(double),
               "plan_inputs has padding, whose bytes would be part of the key");

static size_t aligned(size_t n) {
  size_t a = _Alignof(max_align_t);
  return (n + a - 1) / a * a;
}

/* Plans p with configured segments (choose) into one block (*out, *size
 * bytes). */
static int plan_make(const pat_sched_params *p, int configured, plan **out,
                     size_t *size) {
  int P = p->nranks, nseg = 1, nm = 0, err;
  merge *m = NULL;
  double done = 0;
  unsigned long long hash = 0x5eedull;
  size_t at_m, at_start, at_ev, bytes;
  int *fill = NULL;
  plan *pl = NULL;
  *out = NULL;
  err = choose(p, configured, &nseg, &m, &nm, &done);
  for (int i = 0; err == PAT_SUCCESS && i < nm; i++) {
    hash = hash_mix(hash, (unsigned long long)m[i].sender << 42 ^
                              (unsigned long long)m[i].receiver << 21 ^
                              (unsigned long long)m[i].round);
    if (nseg > 1)
      hash = hash_mix(hash, (unsigned long long)m[i].seg);
  }
  at_m = aligned(sizeof *pl);
  at_start = at_m + aligned((size_t)nm * sizeof *m);
  at_ev = at_start + aligned((size_t)(P + 1) * sizeof(int));
  bytes = at_ev + (size_t)(2 * nm + 1) * sizeof(pat_tree_event);
  if (err == PAT_SUCCESS && ((pl = malloc(bytes)) == NULL ||
                             (fill = malloc((size_t)P * sizeof *fill)) == NULL))
    err = PAT_ERR_NO_MEMORY;
  if (err == PAT_SUCCESS) {
    unsigned char *b = (unsigned char *)pl;
    merge *pm = (merge *)(b + at_m);
    int *start = (int *)(b + at_start);
    pat_tree_event *ev = (pat_tree_event *)(b + at_ev);
    if (nm > 0)
      memcpy(pm, m, (size_t)nm * sizeof *m);
    bucket(m, nm, P, start, fill, ev);
    *pl = (plan){nseg, nm, done, hash, pm, start, ev};
    *out = pl;
    *size = bytes;
  } else {
    free(pl);
  }
  free(fill);
  free(m);
  return err;
}

/* The plan for p (finite arrivals) with configured segments, from the
 * memo or made (and put there), held (*held) until pat_memo_release; NULL
 * and the error in *err if it cannot be made. */
static const plan *plan_get(const pat_sched_params *p, int configured,
                            pat_memo_held **held, int *err) {
  plan_inputs in;
  pat_memo_key key;
  const plan *found;
  plan *made = NULL;
  size_t size = 0;
  memset(&in, 0, sizeof in); /* the padding is part of the key */
  strcpy(in.what, "clairvoyant");
  in.nranks = p->nranks;
  in.root = p->root;
  in.count = p->count;
  in.commutative = p->commutative != 0;
  in.configured = configured;
  in.max_outstanding = pat_config_get()->max_outstanding;
  in.max_sends = pat_config_get()->max_sends;
  in.model = p->model;
  in.elem_size = p->elem_size;
  key = (pat_memo_key){&in, sizeof in, p->arrivals,
                       (size_t)p->nranks * sizeof *p->arrivals};
  *err = PAT_SUCCESS;
  if ((found = pat_memo_find(&key, held)) != NULL)
    return found;
  *err = plan_make(p, configured, &made, &size);
  if (*err != PAT_SUCCESS)
    return NULL;
  found = pat_memo_put(&key, made, size, held);
  if (found == NULL)
    *err = PAT_ERR_NO_MEMORY;
  return found;
}

int pat_clairvoyant_segments(const pat_sched_params *p, int configured) {
  pat_memo_held *held = NULL;
  const plan *pl;
  int err, nseg;
  if (configured > 0)
    return clamped(p, configured);
  pl = plan_get(p, 0, &held, &err);
  nseg = pl != NULL ? pl->nseg : 1;
  pat_memo_release(held);
  return nseg;
}

/* The plan's merges as a replay (replay.c: the plan run under other
 * arrivals, in plan order; for one segment its tree taking its children
 * in its order), or NULL without memory. */
static pat_replay *to_replay(const pat_sched_params *p, int nseg,
                             const merge *m, int nm) {
  double d = nseg > 1 ? pat_clairvoyant_segment_cost(p, nseg)
                      : pat_sched_round_cost(p);
  pat_replay *r = pat_replay_alloc(p->nranks, p->root, nseg, d, nm);
  for (int i = 0; r != NULL && i < nm; i++)
    if (pat_replay_set(r, i, m[i].sender, m[i].receiver, m[i].seg) !=
        PAT_SUCCESS) {
      pat_replay_free(r);
      r = NULL;
    }
  return r;
}

double pat_clairvoyant_estimate(const pat_sched_params *planned,
                                const double *actual) {
  pat_sched_params q = *planned;
  double *zeros = NULL, done = INFINITY, first, last;
  pat_memo_held *held = NULL;
  const plan *pl;
  int err;
  if (!(pat_sched_round_cost(planned) > 0))
    return INFINITY;
  if (q.arrivals == NULL) {
    zeros = calloc((size_t)q.nranks, sizeof *zeros);
    q.arrivals = zeros;
    if (zeros == NULL)
      return INFINITY;
  }
  pl = plan_get(&q, pat_config_get()->segments, &held, &err);
  if (pl == NULL) {
    done = INFINITY;
  } else if (actual != NULL) {
    pat_replay *r = to_replay(&q, pl->nseg, pl->m, pl->nm);
    done = pat_replay_time(r, actual);
    pat_replay_free(r);
  } else {
    arrival_range(&q, &first, &last);
    done = pl->done - first;
  }
  pat_memo_release(held);
  free(zeros);
  return done;
}

static double clairvoyant_estimate(const pat_sched_params *p) {
  return pat_clairvoyant_estimate(p, NULL);
}

/* No plan beats its segment count's bound (n + N - 1 segment rounds from
 * the first arrival, N after the last): the least bound over the segment
 * counts the builder may choose. */
static double clairvoyant_bound(const pat_sched_params *p) {
  pat_sched_params q = *p;
  double *zeros = NULL, first = 0, last = 0, best = INFINITY;
  int configured = pat_config_get()->segments;
  int most = p->count < PAT_CLAIRVOYANT_AUTO_SEGMENTS
                 ? p->count
                 : PAT_CLAIRVOYANT_AUTO_SEGMENTS;
  if (q.arrivals == NULL &&
      (zeros = calloc((size_t)q.nranks, sizeof *zeros)) == NULL)
    return 0;
  if (zeros != NULL)
    q.arrivals = zeros;
  arrival_range(&q, &first, &last);
  if (configured > 0)
    best = segment_bound(&q, clamped(&q, configured), first, last);
  for (int n = 1; configured <= 0 && n <= (most > 1 ? most : 1); n *= 2)
    best = fmin(best, segment_bound(&q, n, first, last));
  free(zeros);
  return best - first;
}

static int clairvoyant_build(const pat_sched_params *p, int rank,
                             pat_schedule *sched) {
  int P = p->nranks, err = PAT_SUCCESS;
  pat_memo_held *held = NULL;
  const plan *pl = NULL;

  if (p->arrivals == NULL || !(pat_sched_round_cost(p) > 0) ||
      !isfinite(pat_sched_round_cost(p)))
    return PAT_ERR_INVALID_ARG;
  for (int r = 0; r < P; r++)
    if (!isfinite(p->arrivals[r]))
      return PAT_ERR_INVALID_ARG;
  pl = plan_get(p, pat_config_get()->segments, &held, &err);
  if (pl != NULL)
    err = emit(sched, p, rank < 0 ? 0 : rank, rank < 0 ? P - 1 : rank, pl->nseg,
               pl->start, pl->ev);
  if (pl != NULL && err == PAT_SUCCESS) {
    pat_schedule_set_prediction(sched, pl->done, pl->hash);
    /* auto scores the plan with it; without memory for it, auto plans
     * again when it scores (the schedule is whole either way, so a rank
     * short of memory still runs the plan every rank runs) */
    pat_schedule_set_replay(sched, to_replay(p, pl->nseg, pl->m, pl->nm));
  }
  /* the plan's rounds keep the send ports busy: a send posted a round
   * early slows the round's own (simulated at P = 128, 2 MiB: 1.25x the
   * plan with 4 posted ahead, 1.11x with 1, exactly the plan with none;
   * and with a wrong prediction, one rank late by the balanced time,
   * 3.34 ms with none against 3.46 with 1, butterfly 4.14) */
  if (pl != NULL && err == PAT_SUCCESS && pl->nseg > 1 && p->commutative)
    pat_schedule_set_sends_ahead(sched, 0);
  pat_memo_release(held);
  return err;
}

const pat_alg_row pat_alg_clairvoyant = {
    .id = PAT_REDUCE_ALG_CLAIRVOYANT,
    .name = "clairvoyant",
    .description = "greedy tree for the predicted arrival times (thesis "
                   "Alg. 8), or with segments the segmented plan (Alg. 10); "
                   "in-order merges, pipelined over the segments, for "
                   "non-commutative ops",
    .build = clairvoyant_build,
    .estimate = clairvoyant_estimate,
    .bound = clairvoyant_bound,
    .fallback = PAT_REDUCE_ALG_BINOMIAL,
    .uses_arrivals = 1,
    .uses = PAT_SCOPE_BIT(PAT_SCOPE_SEGMENTS)};
