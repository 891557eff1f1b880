/*
 * The schedule validator (pat_schedule_validate, pat_schedule_validate_tree
 * and pat_schedule_check_program in include/reduce/pat_schedule.h).
 *
 * Idea.  Four passes, each stopping at the first error:
 *  1. static checks of every operation (kind, rounds non-decreasing, range
 *     inside [0, count), peer, slots the rank may read or write);
 *  2. matching: the k-th SEND a->b pairs with b's k-th RECV from a, walking
 *     the per-peer chains (chan_prev/chan_next) of src/core/dataflow.c; a
 *     pair must carry the same round and the same range;
 *  3. one abstract run of the dataflow under the least permissive executor:
 *     rendezvous (a send and its receive finish together, once both are
 *     posted; local operations finish when they start), and an operation
 *     starts only once its dataflow predecessors (pat_deps_alloc) have
 *     finished, the previous operation on its channel has started and
 *     every operation of an earlier round of its program has finished.
 *     Ready operations go through one worklist (a stack), each once.  The run
 *     moves data: [0, count) is cut at every operation boundary of the
 *     whole schedule (K pieces) and every (rank, buffer, piece) holds a
 *     value, an immutable ordered list of rank runs ([3, 8) = ranks 3..7)
 *     in an arena, shared by copies and messages.  COMBINE makes src ++ dst
 *     (sorted and merged for commutative ops, so a rank held twice shows as
 *     overlapping runs in a linear merge).  A message moves the sender's
 *     values when it completes, which is what the send read when posted:
 *     the dataflow keeps writers of that range waiting until then.  Reading
 *     an unwritten piece, combining into one, holding a rank twice and
 *     overwriting (RECV, COPY) a piece nothing read since it was written
 *     fail here; operations that never start are a deadlock, reported at
 *     the first unfinished operation of the lowest such rank (a posted
 *     send or receive) with what its partner waits for.  Such a cycle lies
 *     within one round: rounds never decrease along a program and both
 *     ends of a message carry one round;
 *  4. the root's receive buffer holds every rank once per piece (in rank
 *     order for non-commutative ops); for trees, no rank receives a piece
 *     in or after the round in which it sent it.
 *
 * Cost.  For N operations in all, E dependency edges, K pieces and S the
 * sum over operations of the pieces they touch: time O(N log N + E + S +
 * total runs of the values made), memory O(N + E + P * buffers used * K +
 * total runs), independent of count.  Buffers are allocated per rank when
 * first written; the send buffer is not stored (it holds the rank alone).
 *
 * Limits.  Value ids are offsets into one int arena below 2^31; the unread
 * flag of a piece is the top bit of its id.  Messages name the first
 * element of the offending piece.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pat_internal.h"

#define UNREAD 0x80000000u /* written, nothing read it since */
#define VAL(x) ((x) & ~UNREAD)

/* An operation in the abstract run: unmet >= 0 conditions keep it waiting
 * (unfinished predecessors, channel predecessor not posted, round gate),
 * else it is POSTED or FINISHED. */
enum { POSTED = -1, FINISHED = -2 };
typedef struct node {
  int succ_start; /* successors: succ[succ_start .. next node's) */
  int chan_next;  /* next send to / receive from the same peer, or -1 */
  int partner;    /* the other end of a message, or -1 */
  int unmet;
} node;

typedef struct vctx {
  const pat_schedule *s;
  const pat_sched_params *p;
  char *why;
  size_t whylen;
  int err;
  int P, N;  /* ranks, operations in all */
  int *base; /* P + 1: global id of each rank's first operation */
  int *dp;   /* per rank: operations 0 .. dp-1 have finished */
  node *nd;  /* N + 1 */
  int *succ; /* successors, global ids */
  int *stack, nstack, capstack; /* ready operations: (global id, rank) */
  /* pieces */
  int *cut, K;
  unsigned **buf; /* buf[rank * PAT_SLOT_MAX + slot]: K values, or NULL */
  /* values: pool[v] = number of runs, then lo, hi pairs; v = 0: none */
  int *pool;
  size_t npool, cappool;
  unsigned *single; /* per rank: the value holding the rank alone */
  int *scratch;
  int capscratch;
} vctx;

static int fail(vctx *c, const char *fmt, ...) {
  va_list ap;
  if (c->err == PAT_SUCCESS && c->why != NULL && c->whylen > 0) {
    va_start(ap, fmt);
    vsnprintf(c->why, c->whylen, fmt, ap);
    va_end(ap);
  }
  if (c->err == PAT_SUCCESS)
    c->err = PAT_ERR_INVALID_SCHEDULE;
  return PAT_ERR_INVALID_SCHEDULE;
}

static void no_memory(vctx *c) {
  if (c->err == PAT_SUCCESS)
    c->err = PAT_ERR_NO_MEMORY;
}

/* ---- static checks ------------------------------------------------------- */

/* The buffer a program's slot refers to: the send buffer is the receive
 * buffer at an in-place root. */
static int real_slot(const pat_sched_params *p, int rank, int slot) {
  return slot == PAT_SLOT_SEND && p->in_place && rank == p->root ? PAT_SLOT_RECV
                                                                 : slot;
}

static int slot_readable(const pat_sched_params *p, int rank, int slot) {
  return slot == PAT_SLOT_SEND || (slot == PAT_SLOT_RECV && rank == p->root) ||
         (slot >= PAT_SLOT_TMP0 && slot < PAT_SLOT_MAX);
}

static int slot_writable(const pat_sched_params *p, int rank, int slot) {
  return slot_readable(p, rank, slot) &&
         real_slot(p, rank, slot) != PAT_SLOT_SEND;
}

/* Static checks of one operation. */
static int check_op(vctx *c, int rank, int i, const pat_sched_op *op,
                    int prev_round) {
  const pat_sched_params *p = c->p;
  int err = PAT_SUCCESS;
  int reads = op->kind != PAT_SCHED_RECV;
  int writes = op->kind != PAT_SCHED_SEND;
  if ((unsigned)op->kind > PAT_SCHED_COPY)
    err = fail(c, "rank %d op %d: unknown kind %d", rank, i, (int)op->kind);
  else if (op->round < prev_round || op->round < 0)
    err = fail(c, "rank %d op %d: round %d after round %d", rank, i, op->round,
               prev_round);
  else if (op->offset < 0 || op->count < 0 || op->offset > p->count - op->count)
    err = fail(c, "rank %d op %d: elements [%d, %d) outside [0, %d)", rank, i,
               op->offset, op->offset + op->count, p->count);
  else if ((op->kind == PAT_SCHED_SEND || op->kind == PAT_SCHED_RECV) &&
           (op->peer < 0 || op->peer >= p->nranks || op->peer == rank))
    err = fail(c, "rank %d op %d: bad peer %d", rank, i, op->peer);
  else if (reads && !slot_readable(p, rank, op->src))
    err = fail(c, "rank %d op %d: cannot read slot %d", rank, i, op->src);
  else if (writes && !slot_writable(p, rank, op->dst))
    err = fail(c, "rank %d op %d: cannot write slot %d", rank, i, op->dst);
  else if (reads && writes &&
           real_slot(p, rank, op->src) == real_slot(p, rank, op->dst))
    err =
        fail(c, "rank %d op %d: source and destination are one slot", rank, i);
  return err;
}

static int check_program(vctx *c, int rank) {
  const pat_sched_op *ops = pat_schedule_ops(c->s, rank);
  int err = PAT_SUCCESS, prev = 0;
  for (int i = 0; i < pat_schedule_nops(c->s, rank) && err == PAT_SUCCESS;
       i++) {
    err = check_op(c, rank, i, &ops[i], prev);
    prev = ops[i].round;
  }
  return err;
}

int pat_schedule_check_program(const pat_schedule *sched, int rank) {
  vctx c = {0};
  int err = PAT_ERR_INVALID_SCHEDULE;
  if (!pat_schedule_has_rank(sched, rank))
    goto out;
  c.s = sched;
  c.p = pat_schedule_params(sched);
  err = check_program(&c, rank);
out:
  return err;
}

/* ---- operations by global id --------------------------------------------- */

static int rank_of(const vctx *c, int g) {
  int lo = 0, hi = c->P - 1;
  while (lo < hi) { /* last rank whose base <= g */
    int mid = (lo + hi + 1) / 2;
    if (c->base[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

static const pat_sched_op *op_at(const vctx *c, int g, int *rank, int *i) {
  int r = rank_of(c, g);
  *rank = r;
  *i = g - c->base[r];
  return &pat_schedule_ops(c->s, r)[*i];
}

/* "round 1 recv from 3" */
static const char *describe(const pat_sched_op *op, char *buf, size_t len) {
  static const char *const names[] = {"send to", "recv from", "combine",
                                      "copy"};
  if (op->kind == PAT_SCHED_SEND || op->kind == PAT_SCHED_RECV)
    snprintf(buf, len, "round %d %s %d", op->round, names[op->kind], op->peer);
  else
    snprintf(buf, len, "round %d %s", op->round, names[op->kind]);
  return buf;
}

/* ---- pieces and values --------------------------------------------------- */

/* Index of the piece starting at element e (e is a cut). */
static int piece_at(const vctx *c, int e) {
  return pat_cut_index(c->cut, c->K, e);
}

/* Sorts a[0 .. n) and drops repeats; returns the new length. */
static int sort_unique(int *a, int *tmp, int n) {
  int k = 0;
  pat_sort_ints(a, tmp, n);
  for (int i = 0; i < n; i++)
    if (k == 0 || a[i] != a[k - 1])
      a[k++] = a[i];
  return k;
}

/* The cuts: every rank's boundaries sorted and unique (small arrays),
 * then all of them. */
static int make_cuts(vctx *c) {
  int maxn = 0, n = 0, cap = 1024, *loc = NULL, *tmp = NULL, *q;
  for (int r = 0; r < c->P; r++)
    if (pat_schedule_nops(c->s, r) > maxn)
      maxn = pat_schedule_nops(c->s, r);
  c->cut = malloc((size_t)cap * sizeof *c->cut);
  loc = malloc((2 * (size_t)maxn + 2) * sizeof *loc);
  tmp = malloc((2 * (size_t)maxn + 2) * sizeof *tmp);
  if (c->cut == NULL || loc == NULL || tmp == NULL)
    goto nomem;
  if (c->p->count > 0) {
    c->cut[n++] = 0;
    c->cut[n++] = c->p->count;
  }
  for (int r = 0; r < c->P; r++) {
    int m = 0;
    for (int i = 0; i < pat_schedule_nops(c->s, r); i++) {
      const pat_sched_op *op = &pat_schedule_ops(c->s, r)[i];
      if (op->count > 0) {
        loc[m++] = op->offset;
        loc[m++] = op->offset + op->count;
      }
    }
    m = sort_unique(loc, tmp, m);
    if (n + m > cap) {
      while (n + m > cap)
        cap *= 2;
      q = realloc(c->cut, (size_t)cap * sizeof *q);
      if (q == NULL)
        goto nomem;
      c->cut = q;
    }
    memcpy(c->cut + n, loc, (size_t)m * sizeof *loc);
    n += m;
  }
  free(tmp);
  tmp = malloc(((size_t)n + 1) * sizeof *tmp);
  if (tmp == NULL)
    goto nomem;
  n = sort_unique(c->cut, tmp, n);
  c->K = n > 0 ? n - 1 : 0;
  goto out;
nomem:
  no_memory(c);
out:
  free(loc);
  free(tmp);
  return c->err;
}

/* A new value of nruns runs (copied from runs); 0 when out of memory. */
static unsigned val_new(vctx *c, const int *runs, int nruns) {
  size_t need = c->npool + 1 + 2 * (size_t)nruns;
  unsigned v = 0;
  if (need > c->cappool) {
    size_t cap = c->cappool ? 2 * c->cappool : 1024;
    int *q;
    while (cap < need)
      cap *= 2;
    q = cap < UNREAD ? realloc(c->pool, cap * sizeof *q) : NULL;
    if (q == NULL) {
      no_memory(c);
      goto out;
    }
    c->pool = q;
    c->cappool = cap;
  }
  v = (unsigned)c->npool;
  c->pool[v] = nruns;
  if (nruns > 0)
    memcpy(c->pool + v + 1, runs, 2 * (size_t)nruns * sizeof *runs);
  c->npool = need;
out:
  return v;
}

static unsigned single(vctx *c, int rank) {
  if (c->single[rank] == 0) {
    int run[2] = {rank, rank + 1};
    c->single[rank] = val_new(c, run, 1);
  }
  return c->single[rank];
}

static int *scratch(vctx *c, int n) {
  int *q = NULL;
  if (n > c->capscratch) {
    int cap = c->capscratch ? c->capscratch : 64;
    while (cap < n)
      cap *= 2;
    q = realloc(c->scratch, (size_t)cap * sizeof *q);
    if (q == NULL) {
      no_memory(c);
      return NULL;
    }
    c->scratch = q;
    c->capscratch = cap;
  }
  return c->scratch;
}

/* Appends run [lo, hi) to out (n runs so far), merging with the last. */
static int push_run(int *out, int n, int lo, int hi) {
  if (n > 0 && out[2 * n - 1] == lo) {
    out[2 * n - 1] = hi;
    return n;
  }
  out[2 * n] = lo;
  out[2 * n + 1] = hi;
  return n + 1;
}

/* The value a ++ b; writes a rank held twice to *dup (else -1). */
static unsigned val_concat(vctx *c, unsigned a, unsigned b, int *dup) {
  int na = c->pool[a], nb = c->pool[b], n = 0;
  int *out = scratch(c, 4 * (na + nb) + 2);
  unsigned v = 0;
  *dup = -1;
  if (out == NULL)
    goto out;
  {
    const int *ra = c->pool + a + 1, *rb = c->pool + b + 1;
    if (c->p->commutative) { /* sorted merge: overlap is a duplicate */
      for (int i = 0, j = 0; i < na || j < nb;) {
        const int *run = j >= nb || (i < na && ra[2 * i] < rb[2 * j])
                             ? &ra[2 * i++]
                             : &rb[2 * j++];
        if (n > 0 && run[0] < out[2 * n - 1]) {
          *dup = run[0];
          goto out;
        }
        n = push_run(out, n, run[0], run[1]);
      }
    } else { /* order kept; overlap found on a sorted copy */
      int *srt = out + 2 * (na + nb) + 2, m = 0;
      for (int i = 0; i < na; i++)
        n = push_run(out, n, ra[2 * i], ra[2 * i + 1]);
      for (int j = 0; j < nb; j++)
        n = push_run(out, n, rb[2 * j], rb[2 * j + 1]);
      memcpy(srt, out, 2 * (size_t)n * sizeof *srt);
      for (int i = 1; i < n; i++) /* insertion sort: values are short */
        for (int j = i; j > 0 && srt[2 * j - 2] > srt[2 * j]; j--) {
          int lo = srt[2 * j], hi = srt[2 * j + 1];
          srt[2 * j] = srt[2 * j - 2];
          srt[2 * j + 1] = srt[2 * j - 1];
          srt[2 * j - 2] = lo;
          srt[2 * j - 1] = hi;
        }
      for (m = 1; m < n; m++)
        if (srt[2 * m] < srt[2 * m - 1]) {
          *dup = srt[2 * m];
          goto out;
        }
    }
    v = val_new(c, c->scratch, n); /* out may have moved: scratch */
  }
out:
  return v;
}

/* The pieces of rank's buffer (allocated on first use), or NULL. */
static unsigned *buffer(vctx *c, int rank, int slot, int create) {
  unsigned **b = &c->buf[(size_t)rank * PAT_SLOT_MAX + (size_t)slot];
  if (*b == NULL && create) {
    *b = calloc(c->K > 0 ? (size_t)c->K : 1, sizeof **b);
    if (*b == NULL)
      no_memory(c);
  }
  return *b;
}

/* Checks that op (rank's i-th) can read [offset, offset + count) of slot. */
static int check_written(vctx *c, int rank, int i, const pat_sched_op *op,
                         int slot, const char *what) {
  int k0 = piece_at(c, op->offset), k1 = piece_at(c, op->offset + op->count);
  const unsigned *b = slot == PAT_SLOT_SEND ? NULL : buffer(c, rank, slot, 0);
  for (int k = k0; k < k1 && c->err == PAT_SUCCESS; k++)
    if (slot != PAT_SLOT_SEND && (b == NULL || VAL(b[k]) == 0))
      fail(c,
           "rank %d op %d (round %d) %s slot %d element %d before it is "
           "written",
           rank, i, op->round, what, slot, c->cut[k]);
  return c->err;
}

/* dst pieces of op = src pieces (of rank from's slot fslot), or src ++ dst
 * for COMBINE; rank, i, op name the writing operation.  A message's source
 * was checked when its send was posted. */
static int move(vctx *c, int from, int fslot, int rank, int i,
                const pat_sched_op *op, int tslot) {
  int k0 = piece_at(c, op->offset), k1 = piece_at(c, op->offset + op->count);
  int concat = op->kind == PAT_SCHED_COMBINE;
  unsigned *d = buffer(c, rank, tslot, 1), *f = NULL, pa = 0, pb = 0, pr = 0;
  if (fslot != PAT_SLOT_SEND)
    f = buffer(c, from, fslot, 0);
  for (int k = k0; d != NULL && k < k1 && c->err == PAT_SUCCESS; k++) {
    unsigned a = f != NULL                ? VAL(f[k])
                 : fslot == PAT_SLOT_SEND ? single(c, from)
                                          : 0;
    unsigned res = a;
    if (a == 0) {
      fail(c,
           "rank %d op %d (round %d) reads slot %d element %d before it "
           "is written",
           rank, i, op->round, fslot, c->cut[k]);
      break;
    }
    if (f != NULL)
      f[k] = a; /* read: clears the unread flag */
    if (concat) {
      unsigned b = VAL(d[k]);
      int dup = -1;
      if (b == 0)
        fail(c,
             "rank %d op %d (round %d) combines into slot %d element %d "
             "before it is written",
             rank, i, op->round, tslot, c->cut[k]);
      else if (a == pa && b == pb) /* the same operands: the same result */
        res = pr;
      else {
        res = val_concat(c, a, b, &dup);
        if (dup >= 0)
          fail(c,
               "rank %d op %d (round %d): slot %d element %d holds "
               "rank %d's data twice",
               rank, i, op->round, tslot, c->cut[k], dup);
        pa = a;
        pb = b;
        pr = res;
      }
    } else if (d[k] & UNREAD) {
      fail(c,
           "rank %d op %d overwrites slot %d [%d, %d) before anything "
           "read it",
           rank, i, tslot, c->cut[k], c->cut[k + 1]);
    }
    if (c->err == PAT_SUCCESS)
      d[k] = res | UNREAD;
  }
  return c->err;
}

/* ---- setup: dependencies, matching --------------------------------------- */

typedef struct head {
  int g, rank, peer;
} head;

/* Copies every rank's dependencies into the global arrays; collects the
 * first send to and first receive from each peer. */
static int load_deps(vctx *c, head **sheads, int *nsh, head **rheads,
                     int *nrh) {
  const pat_sched_params *p = c->p;
  int nedge = 0, ns = 0, nr = 0, capedge = 0;
  pat_deps *d = NULL;
  *sheads = malloc((size_t)(c->N > 0 ? c->N : 1) * sizeof **sheads);
  *rheads = malloc((size_t)(c->N > 0 ? c->N : 1) * sizeof **rheads);
  if (*sheads == NULL || *rheads == NULL) {
    no_memory(c);
    goto out;
  }
  for (int r = 0; r < c->P && c->err == PAT_SUCCESS; r++) {
    const pat_sched_op *ops = pat_schedule_ops(c->s, r);
    int n = pat_schedule_nops(c->s, r), b = c->base[r];
    int err = pat_deps_alloc(ops, n, p->in_place && r == p->root, &d);
    if (err != PAT_SUCCESS) {
      c->err = err;
      break;
    }
    if (nedge + d->npred > capedge) {
      int cap = capedge ? capedge : 1024;
      int *q;
      while (cap < nedge + d->npred)
        cap *= 2;
      q = realloc(c->succ, (size_t)cap * sizeof *q);
      if (q == NULL) {
        no_memory(c);
        break;
      }
      c->succ = q;
      capedge = cap;
    }
    for (int i = 0; i < n; i++) {
      node *o = &c->nd[b + i];
      o->succ_start = nedge;
      for (int e = d->succ_start[i]; e < d->succ_start[i + 1]; e++)
        c->succ[nedge++] = b + d->succ[e];
      o->chan_next = d->chan_next[i] < 0 ? -1 : b + d->chan_next[i];
      o->partner = -1;
      o->unmet = d->pred_start[i + 1] - d->pred_start[i] +
                 (d->chan_prev[i] >= 0) +
                 (ops[i].round != ops[0].round); /* round gate */
      if (d->chan_prev[i] < 0 && ops[i].kind == PAT_SCHED_SEND)
        (*sheads)[ns++] = (head){b + i, r, ops[i].peer};
      else if (d->chan_prev[i] < 0 && ops[i].kind == PAT_SCHED_RECV)
        (*rheads)[nr++] = (head){b + i, r, ops[i].peer};
    }
    pat_deps_free(d);
    d = NULL;
  }
  c->nd[c->N].succ_start = nedge;
out:
  *nsh = ns;
  *nrh = nr;
  return c->err;
}

/* Pairs the k-th send a->b with b's k-th receive from a. */
static int match(vctx *c, head *sheads, int ns, const head *rheads, int nr) {
  int *start = calloc((size_t)c->P + 1, sizeof *start);
  int *slot = malloc((size_t)c->P * sizeof *slot);
  head *byto = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *byto);
  if (start == NULL || slot == NULL || byto == NULL) {
    no_memory(c);
    goto out;
  }
  /* send heads by receiver (stable: senders in rank order) */
  for (int i = 0; i < ns; i++)
    start[sheads[i].peer + 1]++;
  for (int r = 0; r < c->P; r++)
    start[r + 1] += start[r];
  for (int i = 0; i < ns; i++)
    byto[start[sheads[i].peer]++] = sheads[i];
  for (int r = c->P; r > 0; r--)
    start[r] = start[r - 1];
  start[0] = 0;
  for (int r = 0; r < c->P; r++)
    slot[r] = -1;
  for (int b = 0, j = 0; b < c->P && c->err == PAT_SUCCESS; b++) {
    int j0 = j;
    for (; j < nr && rheads[j].rank == b; j++)
      slot[rheads[j].peer] = rheads[j].g;
    for (int h = start[b]; h < start[b + 1] && c->err == PAT_SUCCESS; h++) {
      int s = byto[h].g, t = slot[byto[h].rank], sr, si, tr, ti;
      slot[byto[h].rank] = -1;
      for (; s >= 0 && t >= 0 && c->err == PAT_SUCCESS;
           s = c->nd[s].chan_next, t = c->nd[t].chan_next) {
        const pat_sched_op *so = op_at(c, s, &sr, &si);
        const pat_sched_op *to = op_at(c, t, &tr, &ti);
        if (so->round != to->round)
          fail(c,
               "rank %d op %d sends to rank %d in round %d but rank %d op %d "
               "receives it in round %d",
               sr, si, tr, so->round, tr, ti, to->round);
        else if (so->offset != to->offset || so->count != to->count)
          fail(c,
               "round %d: rank %d sends [%d, %d) but rank %d receives "
               "[%d, %d)",
               so->round, sr, so->offset, so->offset + so->count, tr,
               to->offset, to->offset + to->count);
        c->nd[s].partner = t;
        c->nd[t].partner = s;
      }
      if (c->err == PAT_SUCCESS && (s >= 0 || t >= 0)) {
        int r, i;
        const pat_sched_op *o = op_at(c, s >= 0 ? s : t, &r, &i);
        fail(c, "round %d: %s from rank %d to rank %d has no matching %s",
             o->round, s >= 0 ? "send" : "receive", s >= 0 ? r : o->peer,
             s >= 0 ? o->peer : r, s >= 0 ? "receive" : "send");
      }
    }
    for (int k = j0; k < j && c->err == PAT_SUCCESS; k++)
      if (slot[rheads[k].peer] >= 0) {
        int r, i;
        const pat_sched_op *o = op_at(c, rheads[k].g, &r, &i);
        fail(c,
             "round %d: receive from rank %d to rank %d has no matching "
             "send",
             o->round, o->peer, r);
      }
    for (int k = j0; k < j; k++)
      slot[rheads[k].peer] = -1;
  }
out:
  free(start);
  free(slot);
  free(byto);
  return c->err;
}

/* ---- the abstract run ---------------------------------------------------- */

static void push_ready(vctx *c, int g, int r) {
  if (c->nstack + 2 > c->capstack) {
    int cap = c->capstack ? 2 * c->capstack : 1024;
    int *q = realloc(c->stack, (size_t)cap * sizeof *q);
    if (q == NULL) {
      no_memory(c);
      return;
    }
    c->stack = q;
    c->capstack = cap;
  }
  c->stack[c->nstack++] = g;
  c->stack[c->nstack++] = r;
}

/* One condition of rank r's operation g is met. */
static void satisfy(vctx *c, int g, int r) {
  if (--c->nd[g].unmet == 0)
    push_ready(c, g, r);
}

/* Operation i of rank r finishes. */
static void finish(vctx *c, int r, int i) {
  int n = pat_schedule_nops(c->s, r), old = c->dp[r], b = c->base[r];
  const pat_sched_op *ops = pat_schedule_ops(c->s, r);
  c->nd[b + i].unmet = FINISHED;
  for (int e = c->nd[b + i].succ_start; e < c->nd[b + i + 1].succ_start; e++)
    satisfy(c, c->succ[e], r);
  while (c->dp[r] < n && c->nd[b + c->dp[r]].unmet == FINISHED)
    c->dp[r]++;
  if (c->dp[r] != old && c->dp[r] < n &&
      ops[c->dp[r]].round != ops[c->dp[r] - 1].round) /* open the round */
    for (int j = c->dp[r]; j < n && ops[j].round == ops[c->dp[r]].round; j++)
      satisfy(c, b + j, r);
}

/* Both ends of a message are posted: move the data, finish both. */
static void transfer(vctx *c, int s, int t) {
  int sr, si, tr, ti;
  const pat_sched_op *so = op_at(c, s, &sr, &si);
  const pat_sched_op *to = op_at(c, t, &tr, &ti);
  if (move(c, sr, real_slot(c->p, sr, so->src), tr, ti, to,
           real_slot(c->p, tr, to->dst)) == PAT_SUCCESS) {
    finish(c, sr, si);
    finish(c, tr, ti);
  }
}

/* Rank r's operation g starts. */
static void start(vctx *c, int g, int r) {
  int i = g - c->base[r], partner = c->nd[g].partner;
  const pat_sched_op *op = &pat_schedule_ops(c->s, r)[i];
  c->nd[g].unmet = POSTED;
  if (c->nd[g].chan_next >= 0)
    satisfy(c, c->nd[g].chan_next, r);
  switch (op->kind) {
  case PAT_SCHED_SEND: /* the data must be there when the send is posted */
    if (check_written(c, r, i, op, real_slot(c->p, r, op->src), "reads") ==
            PAT_SUCCESS &&
        c->nd[partner].unmet == POSTED)
      transfer(c, g, partner);
    break;
  case PAT_SCHED_RECV:
    if (c->nd[partner].unmet == POSTED)
      transfer(c, partner, g);
    break;
  default:
    if (move(c, r, real_slot(c->p, r, op->src), r, i, op,
             real_slot(c->p, r, op->dst)) == PAT_SUCCESS)
      finish(c, r, i);
    break;
  }
}

/* Why the waiting operation g (rank r, index i) cannot start. */
static void why_waiting(vctx *c, int r, int i, char *buf, size_t len) {
  const pat_sched_op *ops = pat_schedule_ops(c->s, r);
  const pat_sched_params *p = c->p;
  pat_deps *d = NULL;
  char what[64];
  int b = c->base[r];
  snprintf(buf, len, "nothing it could finish");
  if (pat_deps_alloc(ops, pat_schedule_nops(c->s, r),
                     p->in_place && r == p->root, &d) != PAT_SUCCESS)
    goto out;
  for (int e = d->pred_start[i]; e < d->pred_start[i + 1]; e++)
    if (c->nd[b + d->pred[e]].unmet != FINISHED) {
      snprintf(buf, len, "op %d (%s) to finish", d->pred[e],
               describe(&ops[d->pred[e]], what, sizeof what));
      goto out;
    }
  if (d->chan_prev[i] >= 0 && c->nd[b + d->chan_prev[i]].unmet >= 0) {
    snprintf(buf, len, "op %d (%s) to be posted", d->chan_prev[i],
             describe(&ops[d->chan_prev[i]], what, sizeof what));
    goto out;
  }
  if (c->dp[r] < i)
    snprintf(buf, len, "op %d (%s) of an earlier round to finish", c->dp[r],
             describe(&ops[c->dp[r]], what, sizeof what));
out:
  pat_deps_free(d);
}

static int run(vctx *c) {
  for (int r = 0; r < c->P; r++) {
    if (c->p->in_place && r == c->p->root && c->K > 0) {
      unsigned *b = buffer(c, r, PAT_SLOT_RECV, 1);
      for (int k = 0; b != NULL && k < c->K; k++)
        b[k] = single(c, r); /* the root's own data, not a message */
    }
    for (int i = 0; i < pat_schedule_nops(c->s, r); i++)
      if (c->nd[c->base[r] + i].unmet == 0)
        push_ready(c, c->base[r] + i, r);
  }
  while (c->nstack > 0 && c->err == PAT_SUCCESS) {
    c->nstack -= 2;
    start(c, c->stack[c->nstack], c->stack[c->nstack + 1]);
  }
  for (int r = 0; r < c->P && c->err == PAT_SUCCESS; r++)
    if (c->dp[r] < pat_schedule_nops(c->s, r)) {
      /* its first unfinished operation is posted, its partner is not */
      int g = c->base[r] + c->dp[r], tr, ti;
      char a[64], b[64], reason[160];
      const pat_sched_op *op = &pat_schedule_ops(c->s, r)[c->dp[r]];
      const pat_sched_op *to =
          c->nd[g].partner >= 0 ? op_at(c, c->nd[g].partner, &tr, &ti) : NULL;
      if (to == NULL || c->nd[g].unmet != POSTED) {
        fail(c, "deadlock: rank %d op %d (%s) never starts", r, c->dp[r],
             describe(op, a, sizeof a));
        break;
      }
      why_waiting(c, tr, ti, reason, sizeof reason);
      fail(c,
           "deadlock: rank %d op %d (%s) waits for rank %d op %d (%s), "
           "which waits for %s",
           r, c->dp[r], describe(op, a, sizeof a), tr, ti,
           describe(to, b, sizeof b), reason);
    }
  return c->err;
}

/* ---- results ------------------------------------------------------------- */

static int check_result(vctx *c) {
  const unsigned *b = buffer(c, c->p->root, PAT_SLOT_RECV, 0);
  for (int k = 0; k < c->K && c->err == PAT_SUCCESS; k++) {
    unsigned v = b == NULL ? 0 : VAL(b[k]);
    int n = v == 0 ? 0 : c->pool[v], total = 0, pos = 0;
    for (int j = 0; j < n; j++)
      total += c->pool[v + 2 + 2 * j] - c->pool[v + 1 + 2 * j];
    if (total != c->P) {
      fail(c, "root's element %d combines %d contributions, not %d", c->cut[k],
           total, c->P);
      break;
    }
    for (int j = 0; j < n && c->err == PAT_SUCCESS; j++) {
      int lo = c->pool[v + 1 + 2 * j], hi = c->pool[v + 2 + 2 * j];
      if (lo != pos)
        fail(c,
             "root's element %d combines rank %d at position %d: not rank "
             "order",
             c->cut[k], lo, pos);
      pos += hi - lo;
    }
  }
  return c->err;
}

/* No rank receives a piece in or after the round in which it sent it; of
 * the offending receives, names the one of the earliest round (then the
 * lowest rank). */
static int check_tree(vctx *c) {
  int *first = malloc((c->K > 0 ? (size_t)c->K : 1) * sizeof *first);
  int bad_round = INT_MAX, bad_rank = -1, bad_elem = 0, bad_sent = 0;
  if (first == NULL) {
    no_memory(c);
    goto out;
  }
  for (int k = 0; k < c->K; k++)
    first[k] = INT_MAX;
  for (int r = 0; r < c->P; r++) {
    const pat_sched_op *ops = pat_schedule_ops(c->s, r);
    int n = pat_schedule_nops(c->s, r);
    for (int pass = 0; pass < 3; pass++)
      for (int i = 0; i < n; i++) {
        int k0 = piece_at(c, ops[i].offset);
        int k1 = piece_at(c, ops[i].offset + ops[i].count);
        if (pass == 0 && ops[i].kind == PAT_SCHED_SEND)
          for (int k = k0; k < k1; k++) /* first send of each piece */
            if (ops[i].round < first[k])
              first[k] = ops[i].round;
        if (pass == 1 && ops[i].kind == PAT_SCHED_RECV &&
            ops[i].round < bad_round)
          for (int k = k0; k < k1; k++)
            if (first[k] <= ops[i].round) {
              bad_round = ops[i].round;
              bad_rank = r;
              bad_elem = c->cut[k];
              bad_sent = first[k];
              break;
            }
        if (pass == 2 && ops[i].kind == PAT_SCHED_SEND)
          for (int k = k0; k < k1; k++) /* clean for the next rank */
            first[k] = INT_MAX;
      }
  }
  if (bad_rank >= 0)
    fail(c,
         "rank %d receives element %d in round %d after sending it in "
         "round %d",
         bad_rank, bad_elem, bad_round, bad_sent);
out:
  free(first);
  return c->err;
}

/* ---- entry points -------------------------------------------------------- */

static int validate(const pat_schedule *sched, char *why, size_t whylen,
                    int tree) {
  vctx c = {0};
  head *sheads = NULL, *rheads = NULL;
  int nsh = 0, nrh = 0;
  c.why = why;
  c.whylen = whylen;
  if (why != NULL && whylen > 0)
    why[0] = '\0';
  if (sched == NULL) {
    fail(&c, "no schedule or bad parameters");
    goto out;
  }
  c.s = sched;
  c.p = pat_schedule_params(sched);
  c.P = c.p->nranks;
  c.base = malloc(((size_t)c.P + 1) * sizeof *c.base);
  if (c.base == NULL) {
    no_memory(&c);
    goto out;
  }
  for (int r = 0; r < c.P && c.err == PAT_SUCCESS; r++) {
    if (!pat_schedule_has_rank(sched, r))
      fail(&c, "rank %d has no program", r);
    else
      check_program(&c, r);
    c.base[r] = c.N;
    if (pat_schedule_nops(sched, r) > INT_MAX / 4 - c.N)
      no_memory(&c);
    else
      c.N += pat_schedule_nops(sched, r);
  }
  c.base[c.P] = c.N;
  if (c.err != PAT_SUCCESS)
    goto out;
  {
    size_t n = (size_t)c.N + 1;
    c.nd = malloc(n * sizeof *c.nd);
    c.dp = calloc((size_t)c.P, sizeof *c.dp);
    c.single = calloc((size_t)c.P, sizeof *c.single);
    c.buf = calloc((size_t)c.P * PAT_SLOT_MAX, sizeof *c.buf);
    if (!c.nd || !c.dp || !c.single || !c.buf) {
      no_memory(&c);
      goto out;
    }
  }
  if (load_deps(&c, &sheads, &nsh, &rheads, &nrh) != PAT_SUCCESS ||
      match(&c, sheads, nsh, rheads, nrh) != PAT_SUCCESS)
    goto out;
  free(sheads);
  free(rheads);
  sheads = rheads = NULL;
  {
    unsigned v0 = 0; /* value id 0 stays "unwritten" */
    if (make_cuts(&c) != PAT_SUCCESS || (v0 = val_new(&c, NULL, 0)) != 0 ||
        c.err != PAT_SUCCESS)
      goto out;
  }
  if (run(&c) != PAT_SUCCESS || check_result(&c) != PAT_SUCCESS)
    goto out;
  if (tree)
    check_tree(&c);
out:
  if (c.buf != NULL)
    for (size_t i = 0; i < (size_t)c.P * PAT_SLOT_MAX; i++)
      free(c.buf[i]);
  free(c.buf);
  free(c.single);
  free(c.pool);
  free(c.scratch);
  free(c.cut);
  free(c.base);
  free(c.dp);
  free(c.nd);
  free(c.succ);
  free(c.stack);
  free(sheads);
  free(rheads);
  return c.err;
}

int pat_schedule_validate(const pat_schedule *sched, char *why, size_t whylen) {
  return validate(sched, why, whylen, 0);
}

int pat_schedule_validate_tree(const pat_schedule *sched, char *why,
                               size_t whylen) {
  return validate(sched, why, whylen, 1);
}
