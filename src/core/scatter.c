/*
 * Reduce-scatter + gather schedules, shared by butterfly and radix-k (one
 * plan each; src/butterfly, src/radixk).
 *
 * Plan.  P ranks fold into q (P/2 <= q <= P): the first 2 (P - q) ranks
 * pair up, (2i, 2i + 1), and one of each pair sends its whole vector to
 * the other (the survivor: the root if it is in the pair, else 2i), which
 * combines; the q remaining ranks, renumbered w = 0..q-1 in rank order,
 * then run the radix rounds.  Round i has radix k_i (k_0 k_1 ... = q): w's
 * digit d_i = (w / K_i) mod k_i with K_i = k_0 ... k_{i-1}; the k_i ranks
 * that differ only in that digit hold the same range, cut it in k_i pieces
 * (piece d = [lo + (hi - lo) d / k_i, lo + (hi - lo) (d + 1) / k_i)), and
 * each sends piece d to the member of digit d and combines the pieces it
 * receives into its own, which it keeps.  After the rounds, w holds the
 * reduced block that its digits name.  The gather runs the rounds
 * backwards: in round i the members whose digit differs from the root's
 * send the range they hold to the member with the root's digit, and are
 * done; the root never moves, so no extra hop.
 *
 * Cost (q = P, byte model of pat_schedule_simulate, balanced): round i
 * sends and receives k_i - 1 pieces of s_i = m / (k_0 ... k_i) bytes at
 * once, which share the ports and arrive together, then combines them;
 * the gather moves them back: sum_i [2 alpha + 2 (k_i - 1) s_i beta +
 * (k_i - 1) s_i gamma] (src/butterfly, src/radixk state their cases).  A
 * fold adds about alpha + m (beta + gamma).
 *
 * Non-commutative ops.  Members of a group cover consecutive rank ranges
 * in digit order (the fold keeps rank order too), so a rank combines its
 * group's pieces in digit order: lower digits as "theirs (op) mine", higher
 * ones as "mine (op) theirs" -- the same messages, in rank order.
 *
 * Buffers.  A combine "mine (op) theirs" lands where theirs arrived, so
 * the partial moves between a small pool of slots (least recently used
 * first; the root's pool includes its receive buffer); "theirs (op) mine"
 * needs a writable partial, so the send buffer is copied first when the
 * partial is still there (one piece, non-commutative ops only).  The root
 * ends with its block in the receive buffer and gathers into it.
 */
#include "pat_internal.h"

enum { POOL_MAX = 5 };

typedef struct scat {
  pat_schedule *sched;
  const pat_sched_params *p;
  int rank, err;
  int acc; /* slot of this rank's partial over its current range */
  int pool[POOL_MAX], npool;
  unsigned long used[PAT_SLOT_MAX], clock; /* least recently used first */
} scat;

static void op(scat *e, pat_sched_kind kind, int round, int peer, int src,
               int dst, int lo, int hi) {
  pat_schedule_put(e->sched, e->rank, &e->err, kind, round, peer, src, dst, lo,
                   hi);
  if (src >= 0)
    e->used[src] = ++e->clock;
  if (dst >= 0)
    e->used[dst] = ++e->clock;
}

static int in_place_root(const scat *e) {
  return e->p->in_place && e->rank == e->p->root;
}

/* The receive buffer aliases the send buffer at an in-place root. */
static int same_buffer(const scat *e, int a, int b) {
  if (in_place_root(e)) {
    a = a == PAT_SLOT_SEND ? PAT_SLOT_RECV : a;
    b = b == PAT_SLOT_SEND ? PAT_SLOT_RECV : b;
  }
  return a == b;
}

static int writable(const scat *e, int slot) {
  return slot != PAT_SLOT_SEND || in_place_root(e);
}

/* The least recently used pool slot that is neither a nor b. */
static int pick(scat *e, int a, int b) {
  int best = -1;
  for (int i = 0; i < e->npool; i++) {
    int s = e->pool[i];
    if (!same_buffer(e, s, a) && !same_buffer(e, s, b) &&
        (best < 0 || e->used[s] < e->used[best]))
      best = s;
  }
  if (best < 0 && e->err == PAT_SUCCESS)
    e->err = PAT_ERR_INVALID_ARG;
  return best < 0 ? PAT_SLOT_TMP0 : best;
}

/* Receives peer's partial of [lo, hi) and combines it with ours: "ours
 * (op) theirs" when after (their ranks follow ours), else "theirs (op)
 * ours".  Commutative ops take whichever needs no copy. */
static void absorb(scat *e, int round, int peer, int lo, int hi, int after) {
  int t = pick(e, e->acc, -1);
  if (e->p->commutative)
    after = !writable(e, e->acc);
  op(e, PAT_SCHED_RECV, round, peer, -1, t, lo, hi);
  if (after) {
    op(e, PAT_SCHED_COMBINE, round, -1, e->acc, t, lo, hi);
    e->acc = t;
    return;
  }
  if (!writable(e, e->acc)) {
    int w = pick(e, e->acc, t);
    op(e, PAT_SCHED_COPY, round, -1, e->acc, w, lo, hi);
    e->acc = w;
  }
  op(e, PAT_SCHED_COMBINE, round, -1, t, e->acc, lo, hi);
}

/* Element d of a range [lo, hi) cut in k pieces. */
static int cut(int lo, int hi, int d, int k) {
  return lo + (int)((long long)(hi - lo) * d / k);
}

/* ---- numbering after the fold ------------------------------------------ */

typedef struct fold {
  int rem, root; /* P - q pairs fold; the root survives its pair */
} fold;

/* The rank of pair i that goes on. */
static int survivor(const fold *f, int i) {
  return f->root / 2 == i && f->root < 2 * f->rem ? f->root : 2 * i;
}

/* New number of rank r, or -1 if it folds away. */
static int renumber(const fold *f, int r) {
  if (r >= 2 * f->rem)
    return r - f->rem;
  return survivor(f, r / 2) == r ? r / 2 : -1;
}

static int rank_of(const fold *f, int w) {
  return w < f->rem ? survivor(f, w) : w + f->rem;
}

/* ---- one rank's program ---------------------------------------------- */

/* The reduce-scatter rounds; writes each round's group range. */
static void scatter(scat *e, const fold *f, const pat_scatter_plan *plan, int w,
                    int base, int *glo, int *ghi) {
  int lo = 0, hi = e->p->count, K = 1;
  for (int i = 0; i < plan->nradix; i++) {
    int k = plan->radix[i], d0 = (w / K) % k, round = base + i;
    glo[i] = lo;
    ghi[i] = hi;
    /* staggered: at step j every member sends to the digit j above */
    for (int j = 1; j < k; j++) {
      int d = (d0 + j) % k, a = cut(lo, hi, d, k), b = cut(lo, hi, d + 1, k);
      if (b > a)
        op(e, PAT_SCHED_SEND, round, rank_of(f, w + (d - d0) * K), e->acc, -1,
           a, b);
    }
    {
      int a = cut(lo, hi, d0, k), b = cut(lo, hi, d0 + 1, k);
      for (int j = 1; j < k && b > a; j++) {
        /* commutative: from the digit j below (staggered); otherwise
         * lower digits downwards, then higher ones upwards */
        int d = e->p->commutative ? (d0 - j + k) % k : j <= d0 ? d0 - j : j;
        absorb(e, round, rank_of(f, w + (d - d0) * K), a, b, d > d0);
      }
      lo = a;
      hi = b;
    }
    K *= k;
  }
  glo[plan->nradix] = lo;
  ghi[plan->nradix] = hi;
}

/* The gather to the root, rounds backwards; g is the slot gathered into. */
static void gather(scat *e, const fold *f, const pat_scatter_plan *plan, int w,
                   int base, const int *glo, const int *ghi, int g) {
  int n = plan->nradix, nroot = renumber(f, e->p->root), K = 1;
  for (int i = 0; i < n; i++)
    K *= plan->radix[i];
  for (int i = n - 1; i >= 0; i--) {
    int k = plan->radix[i], lo = glo[i], hi = ghi[i];
    int round = base + n + (n - 1 - i);
    K /= k;
    int d0 = (w / K) % k, dr = (nroot / K) % k;
    if (d0 != dr) {
      int a = cut(lo, hi, d0, k), b = cut(lo, hi, d0 + 1, k);
      if (b > a)
        op(e, PAT_SCHED_SEND, round, rank_of(f, w + (dr - d0) * K), g, -1, a,
           b);
      break;
    }
    for (int j = 1; j < k; j++) {
      int d = (d0 + j) % k, a = cut(lo, hi, d, k), b = cut(lo, hi, d + 1, k);
      if (b > a)
        op(e, PAT_SCHED_RECV, round, rank_of(f, w + (d - d0) * K), -1, g, a, b);
    }
  }
}

static int emit_rank(pat_schedule *sched, const pat_sched_params *p, int rank,
                     const pat_scatter_plan *plan) {
  fold f = {.rem = p->nranks - plan->q, .root = p->root};
  scat e = {.sched = sched, .p = p, .rank = rank, .acc = PAT_SLOT_SEND};
  int glo[PAT_SCATTER_MAX_ROUNDS + 1], ghi[PAT_SCATTER_MAX_ROUNDS + 1];
  int w = renumber(&f, rank), base = f.rem > 0, kmax = 2, g;
  int last = base + plan->nradix - 1 < 0 ? 0 : base + plan->nradix - 1;
  for (int i = 0; i < plan->nradix; i++)
    kmax = plan->radix[i] > kmax ? plan->radix[i] : kmax;
  /* a pool of 2 slots lets one receive of a round fly while the previous
   * one is combined; radix k keeps up to min(k - 1, 3) + 1 */
  e.npool = 1 + (kmax - 1 < POOL_MAX - 1 ? kmax - 1 : POOL_MAX - 1);
  for (int i = 0; i < e.npool; i++)
    e.pool[i] = rank == p->root
                    ? (i == 0 ? PAT_SLOT_RECV : PAT_SLOT_TMP0 + i - 1)
                    : PAT_SLOT_TMP0 + i;
  if (p->count == 0)
    return pat_schedule_mark_built(sched, rank);
  if (rank < 2 * f.rem) { /* the fold */
    int pair = rank / 2, other = rank ^ 1, s = survivor(&f, pair);
    if (s != rank) {
      op(&e, PAT_SCHED_SEND, 0, s, PAT_SLOT_SEND, -1, 0, p->count);
      return e.err != PAT_SUCCESS ? e.err
                                  : pat_schedule_mark_built(sched, rank);
    }
    absorb(&e, 0, other, 0, p->count, other > rank);
  }
  scatter(&e, &f, plan, w, base, glo, ghi);
  g = e.acc;
  if (rank == p->root) {
    if (!same_buffer(&e, e.acc, PAT_SLOT_RECV) &&
        ghi[plan->nradix] > glo[plan->nradix])
      op(&e, PAT_SCHED_COPY, last, -1, e.acc, PAT_SLOT_RECV, glo[plan->nradix],
         ghi[plan->nradix]);
    g = PAT_SLOT_RECV;
  } else if (!writable(&e, g)) {
    g = pick(&e, e.acc, -1);
    if (ghi[plan->nradix] > glo[plan->nradix])
      op(&e, PAT_SCHED_COPY, last, -1, e.acc, g, glo[plan->nradix],
         ghi[plan->nradix]);
  }
  gather(&e, &f, plan, w, base, glo, ghi, g);
  return e.err != PAT_SUCCESS ? e.err : pat_schedule_mark_built(sched, rank);
}

int pat_scatter_check(const pat_scatter_plan *plan, int nranks) {
  long long prod = 1;
  if (plan == NULL || plan->nradix < 0 ||
      plan->nradix > PAT_SCATTER_MAX_ROUNDS || plan->q < 1 ||
      plan->q > nranks || 2 * plan->q < nranks)
    return PAT_ERR_INVALID_ARG;
  for (int i = 0; i < plan->nradix; i++) {
    if (plan->radix[i] < 2)
      return PAT_ERR_INVALID_ARG;
    prod *= plan->radix[i];
    if (prod > plan->q)
      return PAT_ERR_INVALID_ARG;
  }
  return prod == plan->q ? PAT_SUCCESS : PAT_ERR_INVALID_ARG;
}

int pat_scatter_emit(pat_schedule *sched, const pat_sched_params *p, int rank,
                     const pat_scatter_plan *plan) {
  int err = pat_scatter_check(plan, p->nranks);
  for (int r = rank < 0 ? 0 : rank; err == PAT_SUCCESS && r < p->nranks; r++) {
    err = emit_rank(sched, p, r, plan);
    if (rank >= 0)
      break;
  }
  return err;
}
