/*
 * Dataflow dependencies of one rank's program: what the executor, the
 * simulator and the validator all need to know about which operation must
 * wait for which.
 *
 * Rule (include/reduce/pat_schedule.h).  Operation i waits until every
 * earlier operation j < i of the same program that touches an overlapping
 * element range of the same buffer has finished, unless both only read it
 * (two sends of one range run together).  A COMBINE reads src and reads and
 * writes dst; a COPY reads src and writes dst; a SEND reads src; a RECV
 * writes dst.  At an in-place root the send buffer is the receive buffer,
 * so both slot names are one buffer.  Besides, a SEND (RECV) may only be
 * posted once the previous SEND to (RECV from) the same peer is posted:
 * that keeps MPI's matching in program order with one tag.  With them go
 * the element range of each temporary the program touches, from which the
 * executor sizes its temporaries without a pass over the program per call.
 *
 * Method.  [0, count) is cut at every boundary of the program's ranges
 * (K pieces), and every (buffer, piece) remembers its last writer and the
 * readers since then; an operation's predecessors are the last writers of
 * what it reads and, for what it writes, the last writer and the readers.
 * Cost O(n log n + sum over operations of the pieces they touch), memory
 * O(slots * K + edges): independent of count.  Only direct predecessors
 * are listed, once each.  (Cuts are radix-sorted and channels linked
 * through a hash table: the validator runs this for every rank of a
 * P = 1024 ring, 3 million operations.)
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pat_internal.h"

/* Readers of a piece since its last write: a linked list in a pool. */
typedef struct reader {
  int op, next;
} reader;

typedef struct builder {
  int nops, npieces;
  const int *cut; /* npieces + 1 boundaries */
  int *lastw[PAT_SLOT_MAX];
  int *rhead[PAT_SLOT_MAX];
  reader *pool;
  int npool, cappool;
  int *edge; /* pairs (pred, op), in op order */
  int nedge, capedge;
  int *mark; /* mark[j] == i: j is already a predecessor of i */
  int err;
} builder;

void pat_sort_ints(int *v, int *tmp, int n) {
  int max = 0;
  if (n < 64) { /* the usual program: a few cut points */
    for (int i = 1; i < n; i++) {
      int x = v[i], j = i;
      for (; j > 0 && v[j - 1] > x; j--)
        v[j] = v[j - 1];
      v[j] = x;
    }
    return;
  }
  for (int i = 0; i < n; i++)
    max = v[i] > max ? v[i] : max;
  /* LSD radix, 11 bits a pass, only the passes the largest value needs */
  for (int shift = 0; shift < 32 && (max >> shift) > 0; shift += 11) {
    int count[2049] = {0};
    for (int i = 0; i < n; i++)
      count[((v[i] >> shift) & 2047) + 1]++;
    for (int b = 0; b < 2048; b++)
      count[b + 1] += count[b];
    for (int i = 0; i < n; i++)
      tmp[count[(v[i] >> shift) & 2047]++] = v[i];
    memcpy(v, tmp, (size_t)n * sizeof *v);
  }
}

static int sort_cuts(int *v, int n) {
  int *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
  if (tmp == NULL)
    return PAT_ERR_NO_MEMORY;
  pat_sort_ints(v, tmp, n);
  free(tmp);
  return PAT_SUCCESS;
}

int pat_cut_index(const int *cut, int n, int e) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (cut[mid] < e)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Index of the piece starting at element e (e is a cut). */
static int piece_at(const builder *b, int e) {
  return pat_cut_index(b->cut, b->npieces, e);
}

static int grow(void **p, int *cap, int need, size_t size) {
  if (need <= *cap)
    return PAT_SUCCESS;
  {
    int ncap = *cap ? *cap : 64;
    void *q;
    while (ncap < need)
      ncap *= 2;
    q = realloc(*p, (size_t)ncap * size);
    if (q == NULL)
      return PAT_ERR_NO_MEMORY;
    *p = q;
    *cap = ncap;
  }
  return PAT_SUCCESS;
}

static void add_pred(builder *b, int op, int pred) {
  if (pred < 0 || b->mark[pred] == op || b->err != PAT_SUCCESS)
    return;
  b->mark[pred] = op;
  b->err =
      grow((void **)&b->edge, &b->capedge, 2 * (b->nedge + 1), sizeof *b->edge);
  if (b->err == PAT_SUCCESS) {
    b->edge[2 * b->nedge] = pred;
    b->edge[2 * b->nedge + 1] = op;
    b->nedge++;
  }
}

static int ensure_slot(builder *b, int slot) {
  if (b->lastw[slot] != NULL)
    return PAT_SUCCESS;
  b->lastw[slot] = malloc((size_t)(b->npieces > 0 ? b->npieces : 1) *
                          sizeof *b->lastw[slot]);
  b->rhead[slot] = malloc((size_t)(b->npieces > 0 ? b->npieces : 1) *
                          sizeof *b->rhead[slot]);
  if (b->lastw[slot] == NULL || b->rhead[slot] == NULL)
    return PAT_ERR_NO_MEMORY;
  for (int p = 0; p < b->npieces; p++)
    b->lastw[slot][p] = b->rhead[slot][p] = -1;
  return PAT_SUCCESS;
}

static void touch(builder *b, int op, int slot, int offset, int count,
                  int writes) {
  int p0, p1;
  if (count <= 0 || b->err != PAT_SUCCESS)
    return;
  b->err = ensure_slot(b, slot);
  p0 = piece_at(b, offset);
  p1 = piece_at(b, offset + count);
  for (int p = p0; p < p1 && b->err == PAT_SUCCESS; p++) {
    add_pred(b, op, b->lastw[slot][p]);
    if (writes)
      for (int r = b->rhead[slot][p]; r >= 0; r = b->pool[r].next)
        add_pred(b, op, b->pool[r].op);
  }
  for (int p = p0; p < p1 && b->err == PAT_SUCCESS; p++) {
    if (writes) {
      b->lastw[slot][p] = op;
      b->rhead[slot][p] = -1;
    } else {
      b->err =
          grow((void **)&b->pool, &b->cappool, b->npool + 1, sizeof *b->pool);
      if (b->err == PAT_SUCCESS) {
        b->pool[b->npool] = (reader){op, b->rhead[slot][p]};
        b->rhead[slot][p] = b->npool++;
      }
    }
  }
}

/* The buffer a slot name refers to. */
static int buffer_of(int slot, int in_place_root) {
  return slot == PAT_SLOT_SEND && in_place_root ? PAT_SLOT_RECV : slot;
}

/* Links every SEND (RECV) to the previous one with the same peer: a hash
 * table from (kind, peer) to the channel's last operation, O(n). */
static int link_channels(const pat_sched_op *ops, int n, pat_deps *d) {
  int err = PAT_SUCCESS, size = 16;
  int *last;
  while (size < 2 * n)
    size *= 2;
  last = malloc((size_t)size * sizeof *last);
  if (last == NULL) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (int h = 0; h < size; h++)
    last[h] = -1;
  for (int i = 0; i < n; i++) {
    unsigned key;
    int h;
    d->chan_prev[i] = d->chan_next[i] = -1;
    if (ops[i].kind != PAT_SCHED_SEND && ops[i].kind != PAT_SCHED_RECV)
      continue;
    key = (unsigned)ops[i].peer * 2u + (ops[i].kind == PAT_SCHED_RECV);
    h = (int)((key * 2654435761u) & (unsigned)(size - 1));
    /* linear probing: stop at the channel's slot or an empty one */
    while (last[h] >= 0 && ((unsigned)ops[last[h]].peer * 2u +
                            (ops[last[h]].kind == PAT_SCHED_RECV)) != key)
      h = (h + 1) & (size - 1);
    if (last[h] >= 0) {
      d->chan_prev[i] = last[h];
      d->chan_next[last[h]] = i;
    }
    last[h] = i;
  }
out:
  free(last);
  return err;
}

/* The range of each temporary slot the program touches, so that the
 * executor sizes its temporaries without a pass over the program. */
static void tmp_ranges(const pat_sched_op *ops, int nops, pat_deps *d) {
  for (int s = 0; s < PAT_SLOT_MAX; s++) {
    d->tmp_lo[s] = INT_MAX; /* hi < lo: not used */
    d->tmp_hi[s] = 0;
  }
  d->ntmp = 0;
  for (int i = 0; i < nops; i++) {
    int slots[2] = {ops[i].src, ops[i].dst};
    for (int j = 0; j < 2; j++) {
      int s = slots[j];
      if (s >= PAT_SLOT_TMP0 && s < PAT_SLOT_MAX) {
        if (ops[i].offset < d->tmp_lo[s])
          d->tmp_lo[s] = ops[i].offset;
        if (ops[i].offset + ops[i].count > d->tmp_hi[s])
          d->tmp_hi[s] = ops[i].offset + ops[i].count;
        if (s - PAT_SLOT_TMP0 + 1 > d->ntmp)
          d->ntmp = s - PAT_SLOT_TMP0 + 1;
      }
    }
  }
}

/* Is the program a tree node's: receives, then at most one send, each
 * transfer in a round of its own (the rounds of its transfers increase)?
 * A pipeline's program, whose receives and sends alternate, is not: there
 * the dataflow posts the next receive while a send is in flight. */
static int tree_shaped(const pat_sched_op *ops, int nops) {
  int ok = 1, last = -1, sends = 0;
  for (int i = 0; i < nops && ok; i++)
    if (ops[i].kind == PAT_SCHED_SEND || ops[i].kind == PAT_SCHED_RECV) {
      sends += ops[i].kind == PAT_SCHED_SEND;
      ok = ops[i].round > last &&
           (ops[i].kind == PAT_SCHED_SEND ? sends == 1 : sends == 0);
      last = ops[i].round;
    }
  return ok;
}

int pat_deps_alloc(const pat_sched_op *ops, int nops, int in_place_root,
                   pat_deps **out) {
  builder b = {.nops = nops, .err = PAT_SUCCESS};
  pat_deps *d = calloc(1, sizeof *d);
  int *cut = NULL, ncut = 0;
  if (d == NULL || nops < 0 || nops >= (1 << 28)) {
    b.err = d == NULL ? PAT_ERR_NO_MEMORY : PAT_ERR_INVALID_ARG;
    goto out;
  }
  d->nops = nops;
  cut = malloc((size_t)(2 * nops + 1) * sizeof *cut);
  b.mark = malloc((size_t)(nops + 1) * sizeof *b.mark);
  d->pred_start = calloc((size_t)nops + 1, sizeof *d->pred_start);
  d->succ_start = calloc((size_t)nops + 1, sizeof *d->succ_start);
  d->chan_prev = malloc((size_t)(nops + 1) * sizeof *d->chan_prev);
  d->chan_next = malloc((size_t)(nops + 1) * sizeof *d->chan_next);
  if (!cut || !b.mark || !d->pred_start || !d->succ_start || !d->chan_prev ||
      !d->chan_next) {
    b.err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (int i = 0; i < nops; i++) {
    b.mark[i] = -1;
    if (ops[i].count > 0) {
      cut[ncut++] = ops[i].offset;
      cut[ncut++] = ops[i].offset + ops[i].count;
    }
  }
  b.err = sort_cuts(cut, ncut);
  if (b.err != PAT_SUCCESS)
    goto out;
  {
    int k = 0;
    for (int i = 0; i < ncut; i++)
      if (k == 0 || cut[i] != cut[k - 1])
        cut[k++] = cut[i];
    ncut = k;
  }
  b.cut = cut;
  b.npieces = ncut > 0 ? ncut - 1 : 0;
  for (int i = 0; i < nops && b.err == PAT_SUCCESS; i++) {
    const pat_sched_op *o = &ops[i];
    int src = buffer_of(o->src, in_place_root);
    int dst = buffer_of(o->dst, in_place_root);
    int reads = o->kind != PAT_SCHED_RECV, writes = o->kind != PAT_SCHED_SEND;
    if ((reads && (src < 0 || src >= PAT_SLOT_MAX)) ||
        (writes && (dst < 0 || dst >= PAT_SLOT_MAX)) || o->offset < 0 ||
        o->count < 0) {
      b.err = PAT_ERR_INVALID_ARG;
      break;
    }
    /* predecessors first from both ranges, then the updates */
    if (reads)
      touch(&b, i, src, o->offset, o->count, 0);
    if (writes)
      touch(&b, i, dst, o->offset, o->count, 1);
  }
  if (b.err != PAT_SUCCESS)
    goto out;
  /* compressed rows: predecessors of each op, successors of each op */
  d->npred = b.nedge;
  d->pred = malloc((size_t)(b.nedge > 0 ? b.nedge : 1) * sizeof *d->pred);
  d->succ = malloc((size_t)(b.nedge > 0 ? b.nedge : 1) * sizeof *d->succ);
  if (d->pred == NULL || d->succ == NULL) {
    b.err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (int e = 0; e < b.nedge; e++) {
    d->pred_start[b.edge[2 * e + 1] + 1]++;
    d->succ_start[b.edge[2 * e] + 1]++;
  }
  for (int i = 0; i < nops; i++) {
    d->pred_start[i + 1] += d->pred_start[i];
    d->succ_start[i + 1] += d->succ_start[i];
  }
  for (int i = 0; i < nops; i++)
    b.mark[i] = 0;
  for (int e = 0; e < b.nedge; e++) /* edges are in op order already */
    d->pred[d->pred_start[b.edge[2 * e + 1]] + b.mark[b.edge[2 * e + 1]]++] =
        b.edge[2 * e];
  for (int i = 0; i < nops; i++)
    b.mark[i] = 0;
  for (int e = 0; e < b.nedge; e++)
    d->succ[d->succ_start[b.edge[2 * e]] + b.mark[b.edge[2 * e]]++] =
        b.edge[2 * e + 1];
  b.err = link_channels(ops, nops, d);
  tmp_ranges(ops, nops, d);
  d->in_order = tree_shaped(ops, nops);
out:
  for (int s = 0; s < PAT_SLOT_MAX; s++) {
    free(b.lastw[s]);
    free(b.rhead[s]);
  }
  free(b.pool);
  free(b.edge);
  free(b.mark);
  free(cut);
  if (b.err != PAT_SUCCESS) {
    pat_deps_free(d);
    d = NULL;
  }
  *out = d;
  return b.err;
}

void pat_deps_free(pat_deps *d) {
  if (d == NULL)
    return;
  free(d->pred_start);
  free(d->pred);
  free(d->succ_start);
  free(d->succ);
  free(d->chan_prev);
  free(d->chan_next);
  free(d);
}
