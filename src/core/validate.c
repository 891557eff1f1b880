/*
 * The schedule validator (see pat_schedule_validate in
 * include/reduce/pat_schedule.h).
 *
 * It simulates the data: every slot element holds the ordered list of ranks
 * whose contributions it combines, messages move lists, COMBINE
 * concatenates (src ++ dst).  At the end the root's receive buffer must hold
 * every rank exactly once, in rank order for non-commutative ops.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pat_internal.h"

/* ---- validator ---------------------------------------------------------- */

typedef struct vctx {
  const pat_schedule *s;
  char *why;
  size_t whylen;
  int nslots; /* PAT_SLOT_MAX */
  int count;
  /* contents[((rank * nslots) + slot) * count + element]: list of ranks,
   * len -1 while never written */
  int *len;
  int **list;
  int *sent; /* sent[rank * count + element]: round of the first send + 1 */
} vctx;

static int fail(vctx *c, const char *fmt, ...) {
  va_list ap;
  if (c->why != NULL && c->whylen > 0) {
    va_start(ap, fmt);
    vsnprintf(c->why, c->whylen, fmt, ap);
    va_end(ap);
  }
  return PAT_ERR_INVALID_SCHEDULE;
}

/* The slot a program's slot refers to: the send buffer is the receive
 * buffer at an in-place root. */
static int real_slot(const vctx *c, int rank, int slot) {
  const pat_sched_params *p = pat_schedule_params(c->s);
  return slot == PAT_SLOT_SEND && p->in_place && rank == p->root ? PAT_SLOT_RECV
                                                                 : slot;
}

static size_t cell(const vctx *c, int rank, int slot, int elem) {
  return ((size_t)rank * (size_t)c->nslots + (size_t)slot) * (size_t)c->count +
         (size_t)elem;
}

static int slot_readable(const vctx *c, int rank, int slot) {
  return slot == PAT_SLOT_SEND ||
         (slot == PAT_SLOT_RECV && rank == pat_schedule_params(c->s)->root) ||
         (slot >= PAT_SLOT_TMP0 && slot < c->nslots);
}

static int slot_writable(const vctx *c, int rank, int slot) {
  return slot_readable(c, rank, slot) &&
         real_slot(c, rank, slot) != PAT_SLOT_SEND;
}

/* Static checks of one operation. */
static int check_op(vctx *c, int rank, int i, const pat_sched_op *op,
                    int prev_round) {
  const pat_sched_params *p = pat_schedule_params(c->s);
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
  else if (reads && !slot_readable(c, rank, op->src))
    err = fail(c, "rank %d op %d: cannot read slot %d", rank, i, op->src);
  else if (writes && !slot_writable(c, rank, op->dst))
    err = fail(c, "rank %d op %d: cannot write slot %d", rank, i, op->dst);
  else if (reads && writes &&
           real_slot(c, rank, op->src) == real_slot(c, rank, op->dst))
    err =
        fail(c, "rank %d op %d: source and destination are one slot", rank, i);
  return err;
}

int pat_schedule_check_program(const pat_schedule *sched, int rank) {
  vctx c = {0};
  int err = PAT_SUCCESS, prev = 0;
  if (!pat_schedule_has_rank(sched, rank))
    return PAT_ERR_INVALID_SCHEDULE;
  c.s = sched;
  c.nslots = PAT_SLOT_MAX;
  for (int i = 0; i < pat_schedule_nops(sched, rank) && err == PAT_SUCCESS;
       i++) {
    err = check_op(&c, rank, i, &pat_schedule_ops(sched, rank)[i], prev);
    prev = pat_schedule_ops(sched, rank)[i].round;
  }
  return err;
}

typedef struct msg {
  int round, from, to, seq; /* seq: position in the program */
  int offset, count, slot;
} msg;

static int cmp_int(int a, int b) { return (a > b) - (a < b); }

/* Order of messages on one (round, from, to) channel. */
static int msg_key_cmp(const msg *x, const msg *y) {
  return x->round != y->round ? cmp_int(x->round, y->round)
         : x->from != y->from ? cmp_int(x->from, y->from)
                              : cmp_int(x->to, y->to);
}

static int msg_cmp(const void *a, const void *b) {
  const msg *x = a, *y = b;
  int d = msg_key_cmp(x, y);
  return d != 0 ? d : cmp_int(x->seq, y->seq);
}

static int overlap(const msg *a, const msg *b) {
  return a->offset < b->offset + b->count && b->offset < a->offset + a->count;
}

/* Orders messages by the rank that posts them, then round. */
static int by_poster_round(const msg *x, int xr, const msg *y, int yr) {
  return xr != yr ? cmp_int(xr, yr) : cmp_int(x->round, y->round);
}
static int recv_poster_cmp(const void *a, const void *b) {
  const msg *x = a, *y = b;
  return by_poster_round(x, x->to, y, y->to);
}
static int send_poster_cmp(const void *a, const void *b) {
  const msg *x = a, *y = b;
  return by_poster_round(x, x->from, y, y->from);
}

/* Within one round a rank must not receive into a range it also sends
 * from or receives into (the transfers run concurrently).  recvs and sends
 * are sorted by (posting rank, round) here, so each group is compared
 * only with itself. */
static int check_races(vctx *c, msg *sends, int nsend, msg *recvs, int nrecv) {
  int err = PAT_SUCCESS, s0 = 0;
  qsort(recvs, (size_t)nrecv, sizeof *recvs, recv_poster_cmp);
  qsort(sends, (size_t)nsend, sizeof *sends, send_poster_cmp);
  for (int g = 0; g < nrecv && err == PAT_SUCCESS;) {
    int rank = recvs[g].to, round = recvs[g].round, end = g;
    while (end < nrecv && recvs[end].to == rank && recvs[end].round == round)
      end++;
    while (s0 < nsend &&
           by_poster_round(&sends[s0], sends[s0].from, &recvs[g], rank) < 0)
      s0++;
    for (int i = g; i < end && err == PAT_SUCCESS; i++) {
      const msg *r = &recvs[i];
      int rs = real_slot(c, rank, r->slot);
      for (int j = i + 1; j < end && err == PAT_SUCCESS; j++)
        if (real_slot(c, rank, recvs[j].slot) == rs && overlap(r, &recvs[j]))
          err = fail(c, "rank %d round %d: two receives into one range", rank,
                     round);
      for (int j = s0; j < nsend && sends[j].from == rank &&
                       sends[j].round == round && err == PAT_SUCCESS;
           j++)
        if (real_slot(c, rank, sends[j].slot) == rs && overlap(r, &sends[j]))
          err = fail(c, "rank %d round %d: receives into a range it sends",
                     rank, round);
    }
    g = end;
  }
  /* back to channel order for the simulation */
  qsort(recvs, (size_t)nrecv, sizeof *recvs, msg_cmp);
  qsort(sends, (size_t)nsend, sizeof *sends, msg_cmp);
  return err;
}

static int set_list(vctx *c, size_t dst, const int *src, int n) {
  int *l = realloc(c->list[dst], (size_t)(n > 0 ? n : 1) * sizeof *l);
  if (l == NULL)
    return PAT_ERR_NO_MEMORY;
  if (n > 0)
    memmove(l, src, (size_t)n * sizeof *l);
  c->list[dst] = l;
  c->len[dst] = n;
  return PAT_SUCCESS;
}

/* Moves element values: dst = src (copy), or dst = src ++ dst (combine). */
static int move(vctx *c, int from, int fslot, int to, int tslot, int offset,
                int count, int concat, int round) {
  int err = PAT_SUCCESS;
  fslot = real_slot(c, from, fslot);
  tslot = real_slot(c, to, tslot);
  for (int e = offset; e < offset + count && err == PAT_SUCCESS; e++) {
    size_t s = cell(c, from, fslot, e), d = cell(c, to, tslot, e);
    int n = c->len[s];
    if (n < 0) {
      err = fail(c,
                 "rank %d round %d reads slot %d element %d before it is "
                 "written",
                 from, round, fslot, e);
    } else if (concat && c->len[d] < 0) {
      err = fail(c,
                 "rank %d round %d combines into slot %d element %d "
                 "before it is written",
                 to, round, tslot, e);
    } else if (concat) {
      int m = c->len[d];
      int *l = malloc((size_t)(n + m > 0 ? n + m : 1) * sizeof *l);
      if (l == NULL) {
        err = PAT_ERR_NO_MEMORY;
        break;
      }
      memcpy(l, c->list[s], (size_t)n * sizeof *l);
      if (m > 0)
        memcpy(l + n, c->list[d], (size_t)m * sizeof *l);
      free(c->list[d]);
      c->list[d] = l;
      c->len[d] = n + m;
    } else {
      err = set_list(c, d, c->list[s], n);
    }
  }
  return err;
}

static int check_result(vctx *c) {
  const pat_sched_params *p = pat_schedule_params(c->s);
  int err = PAT_SUCCESS;
  char *seen = calloc((size_t)p->nranks, 1);
  if (seen == NULL)
    return PAT_ERR_NO_MEMORY;
  for (int e = 0; e < p->count && err == PAT_SUCCESS; e++) {
    size_t d = cell(c, p->root, PAT_SLOT_RECV, e);
    memset(seen, 0, (size_t)p->nranks);
    if (c->len[d] != p->nranks) {
      err = fail(c, "root's element %d combines %d contributions, not %d", e,
                 c->len[d] < 0 ? 0 : c->len[d], p->nranks);
      break;
    }
    for (int k = 0; k < p->nranks && err == PAT_SUCCESS; k++) {
      int r = c->list[d][k];
      if (r < 0 || r >= p->nranks || seen[r])
        err = fail(c, "root's element %d holds rank %d's data twice", e, r);
      else if (!p->commutative && r != k)
        err = fail(c,
                   "root's element %d combines rank %d at position %d: "
                   "not rank order",
                   e, r, k);
      else
        seen[r] = 1;
    }
  }
  free(seen);
  return err;
}

static int simulate(vctx *c, msg *sends, int nsend, msg *recvs, int nrecv) {
  const pat_schedule *s = c->s;
  const pat_sched_params *p = pat_schedule_params(s);
  int err = PAT_SUCCESS, maxround = -1, next_msg = 0;
  int *pc = calloc((size_t)p->nranks, sizeof *pc); /* next local op */
  if (pc == NULL)
    return PAT_ERR_NO_MEMORY;
  for (int r = 0; r < p->nranks; r++)
    if (pat_schedule_nrounds(s, r) - 1 > maxround)
      maxround = pat_schedule_nrounds(s, r) - 1;
  for (int round = 0; round <= maxround && err == PAT_SUCCESS; round++) {
    /* communication: messages of this round, pairs already matched */
    for (; next_msg < nsend && sends[next_msg].round == round &&
           err == PAT_SUCCESS;
         next_msg++) {
      const msg *sd = &sends[next_msg], *rv = &recvs[next_msg];
      err = move(c, sd->from, sd->slot, rv->to, rv->slot, sd->offset, sd->count,
                 0, round);
      for (int e = sd->offset; e < sd->offset + sd->count; e++) {
        int *first = &c->sent[(size_t)sd->from * (size_t)p->count + (size_t)e];
        if (*first == 0)
          *first = round + 1;
      }
    }
    /* local operations of this round, in program order */
    for (int r = 0; r < p->nranks && err == PAT_SUCCESS; r++) {
      const pat_sched_op *ops = pat_schedule_ops(s, r);
      int nops = pat_schedule_nops(s, r);
      for (; pc[r] < nops && ops[pc[r]].round == round && err == PAT_SUCCESS;
           pc[r]++) {
        const pat_sched_op *op = &ops[pc[r]];
        if (op->kind == PAT_SCHED_COMBINE || op->kind == PAT_SCHED_COPY)
          err = move(c, r, op->src, r, op->dst, op->offset, op->count,
                     op->kind == PAT_SCHED_COMBINE, round);
      }
    }
  }
  (void)nrecv;
  free(pc);
  return err;
}

static int collect_msgs(vctx *c, msg **sends, int *nsend, msg **recvs,
                        int *nrecv) {
  const pat_schedule *s = c->s;
  int err = PAT_SUCCESS, total = 0, ns = 0, nr = 0;
  for (int r = 0; r < pat_schedule_params(s)->nranks; r++)
    total += pat_schedule_nops(s, r);
  *sends = malloc((size_t)(total > 0 ? total : 1) * sizeof **sends);
  *recvs = malloc((size_t)(total > 0 ? total : 1) * sizeof **recvs);
  if (*sends == NULL || *recvs == NULL) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (int r = 0; r < pat_schedule_params(s)->nranks; r++) {
    for (int i = 0; i < pat_schedule_nops(s, r); i++) {
      const pat_sched_op *op = &pat_schedule_ops(s, r)[i];
      if (op->kind == PAT_SCHED_SEND)
        (*sends)[ns++] =
            (msg){op->round, r, op->peer, i, op->offset, op->count, op->src};
      else if (op->kind == PAT_SCHED_RECV)
        (*recvs)[nr++] =
            (msg){op->round, op->peer, r, i, op->offset, op->count, op->dst};
    }
  }
  qsort(*sends, (size_t)ns, sizeof **sends, msg_cmp);
  qsort(*recvs, (size_t)nr, sizeof **recvs, msg_cmp);
  /* Walk both sorted lists: equal (round, from, to) keys pair up in order. */
  for (int i = 0, j = 0; i < ns || j < nr;) {
    const msg *a = i < ns ? &(*sends)[i] : NULL,
              *b = j < nr ? &(*recvs)[j] : NULL;
    int d = a == NULL ? 1 : b == NULL ? -1 : msg_key_cmp(a, b);
    if (d != 0) {
      const msg *m = d < 0 ? a : b;
      err = fail(c, "round %d: %s from rank %d to rank %d has no matching %s",
                 m->round, d < 0 ? "send" : "receive", m->from, m->to,
                 d < 0 ? "receive" : "send");
      goto out;
    }
    if (a->offset != b->offset || a->count != b->count) {
      err = fail(c,
                 "round %d: rank %d sends [%d, %d) but rank %d receives "
                 "[%d, %d)",
                 a->round, a->from, a->offset, a->offset + a->count, b->to,
                 b->offset, b->offset + b->count);
      goto out;
    }
    i++;
    j++;
  }
  err = check_races(c, *sends, ns, *recvs, nr);
out:
  *nsend = ns;
  *nrecv = nr;
  return err;
}

/* A rank must not receive an element after it has sent it (checked on the
 * matched messages, which are in round order). */
static int check_tree(vctx *c, const msg *recvs, int nrecv) {
  int err = PAT_SUCCESS;
  int count = pat_schedule_params(c->s)->count;
  for (int i = 0; i < nrecv && err == PAT_SUCCESS; i++) {
    const msg *m = &recvs[i];
    for (int e = m->offset; e < m->offset + m->count && err == PAT_SUCCESS;
         e++) {
      int first = c->sent[(size_t)m->to * (size_t)count + (size_t)e];
      if (first != 0 && first - 1 <= m->round)
        err = fail(c,
                   "rank %d receives element %d in round %d after "
                   "sending it in round %d",
                   m->to, e, m->round, first - 1);
    }
  }
  return err;
}

static int validate(const pat_schedule *sched, char *why, size_t whylen,
                    int tree) {
  vctx c = {0};
  msg *sends = NULL, *recvs = NULL;
  int nsend = 0, nrecv = 0, err = PAT_SUCCESS;
  size_t ncells = 0;
  c.s = sched;
  c.why = why;
  c.whylen = whylen;
  if (why != NULL && whylen > 0)
    why[0] = '\0';
  if (sched == NULL) {
    err = fail(&c, "no schedule or bad parameters");
    goto out;
  }
  c.nslots = PAT_SLOT_MAX;
  c.count = pat_schedule_params(sched)->count;
  for (int r = 0; r < pat_schedule_params(sched)->nranks && err == PAT_SUCCESS;
       r++) {
    const pat_sched_op *ops = pat_schedule_ops(sched, r);
    int prev = 0;
    if (!pat_schedule_has_rank(sched, r))
      err = fail(&c, "rank %d has no program", r);
    for (int i = 0; i < pat_schedule_nops(sched, r) && err == PAT_SUCCESS;
         i++) {
      err = check_op(&c, r, i, &ops[i], prev);
      prev = ops[i].round;
    }
  }
  if (err != PAT_SUCCESS)
    goto out;
  err = collect_msgs(&c, &sends, &nsend, &recvs, &nrecv);
  if (err != PAT_SUCCESS)
    goto out;
  ncells = (size_t)pat_schedule_params(sched)->nranks * (size_t)c.nslots *
           (size_t)c.count;
  c.len = malloc((ncells > 0 ? ncells : 1) * sizeof *c.len);
  c.list = calloc(ncells > 0 ? ncells : 1, sizeof *c.list);
  c.sent =
      calloc((size_t)pat_schedule_params(sched)->nranks * (size_t)(c.count + 1),
             sizeof *c.sent);
  if (c.len == NULL || c.list == NULL || c.sent == NULL) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (size_t i = 0; i < ncells; i++)
    c.len[i] = -1;
  for (int r = 0; r < pat_schedule_params(sched)->nranks && err == PAT_SUCCESS;
       r++)
    for (int e = 0; e < c.count && err == PAT_SUCCESS; e++)
      err =
          set_list(&c, cell(&c, r, real_slot(&c, r, PAT_SLOT_SEND), e), &r, 1);
  if (err == PAT_SUCCESS)
    err = simulate(&c, sends, nsend, recvs, nrecv);
  if (err == PAT_SUCCESS)
    err = check_result(&c);
  if (err == PAT_SUCCESS && tree)
    err = check_tree(&c, recvs, nrecv);
out:
  if (c.list != NULL)
    for (size_t i = 0; i < ncells; i++)
      free(c.list[i]);
  free(c.list);
  free(c.len);
  free(c.sent);
  free(sends);
  free(recvs);
  return err;
}

int pat_schedule_validate(const pat_schedule *sched, char *why, size_t whylen) {
  return validate(sched, why, whylen, 0);
}

int pat_schedule_validate_tree(const pat_schedule *sched, char *why,
                               size_t whylen) {
  return validate(sched, why, whylen, 1);
}
