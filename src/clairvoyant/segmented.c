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
 * Cost.  Per round the work is the number of holders of the segments
 * scanned until no send or no receive port is left; each segment's list
 * is compacted as its senders leave.  P = 128, N = 16 and P = 1024, N = 64:
 * see the unit test's timing print and the README.
 */
#include <stdlib.h>

#include "clairvoyant/clairvoyant.h"

/* Largest segment of count elements cut into nseg: ceil(count / nseg). */
static int largest_segment(int count, int nseg) {
  return (int)(((long long)count + nseg - 1) / nseg);
}

double pat_clairvoyant_segment_cost(const pat_sched_params *p, int nseg) {
  return pat_model_round_cost(
      &p->model, (double)largest_segment(p->count, nseg) * p->elem_size);
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

typedef struct planner {
  int P, N, root;
  int *holders;  /* N lists of P: the ranks holding each segment, by rank */
  int *nhold;    /* per segment */
  int *order;    /* ranks by arrival */
  int npresent;  /* order[0 .. npresent) have arrived */
  char *present; /* per rank */
  /* per rank: the round (+ 1) its send / receive port was last used, and
   * the segment it sent then */
  int *send_at, *recv_at, *sent_seg;
  int *open, nopen; /* segments with more than one holder, by index */
  int *sonly, *ronly, *both;
} planner;

static void planner_free(planner *pl) {
  free(pl->holders);
  free(pl->nhold);
  free(pl->order);
  free(pl->present);
  free(pl->send_at);
  free(pl->recv_at);
  free(pl->sent_seg);
  free(pl->open);
  free(pl->sonly);
  free(pl->ronly);
  free(pl->both);
}

static int planner_init(planner *pl, const pat_sched_params *p, int nseg) {
  int P = p->nranks;
  *pl = (planner){.P = P, .N = nseg, .root = p->root};
  pl->holders = malloc((size_t)P * (size_t)nseg * sizeof *pl->holders);
  pl->nhold = malloc((size_t)nseg * sizeof *pl->nhold);
  pl->order = malloc((size_t)P * sizeof *pl->order);
  pl->present = calloc((size_t)P, 1);
  pl->send_at = calloc((size_t)P, sizeof *pl->send_at);
  pl->recv_at = calloc((size_t)P, sizeof *pl->recv_at);
  pl->sent_seg = calloc((size_t)P, sizeof *pl->sent_seg);
  pl->open = malloc((size_t)nseg * sizeof *pl->open);
  pl->sonly = malloc((size_t)P * sizeof *pl->sonly);
  pl->ronly = malloc((size_t)P * sizeof *pl->ronly);
  pl->both = malloc((size_t)P * sizeof *pl->both);
  if (!pl->holders || !pl->nhold || !pl->order || !pl->present ||
      !pl->send_at || !pl->recv_at || !pl->sent_seg || !pl->open ||
      !pl->sonly || !pl->ronly || !pl->both)
    return PAT_ERR_NO_MEMORY;
  for (int s = 0; s < nseg; s++) {
    for (int r = 0; r < P; r++)
      pl->holders[(size_t)s * P + r] = r;
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

/* Pairs the free holders of segment s in round; appends the transfers to
 * plan and returns how many. */
static int pair_segment(planner *pl, int s, int round, int sink,
                        pat_clairvoyant_plan *plan) {
  int *h = pl->holders + (size_t)s * pl->P, stamp = round + 1;
  int ns = 0, nr = 0, nb = 0, is = 0, ir = 0, lo = 0, hi, moved = 0, m = 0;
  int sink_recv = 0; /* the sink can receive: it is paired first */
  for (int k = 0; k < pl->nhold[s]; k++) {
    int r = h[k];
    int can_send = pl->present[r] && r != sink && pl->send_at[r] != stamp;
    int can_recv = pl->present[r] && pl->recv_at[r] != stamp;
    if (can_send && can_recv)
      pl->both[nb++] = r;
    else if (can_send)
      pl->sonly[ns++] = r;
    else if (can_recv && r == sink)
      sink_recv = 1;
    else if (can_recv)
      pl->ronly[nr++] = r;
  }
  if (sink_recv) { /* the sink goes first among the receive-only ranks */
    for (int k = nr; k > 0; k--)
      pl->ronly[k] = pl->ronly[k - 1];
    pl->ronly[0] = sink;
    nr++;
  }
  hi = nb;
#define PAIR(snd, rcv)                                                         \
  do {                                                                         \
    int a_ = (snd), b_ = (rcv);                                                \
    pl->send_at[a_] = stamp;                                                   \
    pl->sent_seg[a_] = s;                                                      \
    pl->recv_at[b_] = stamp;                                                   \
    plan->t[plan->n++] = (pat_clairvoyant_transfer){                           \
        .sender = a_, .receiver = b_, .seg = s, .round = round};               \
    moved++;                                                                   \
  } while (0)
  while (is < ns && ir < nr)
    PAIR(pl->sonly[is++], pl->ronly[ir++]);
  while (is < ns && lo < hi)
    PAIR(pl->sonly[is++], pl->both[--hi]);
  while (ir < nr && lo < hi)
    PAIR(pl->both[--hi], pl->ronly[ir++]);
  while (hi - lo >= 2) { /* the higher of two free ranks sends */
    int a = pl->both[lo++], b = pl->both[lo++];
    PAIR(b, a);
  }
#undef PAIR
  /* the senders leave the segment's list, which stays in rank order */
  for (int k = 0; moved > 0 && k < pl->nhold[s]; k++)
    if (pl->send_at[h[k]] != stamp || pl->sent_seg[h[k]] != s)
      h[m++] = h[k];
  if (moved > 0)
    pl->nhold[s] = m;
  return moved;
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
    int moved = 0, sink, free_send, free_recv, k, m = 0;
    while (pl.npresent < P && p->arrivals[pl.order[pl.npresent]] <= t)
      pl.present[pl.order[pl.npresent++]] = 1;
    sink = pl.present[p->root] ? p->root : pl.order[0];
    free_send = free_recv = pl.npresent;
    for (k = 0; k < pl.nopen && free_send > 0 && free_recv > 0; k++) {
      int n = pair_segment(&pl, pl.open[k], round, sink, plan);
      moved += n;
      free_send -= n;
      free_recv -= n;
    }
    if (moved == 0) {
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
