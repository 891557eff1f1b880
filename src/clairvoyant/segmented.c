/*
 * The segmented clairvoyant plan (Marendic 2016, Algorithm 10): which rank
 * sends which segment to whom in which round, for known arrival times.
 *
 * Idea.  The message is cut into N segments.  Rounds are synchronous steps
 * of length d = alpha + (m / N)(beta + gamma) (the largest segment's
 * receive + combine under the byte model); in a round every rank sends at
 * most one segment and receives at most one (full duplex), and a receiver
 * combines what it gets into its own partial of that segment.  A rank
 * holds each segment until it sends it, and leaves when it has sent them
 * all; the root never sends.  A rank takes part once it has arrived.
 * While the root has not arrived, the earliest rank is the sink instead:
 * it only receives, so that the early ranks' partials gather in one place,
 * and it sends like the others once the root is there.
 *
 * Greedy, lowest segment first.  In each round the segments are taken in
 * index order, and the holders of a segment whose ports are still free
 * are paired: ranks that can only send (their receive port is taken) with
 * ranks that can only receive (the sink first), then the rest with ranks
 * free both ways, then pairs of free ranks (the higher rank sends).  Each
 * pair halves nothing by itself, but every segment's holders halve per
 * round while the ports last, and a rank that receives one segment can
 * send another in the same round.  A round without any transfer moves the
 * clock to the next arrival.
 *
 * Balanced arrivals.  The plan has exactly n + N - 1 rounds, n =
 * ceil(log2 P): the lower bound, as the root receives each segment once
 * and the first one needs n rounds.  Checked for every P in 2..512 and N in
 * {1, 2, 3, 4, 8, 16, 64} (tests/unit/test_segmented.c); the thesis checked
 * powers of two.
 *
 * Cost.  Sets of ranks are bitsets: per round, per open segment a few word
 * operations over ceil(P / 64) words, until no send or no receive port is
 * left, plus a few per transfer.  The ports counted are those that can
 * serve: of ranks here that still hold a segment, the sink's send port
 * not (counted with the root's send port and the ports of ranks that had
 * left, the count never reached zero, and every open segment was scanned
 * in every round: half the build at P = 8, N = 56).  A segment's
 * candidates are searched from the first and last words that can still
 * hold one (cands).  Balanced, best of repeated builds on this 2-core
 * machine (unit test's print): P = 128, N = 16 in 22 us (the thesis'
 * builder: 0.55 ms); P = 1024, N = 64 in 0.63 ms (1.0 ms before both).
 */
#include <limits.h>
#include <stdlib.h>

#include "clairvoyant/clairvoyant.h"

double pat_clairvoyant_segment_bytes(const pat_sched_params *p, int nseg) {
  /* ceil(count / nseg) elements */
  return (double)(((long long)p->count + nseg - 1) / nseg) * p->elem_size;
}

double pat_clairvoyant_segment_cost(const pat_sched_params *p, int nseg) {
  return pat_model_round_cost(&p->model,
                              pat_clairvoyant_segment_bytes(p, nseg));
}

/* A rank and its arrival, sorted for the presence sweep. */
typedef struct arrival {
  double t;
  int rank;
} arrival;

static int by_arrival(const void *a, const void *b) {
  const arrival *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank); /* ties: lower rank */
}

/* Sets of ranks are bitsets of W = ceil(P / 64) words: a segment's
 * candidates are found with a few word operations, not a pass over its
 * holders (that pass was 95% of the time at P = 128, N = 64). */
typedef unsigned long long word;
#define WBITS 64

static int has(const word *set, int r) {
  return (int)(set[r / WBITS] >> (r % WBITS) & 1u);
}

static void clear(word *set, int r) {
  set[r / WBITS] &= ~(1ull << (r % WBITS));
}
static void put(word *set, int r) { set[r / WBITS] |= 1ull << (r % WBITS); }

typedef struct planner {
  int P, N, W, root;
  word *hold;                 /* N sets: the ranks holding each segment */
  int *nhold;                 /* per segment */
  int *order;                 /* ranks by arrival */
  int npresent;               /* order[0 .. npresent) have arrived */
  word *present;              /* arrived ranks */
  int *nheld;                 /* per rank, the segments it holds */
  word *alive;                /* ranks holding a segment (not left) */
  word *fsend, *frecv;        /* ranks whose send / receive port is free */
  int nfsend, nfrecv;         /* their sizes */
  word *sonly, *ronly, *both; /* one segment's candidates */
  int *open, nopen;           /* segments with more than one holder, by index */
} planner;

static void planner_free(planner *pl) {
  free(pl->hold);
  free(pl->nhold);
  free(pl->order);
  free(pl->nheld);
  free(pl->present);
  free(pl->open);
}

static int planner_init(planner *pl, const pat_sched_params *p, int nseg) {
  int P = p->nranks, W = (P + WBITS - 1) / WBITS;
  *pl = (planner){.P = P, .N = nseg, .W = W, .root = p->root};
  pl->hold = malloc((size_t)W * (size_t)nseg * sizeof *pl->hold);
  pl->nhold = malloc((size_t)nseg * sizeof *pl->nhold);
  pl->order = malloc((size_t)P * sizeof *pl->order);
  pl->nheld = malloc((size_t)P * sizeof *pl->nheld);
  /* present, fsend, frecv, sonly, ronly, both, alive: one block */
  pl->present = calloc((size_t)W * 7, sizeof *pl->present);
  pl->open = malloc((size_t)nseg * sizeof *pl->open);
  if (!pl->hold || !pl->nhold || !pl->order || !pl->nheld || !pl->present ||
      !pl->open)
    return PAT_ERR_NO_MEMORY;
  pl->fsend = pl->present + W;
  pl->frecv = pl->present + 2 * W;
  pl->sonly = pl->present + 3 * W;
  pl->ronly = pl->present + 4 * W;
  pl->both = pl->present + 5 * W;
  pl->alive = pl->present + 6 * W;
  for (int r = 0; r < P; r++) {
    pl->nheld[r] = nseg;
    put(pl->alive, r);
  }
  for (int s = 0; s < nseg; s++) {
    word *h = pl->hold + (size_t)s * W;
    for (int w = 0; w < W; w++)
      h[w] = 0;
    for (int r = 0; r < P; r++)
      put(h, r);
    pl->nhold[s] = P;
    if (P > 1)
      pl->open[pl->nopen++] = s;
  }
  {
    arrival *a = malloc((size_t)P * sizeof *a);
    if (a == NULL)
      return PAT_ERR_NO_MEMORY;
    for (int r = 0; r < P; r++)
      a[r] = (arrival){p->arrivals[r], r};
    qsort(a, (size_t)P, sizeof *a, by_arrival);
    for (int r = 0; r < P; r++)
      pl->order[r] = a[r].rank;
    free(a);
  }
  return PAT_SUCCESS;
}

/* One transfer of segment s in round: the sender's partial leaves. */
static void pair(planner *pl, int s, int round, int snd, int rcv,
                 pat_clairvoyant_plan *plan) {
  clear(pl->hold + (size_t)s * pl->W, snd);
  pl->nhold[s]--;
  if (--pl->nheld[snd] == 0) { /* it has left: no port of its serves */
    clear(pl->alive, snd);
    if (has(pl->frecv, snd)) {
      clear(pl->frecv, snd);
      pl->nfrecv--;
    }
  }
  clear(pl->fsend, snd);
  clear(pl->frecv, rcv);
  pl->nfsend--;
  pl->nfrecv--;
  plan->t[plan->n++] = (pat_clairvoyant_transfer){
      .sender = snd, .receiver = rcv, .seg = s, .round = round};
}

/* One segment's candidates of a kind while they are paired: bits are
 * only cleared then, so the words before lo and after hi stay empty and
 * each search starts there (from word 0 it was half the build at
 * P = 1024). */
typedef struct cands {
  word *w;
  int lo, hi;
} cands;

static int first(cands *c) {
  while (c->lo <= c->hi && c->w[c->lo] == 0)
    c->lo++;
  return c->lo <= c->hi ? c->lo * WBITS + __builtin_ctzll(c->w[c->lo]) : -1;
}

static int last(cands *c) {
  while (c->hi >= c->lo && c->w[c->hi] == 0)
    c->hi--;
  return c->hi >= c->lo
             ? c->hi * WBITS + WBITS - 1 - __builtin_clzll(c->w[c->hi])
             : -1;
}

/* Pairs the holders of segment s whose ports are free: send-only with
 * receive-only ranks (the sink first), then with free ranks from the top,
 * then free pairs from the bottom (the higher sends). */
static void pair_segment(planner *pl, int s, int round, int sink,
                         pat_clairvoyant_plan *plan) {
  int W = pl->W, snd, rcv;
  const word *h = pl->hold + (size_t)s * W;
  cands so = {pl->sonly, 0, W - 1}, ro = {pl->ronly, 0, W - 1},
        bo = {pl->both, 0, W - 1};
  for (int w = 0; w < W; w++) {
    word cs = h[w] & pl->fsend[w]; /* ports that serve: not the sink's */
    word cr = h[w] & pl->frecv[w];
    bo.w[w] = cs & cr;
    so.w[w] = cs & ~cr;
    ro.w[w] = cr & ~cs;
  }
#define RECEIVER() (has(ro.w, sink) ? sink : first(&ro))
  while ((snd = first(&so)) >= 0 && (rcv = RECEIVER()) >= 0) {
    clear(so.w, snd);
    clear(ro.w, rcv);
    pair(pl, s, round, snd, rcv, plan);
  }
  while ((snd = first(&so)) >= 0 && (rcv = last(&bo)) >= 0) {
    clear(so.w, snd);
    clear(bo.w, rcv);
    pair(pl, s, round, snd, rcv, plan);
  }
  while ((rcv = RECEIVER()) >= 0 && (snd = last(&bo)) >= 0) {
    clear(ro.w, rcv);
    clear(bo.w, snd);
    pair(pl, s, round, snd, rcv, plan);
  }
#undef RECEIVER
  while ((rcv = first(&bo)) >= 0) {
    clear(bo.w, rcv);
    if ((snd = first(&bo)) < 0)
      break;
    clear(bo.w, snd);
    pair(pl, s, round, snd, rcv, plan);
  }
}

int pat_clairvoyant_plan_segments(const pat_sched_params *p, int nseg,
                                  pat_clairvoyant_plan *plan) {
  planner pl = {0};
  int P = p->nranks, err = PAT_SUCCESS, round = 0;
  double d = pat_clairvoyant_segment_cost(p, nseg), t;
  *plan = (pat_clairvoyant_plan){0};
  if (nseg < 1 || P < 1 || p->arrivals == NULL || !(d > 0)) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  if ((long long)(P > 1 ? P - 1 : 1) * nseg > INT_MAX / 2) {
    err = PAT_ERR_NO_MEMORY; /* more transfers than an int counts */
    goto out;
  }
  err = planner_init(&pl, p, nseg);
  plan->t =
      malloc((size_t)(P > 1 ? P - 1 : 1) * (size_t)nseg * sizeof *plan->t);
  if (err == PAT_SUCCESS && plan->t == NULL)
    err = PAT_ERR_NO_MEMORY;
  if (err != PAT_SUCCESS)
    goto out;
  t = p->arrivals[pl.order[0]];
  plan->done = p->arrivals[p->root];
  while (pl.nopen > 0) {
    int before = plan->n, sink, k, m = 0;
    while (pl.npresent < P && p->arrivals[pl.order[pl.npresent]] <= t)
      put(pl.present, pl.order[pl.npresent++]);
    sink = has(pl.present, p->root) ? p->root : pl.order[0];
    /* the ports that can serve: ranks here that hold a segment, and the
     * sink does not send (counted so, the segments stop being scanned
     * once either kind is used up) */
    pl.nfrecv = 0;
    for (int w = 0; w < pl.W; w++) {
      pl.fsend[w] = pl.frecv[w] = pl.present[w] & pl.alive[w];
      pl.nfrecv += __builtin_popcountll(pl.frecv[w]);
    }
    pl.nfsend = pl.nfrecv;
    if (has(pl.fsend, sink)) {
      clear(pl.fsend, sink);
      pl.nfsend--;
    }
    for (k = 0; k < pl.nopen && pl.nfsend > 0 && pl.nfrecv > 0; k++)
      pair_segment(&pl, pl.open[k], round, sink, plan);
    if (plan->n == before) {
      /* nothing can move until the next rank arrives */
      if (pl.npresent == P) {
        err = PAT_ERR_INVALID_ARG; /* cannot happen: two holders pair */
        goto out;
      }
      t = p->arrivals[pl.order[pl.npresent]];
      continue;
    }
    for (k = 0; k < pl.nopen; k++)
      if (pl.nhold[pl.open[k]] > 1)
        pl.open[m++] = pl.open[k];
    pl.nopen = m;
    t += d;
    round++;
  }
  plan->rounds = round;
  if (round > 0)
    plan->done = t;
out:
  planner_free(&pl);
  if (err != PAT_SUCCESS)
    pat_clairvoyant_plan_free(plan);
  return err;
}

void pat_clairvoyant_plan_free(pat_clairvoyant_plan *plan) {
  if (plan != NULL) {
    free(plan->t);
    *plan = (pat_clairvoyant_plan){0};
  }
}
