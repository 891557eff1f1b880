/*
 * clairvoyant: the greedy reduction schedule for known arrival times
 * (Marendic 2016, Algorithm 8), and an order-preserving variant for
 * non-commutative ops.
 *
 * Idea (commutative ops).  Keep every rank in a binary heap keyed by the
 * time its partial is ready (its arrival at first).  Repeatedly take the
 * two earliest: the later-ready one sends to the earlier-ready one, whose
 * partial is then ready at max(t_i, t_j) + d; the root always receives
 * (it must survive); ties go to the lower rank.  For atomic data this
 * greedy tree is optimal (thesis ch. 5; tests/unit/test_clairvoyant.c
 * checks it against exhaustive search).  Building is O(P log P); a rank
 * that builds only its own program still simulates the whole tree, so
 * every rank derives the same tree from the same inputs.
 *
 * Non-commutative ops.  Pairing arbitrary ranks would reorder operands.
 * Instead only adjacent rank intervals merge, "left (op) right": keep the
 * candidate merges of neighbouring intervals in a heap keyed by the time
 * the merge would complete, max(t_left, t_right) + d, and repeatedly
 * perform the earliest (ties: the leftmost).  The earlier-ready holder
 * receives, except that an interval holding the root is always held by the
 * root.  The result is the in-order reduction, bitwise.
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
 * Inputs: params->arrivals (any common origin) and the round cost d, from
 * params' byte model for count elements: alpha + m (beta + gamma).
 * Tunables: none here; the predictor and cost model live in pat/.
 */
#include <math.h>
#include <stdlib.h>

#include "core/pat_internal.h"

typedef struct merge {
  int sender, receiver, round;
  pat_tree_kind kind; /* what the receiver gets: partial after/before its own */
} merge;

/* ---- a binary min-heap of (time, key) with ties by key ------------------ */

typedef struct heap_item {
  double t;
  int key; /* tie-break, lower first */
  int a;   /* the rank whose partial this is */
} heap_item;

typedef struct heap {
  heap_item *it;
  int n;
} heap;

static int before(const heap_item *x, const heap_item *y) {
  return x->t < y->t || (x->t == y->t && x->key < y->key);
}

static void heap_push(heap *h, heap_item x) {
  int i = h->n++;
  while (i > 0 && before(&x, &h->it[(i - 1) / 2])) {
    h->it[i] = h->it[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->it[i] = x;
}

/* Replaces the top with x and restores the heap. */
static void heap_replace_top(heap *h, heap_item x) {
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && before(&h->it[c + 1], &h->it[c]))
      c++;
    if (!before(&h->it[c], &x))
      break;
    h->it[i] = h->it[c];
    i = c;
  }
  h->it[i] = x;
}

static heap_item heap_pop(heap *h) {
  heap_item top = h->it[0];
  if (--h->n > 0)
    heap_replace_top(h, h->it[h->n]);
  return top;
}

static unsigned long long hash_mix(unsigned long long h, unsigned long long v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

static double later(double a, double b) { return a > b ? a : b; }

/* Commutative: the greedy pairing.  Writes P - 1 merges; returns the time
 * the root's result is ready. */
static double greedy(const pat_sched_params *p, heap *h, int *last_round,
                     merge *m) {
  int P = p->nranks, nm = 0;
  double d = pat_sched_round_cost(p), done = p->arrivals[p->root];
  for (int r = 0; r < P; r++) {
    heap_push(h, (heap_item){.t = p->arrivals[r], .key = r, .a = r});
    last_round[r] = -1;
  }
  while (h->n > 1) {
    /* the merged partial takes the second one's place: one sift, not two */
    heap_item x = heap_pop(h), y = h->it[0];
    int recv = x.a, send = y.a, round;
    if (send == p->root) {
      recv = y.a;
      send = x.a;
    }
    round = (last_round[recv] > last_round[send] ? last_round[recv]
                                                 : last_round[send]) +
            1;
    last_round[recv] = round;
    m[nm++] = (merge){send, recv, round, PAT_TREE_RECV_AFTER};
    done = later(x.t, y.t) + d;
    heap_replace_top(h, (heap_item){.t = done, .key = recv, .a = recv});
  }
  return done;
}

/* An indexed min-heap of the candidate merges of neighbouring intervals,
 * one per interval that has a right neighbour, named by the interval's
 * lowest rank and keyed by (completion time, lowest rank): a merge updates
 * two keys in place instead of leaving stale entries behind. */
typedef struct cand_heap {
  int *h;          /* heap of interval ids */
  int *pos;        /* pos[id]: index in h, or -1 */
  const double *t; /* t[id]: completion time of the merge with the right */
  int n;
} cand_heap;

static int cand_before(const cand_heap *c, int a, int b) {
  return c->t[a] < c->t[b] || (c->t[a] == c->t[b] && a < b);
}

static void cand_place(cand_heap *c, int i, int id) {
  c->h[i] = id;
  c->pos[id] = i;
}

static void cand_sift(cand_heap *c, int i) {
  int id = c->h[i];
  while (i > 0 && cand_before(c, id, c->h[(i - 1) / 2])) {
    cand_place(c, i, c->h[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  for (;;) {
    int k = 2 * i + 1;
    if (k >= c->n)
      break;
    if (k + 1 < c->n && cand_before(c, c->h[k + 1], c->h[k]))
      k++;
    if (!cand_before(c, c->h[k], id))
      break;
    cand_place(c, i, c->h[k]);
    i = k;
  }
  cand_place(c, i, id);
}

static void cand_remove(cand_heap *c, int id) {
  int i = c->pos[id];
  if (i < 0)
    return;
  c->pos[id] = -1;
  if (i == --c->n)
    return;
  cand_place(c, i, c->h[c->n]);
  cand_sift(c, i);
}

/* Non-commutative: merges of adjacent intervals.  Interval i is stored at
 * its lowest rank lo: hi[lo], holder[lo], ready[lo], and ct[lo], the time
 * its merge with the interval on its right would complete. */
static double in_order(const pat_sched_params *p, int *last_round, merge *m,
                       int *ints, double *ready, double *ct) {
  int P = p->nranks, nm = 0;
  int *hi = ints, *prev = ints + P, *holder = ints + 2 * P;
  cand_heap c = {.h = ints + 3 * P, .pos = ints + 4 * P, .t = ct, .n = 0};
  double d = pat_sched_round_cost(p), done = p->arrivals[p->root];
  for (int r = 0; r < P; r++) {
    hi[r] = r;
    prev[r] = r - 1;
    holder[r] = r;
    ready[r] = p->arrivals[r];
    last_round[r] = -1;
    c.pos[r] = -1;
  }
  for (int r = 0; r + 1 < P; r++) {
    ct[r] = later(ready[r], ready[r + 1]) + d;
    cand_place(&c, c.n++, r);
    cand_sift(&c, c.n - 1);
  }
  while (nm < P - 1) {
    int L = c.h[0], R = hi[L] + 1, recv, send, round;
    double t = ct[L];
    /* the earlier-ready holder receives; the root always does */
    recv = ready[L] <= ready[R] ? holder[L] : holder[R];
    if (holder[L] == p->root || holder[R] == p->root)
      recv = p->root;
    send = recv == holder[L] ? holder[R] : holder[L];
    round = (last_round[recv] > last_round[send] ? last_round[recv]
                                                 : last_round[send]) +
            1;
    last_round[recv] = round;
    m[nm++] =
        (merge){send, recv, round,
                recv == holder[L] ? PAT_TREE_RECV_AFTER : PAT_TREE_RECV_BEFORE};
    done = t;
    /* L absorbs R: R's candidate goes, L's and its left neighbour's change */
    cand_remove(&c, R);
    holder[L] = recv;
    ready[L] = t;
    hi[L] = hi[R];
    if (hi[L] + 1 < P) {
      prev[hi[L] + 1] = L;
      ct[L] = later(ready[L], ready[hi[L] + 1]) + d;
      cand_sift(&c, c.pos[L]);
    } else {
      cand_remove(&c, L);
    }
    if (prev[L] >= 0) {
      ct[prev[L]] = later(ready[prev[L]], ready[L]) + d;
      cand_sift(&c, c.pos[prev[L]]);
    }
  }
  return done;
}

/* Emits the programs of rank (or all ranks, rank < 0) from the merges. */
static int emit(const pat_sched_params *p, int rank, const merge *m, int nm,
                pat_schedule *sched) {
  int P = p->nranks, err = PAT_SUCCESS;
  int lo = rank < 0 ? 0 : rank, hi = rank < 0 ? P - 1 : rank;
  int n = hi - lo + 1;
  int *start = calloc((size_t)n + 1, sizeof *start);
  pat_tree_event *ev = malloc((size_t)(2 * nm + 1) * sizeof *ev);
  if (start == NULL || ev == NULL) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  /* bucket the events by rank (merges are in round order per rank) */
  for (int i = 0; i < nm; i++) {
    if (m[i].sender >= lo && m[i].sender <= hi)
      start[m[i].sender - lo + 1]++;
    if (m[i].receiver >= lo && m[i].receiver <= hi)
      start[m[i].receiver - lo + 1]++;
  }
  for (int r = 0; r < n; r++)
    start[r + 1] += start[r];
  {
    int *fill = malloc((size_t)(n > 0 ? n : 1) * sizeof *fill);
    if (fill == NULL) {
      err = PAT_ERR_NO_MEMORY;
      goto out;
    }
    for (int r = 0; r < n; r++)
      fill[r] = start[r];
    for (int i = 0; i < nm; i++) {
      if (m[i].receiver >= lo && m[i].receiver <= hi)
        ev[fill[m[i].receiver - lo]++] =
            (pat_tree_event){.kind = m[i].kind, .round = m[i].round, .peer = m[i].sender};
      if (m[i].sender >= lo && m[i].sender <= hi)
        ev[fill[m[i].sender - lo]++] =
            (pat_tree_event){.kind = PAT_TREE_SEND, .round = m[i].round, .peer = m[i].receiver};
    }
    free(fill);
  }
  for (int r = 0; r < n && err == PAT_SUCCESS; r++)
    err =
        pat_tree_emit(sched, p, lo + r, ev + start[r], start[r + 1] - start[r]);
out:
  free(start);
  free(ev);
  return err;
}

static int clairvoyant_build(const pat_sched_params *p, int rank,
                             pat_schedule *sched) {
  int P = p->nranks, err = PAT_SUCCESS;
  heap h = {0};
  merge *m = NULL;
  int *ints = NULL;
  double *ready = NULL, done;
  double *ct = NULL;
  unsigned long long hash = 0x5eedull;

  if (p->arrivals == NULL || !(pat_sched_round_cost(p) > 0) ||
      !isfinite(pat_sched_round_cost(p))) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  for (int r = 0; r < P; r++)
    if (!isfinite(p->arrivals[r])) {
      err = PAT_ERR_INVALID_ARG;
      goto out;
    }
  h.it = malloc((size_t)(P + 1) * sizeof *h.it);
  m = malloc((size_t)P * sizeof *m);
  ints = malloc((size_t)(6 * P) * sizeof *ints);
  ready = malloc((size_t)P * sizeof *ready);
  ct = malloc((size_t)P * sizeof *ct);
  if (!h.it || !m || !ints || !ready || !ct) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  done = p->commutative ? greedy(p, &h, ints, m)
                        : in_order(p, ints, m, ints + P, ready, ct);
  for (int i = 0; i < P - 1; i++)
    hash = hash_mix(hash, (unsigned long long)m[i].sender << 42 ^
                              (unsigned long long)m[i].receiver << 21 ^
                              (unsigned long long)m[i].round);
  err = emit(p, rank, m, P - 1, sched);
  if (err == PAT_SUCCESS)
    pat_schedule_set_prediction(sched, done, hash);
out:
  free(h.it);
  free(m);
  free(ints);
  free(ready);
  free(ct);
  return err;
}

const pat_alg_row pat_alg_clairvoyant = {
    .id = PAT_REDUCE_ALG_CLAIRVOYANT,
    .name = "clairvoyant",
    .description = "greedy tree for the predicted arrival times (thesis "
                   "Alg. 8); in-order merges for non-commutative ops",
    .build = clairvoyant_build,
    .fallback = PAT_REDUCE_ALG_BINOMIAL,
    .uses_arrivals = 1};
