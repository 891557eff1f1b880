/*
 * localredirect's small-message protocol: the partial travels with its
 * announcement, so a merge costs one message on the critical path
 * instead of the handshake's three or four (DONE(1), OK, MSG_LEFT, data).
 * localredirect.c runs it for messages up to PAT_REDUCE_LR_EAGER bytes.
 *
 * Idea.  The line, the positions, the intervals, the plan (the in-order
 * binomial tree rooted at position P - 1) and the conversations are
 * localredirect.c's.  What changes is who waits for whom: a ready holder
 * does not ask its target for permission, it sends its partial at once
 * (EAGER), and the target merges it or, having gone itself, redirects the
 * sender, which sends it again to the new target.  Control messages (two
 * ints) on the call's first tag, partials on the second:
 *   left -> target  DONE(0)    "I am here, not ready yet"
 *                   EAGER(lo)  "my partial [lo, me] follows on the data
 *                              tag": the conversation's last message
 *                   DONE(1)    "nothing more comes": after a REDIRECT,
 *                              when no EAGER was sent
 *   target -> left  ACK        "I am here" (the answer to DONE(0))
 *                   OK         "your partial is merged" (final)
 *                   REDIRECT(t) "I am gone: talk to t" (final; an EAGER
 *                              that crossed it is received and dropped)
 * Rules: a holder that becomes ready (plan done, or its target answered
 * and its left has been silent for the patience) sends EAGER; until the
 * answer it is "out", and an EAGER from its own left waits (merging it
 * would change the partial on its way).  OK: the holder is gone; its left
 * is redirected to its target (a waiting EAGER dropped: the left sends it
 * there).  REDIRECT(t): the holder holds again, merges a waiting EAGER,
 * and talks to t.  A holder that is not out merges its left's EAGER and
 * answers OK; a gone process answers its left's first message with
 * REDIRECT and waits for the conversation's last message.  The design is
 * model-checked with SPIN before this code (tests/spin/
 * localredirect_eager.pml: no deadlock, every contribution merged exactly
 * once and in position order, no message left over, P = 3..5); this file
 * follows it rule for rule, an EAGER counting as arrived once its data has.
 *
 * Cost.  Balanced: ceil(log2 P) (alpha + m beta + m gamma), as binomial,
 * plus the redirects of the holders whose first target had gone (off the
 * critical path while they gather).  One late process arriving at delta:
 * its neighbours skip it after the patience; it arrives, sends EAGER to
 * its first target and follows the redirects, 2 alpha per hop, to the
 * holder that is still gathering, about delta + (hops) 2 alpha + alpha +
 * m beta + m gamma against binomial's delta + (rounds above it)
 * (alpha + m beta + m gamma).
 *
 * Unexpected messages (thesis 5.4.2).  The receive for the left's and the
 * target's control messages is posted while one is owed, so those only
 * race their receive; a partial always does, by a hair (its receive is
 * posted when its EAGER arrives).  At any time a process holds at most 6
 * messages nobody waits for yet: 1 from its target, 2 from its left (a
 * control message and a partial), 3 from the one left a gone holder
 * redirected to it ahead of its turn (DONE(0), EAGER, the partial),
 * whatever P.  Per call: at most 3 per conversation with a left (one per
 * merge, plus one) and 2 per conversation with a target (one per
 * position to its right), 3 (merges + 1) + 2 (P - pos).  With tracing
 * on, a receive that finds its message already there notes
 * PAT_TRACE_UNEXPECTED; the stress test checks the per-call bound
 * (mpi_stress_localredirect_eager_*: at most 6 in one call at P = 8).
 *
 * Measured (issue 16): SMPI, CURIE-like, P = 128, balanced, 8 B: 0.072 ms
 * against the handshake's 0.057 and binomial's 0.019; 4 KiB: 0.107
 * against 0.075 and 0.037.  Neither protocol's cost is its handshake: it
 * is the redirects.  In the in-order binomial plan a holder that gathers
 * 2^k positions finds its first target (pos + 1, which gathers one and
 * leaves at once) gone, and learns where the data went only once that
 * target's own partial was merged, so each level of the tree costs about
 * 3 latencies instead of 1; here a partial sent to a holder that has just
 * gone is also sent again.  On this 2-core machine (8 ranks, Open MPI),
 * where every control message costs a context switch, it halves the
 * handshake's time at 8 B (0.043 against 0.087 ms; binomial 0.021-0.026)
 * and ties at 4 KiB.  Hence off by default (PAT_REDUCE_LR_EAGER=0).
 *
 * Root and non-commutative ops: as localredirect.c (position P - 1 ends
 * with the result; a non-commutative op's result is forwarded to the root
 * if it is another rank).  Merges are "left (op) mine".
 *
 * Tunables: PAT_REDUCE_LR_EAGER (localredirect.c) chooses the protocol;
 * PAT_REDUCE_LR_PATIENCE as for the handshake protocol.
 */
#include <math.h>
#include <stdlib.h>

#include "localredirect/lr_internal.h"

/* Control message kinds (EAGER's partial has the data tag). */
enum { E_DONE = 1, E_EAGER, E_ACK, E_OK, E_REDIRECT };

/* Requests the event loop waits on. */
enum { RQ_LEFT, RQ_LDATA, RQ_TARGET, RQ_SEND, RQ_COUNT };

typedef struct lre {
  const pat_call *call;
  int ctl_tag, data_tag;
  int pos, last, plan;
  int lo; /* this process holds [lo, pos] */
  int ready, out, gone, finished;
  /* my partial (the send buffer until something is merged into it) and
   * where the left's partial arrives (a temporary) */
  char *acc, *in;
  pat_tmpbuf tmp[2];
  /* the conversation with the left neighbour, position lo - 1 */
  int l_started;  /* its DONE(0) or EAGER arrived */
  int l_closed;   /* its last message (EAGER with data, DONE(1)) arrived */
  int l_answered; /* we sent ACK, OK or REDIRECT */
  int l_final;    /* we sent OK or REDIRECT */
  int l_wait;     /* its partial waits in `in` to be merged */
  int l_eager;    /* its EAGER came; its data is on the way */
  int in_lo;      /* the waiting partial is [in_lo, lo - 1] */
  double l_since; /* the conversation began */
  /* the conversation with the target */
  int tgt;
  int t_present; /* it sent ACK */
  int t_eager;   /* we sent it EAGER */
  double eager_at;
  MPI_Request rq[RQ_COUNT];
  int inmsg[RQ_COUNT][2]; /* control messages: RQ_LEFT, RQ_TARGET */
  pat_lr_outbox box;
  double patience, transfer;
} lre;

static int ctl(lre *s, int pos, int kind, int value) {
  return pat_lr_send_ctl(&s->box, s->call, pos, s->ctl_tag, kind, value);
}

/* Keeps a receive posted from the left while its conversation owes a
 * control message. */
static int expect_left(lre *s) {
  int rc = MPI_SUCCESS;
  if (s->lo > 0 && !s->l_closed && !s->l_eager &&
      s->rq[RQ_LEFT] == MPI_REQUEST_NULL)
    rc = pat_lr_irecv(s->call, s->inmsg[RQ_LEFT], 2, MPI_INT, s->lo - 1,
                      s->ctl_tag, &s->rq[RQ_LEFT]);
  return rc;
}

static int expect_target(lre *s) {
  return pat_lr_irecv(s->call, s->inmsg[RQ_TARGET], 2, MPI_INT, s->tgt,
                      s->ctl_tag, &s->rq[RQ_TARGET]);
}

/* A fresh conversation with the left neighbour lo - 1. */
static int start_left(lre *s) {
  s->l_started = s->l_closed = s->l_answered = s->l_final = 0;
  s->l_wait = s->l_eager = 0;
  s->l_since = PMPI_Wtime();
  return expect_left(s);
}

/* My partial to the target: EAGER, then the data.  A previous partial's
 * send (to a target that redirected us) completes first: that target
 * receives it, merged or dropped. */
static int send_eager(lre *s) {
  const pat_call *c = s->call;
  int rc = MPI_SUCCESS;
  if (s->rq[RQ_SEND] != MPI_REQUEST_NULL)
    rc = PMPI_Wait(&s->rq[RQ_SEND], MPI_STATUS_IGNORE);
  s->out = s->t_eager = 1;
  s->eager_at = PMPI_Wtime();
  if (rc == MPI_SUCCESS)
    rc = ctl(s, s->tgt, E_EAGER, s->lo);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Isend(s->acc, c->count, c->datatype, pat_lr_rank_of(c, s->tgt),
                    s->data_tag, c->priv, &s->rq[RQ_SEND]);
  return rc;
}

/* A temporary other than avoid, allocated on first use. */
static int spare(lre *s, const char *avoid, char **out) {
  int rc = MPI_SUCCESS, i = s->tmp[0].base != NULL && s->tmp[0].base == avoid;
  if (s->tmp[i].base == NULL)
    rc = pat_tmpbuf_alloc(&s->tmp[i], s->call->count, s->call->datatype);
  *out = s->tmp[i].base;
  return rc;
}

/* Merges the waiting partial: acc = in (op) acc, in a buffer of ours (the
 * receive buffer where this process ends with the result), once no send
 * of acc is in flight. */
static int merge(lre *s) {
  const pat_call *c = s->call;
  int rc = MPI_SUCCESS, left = s->lo - 1;
  double t0 = PMPI_Wtime();
  if (s->rq[RQ_SEND] != MPI_REQUEST_NULL)
    rc = PMPI_Wait(&s->rq[RQ_SEND], MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && s->acc == (const char *)c->sendbuf) {
    char *dst = NULL;
    if (s->pos == s->last && c->rank == c->root)
      dst = c->recvbuf;
    else
      rc = spare(s, s->in, &dst);
    if (rc == MPI_SUCCESS)
      rc = pat_local_copy(c->sendbuf, dst, c->count, c->datatype);
    s->acc = dst;
  }
  if (rc == MPI_SUCCESS)
    rc = pat_local_combine(s->in, s->acc, c->count, c->datatype, c->op);
  if (rc != MPI_SUCCESS)
    return rc;
  pat_trace_note(c, PAT_TRACE_COMBINE, -1, c->count, t0, PMPI_Wtime());
  s->lo = s->in_lo;
  rc = ctl(s, left, E_OK, 0);
  if (rc == MPI_SUCCESS)
    rc = start_left(s);
  return rc;
}

/* Skip the left: the target answered and the left has been silent since
 * its conversation began, for the patience (an EAGER whose data is on the
 * way is not silence). */
static int may_skip(const lre *s, double now) {
  return !s->gone && !s->out && !s->ready && s->pos != s->last &&
         s->t_present && s->lo > 0 && !s->l_started && !s->l_eager &&
         now - s->l_since >= s->patience;
}

/* Applies the rules until none fires. */
static int progress(lre *s) {
  int rc = MPI_SUCCESS, changed = 1;
  while (changed && rc == MPI_SUCCESS) {
    changed = 1;
    if (!s->gone && !s->out && s->l_wait)
      rc = merge(s);
    else if (!s->gone && !s->out && !s->ready && s->pos != s->last &&
             (s->lo == 0 || s->pos - s->lo + 1 >= s->plan ||
              may_skip(s, PMPI_Wtime())))
      s->ready = 1;
    else if (!s->gone && !s->out && s->ready && !s->t_eager)
      rc = send_eager(s);
    else if (s->gone && s->lo > 0 && s->l_started && !s->l_final) {
      rc = ctl(s, s->lo - 1, E_REDIRECT, s->tgt);
      s->l_final = s->l_answered = 1;
      s->l_wait = 0; /* dropped: the left sends it to our target */
    } else if (!s->gone && s->lo > 0 && s->l_started && !s->l_answered &&
               !s->l_closed) {
      rc = ctl(s, s->lo - 1, E_ACK, 0);
      s->l_answered = 1;
    } else {
      changed = 0;
    }
  }
  if (rc == MPI_SUCCESS)
    s->finished = s->pos == s->last
                      ? s->lo == 0
                      : s->gone && (s->lo == 0 || (s->l_final && s->l_closed));
  return rc;
}

static int on_left(lre *s, const int *msg) {
  int rc = MPI_SUCCESS;
  if (msg[0] == E_DONE && msg[1] == 0 && !s->l_started)
    s->l_started = 1;
  else if (msg[0] == E_DONE && msg[1] == 1 && s->l_started && s->l_final)
    s->l_closed = 1;
  else if (msg[0] == E_EAGER && msg[1] < s->lo) {
    /* the data follows: into `in` (free: no partial waits, and none is
     * merged while a conversation's EAGER is due) */
    s->l_eager = 1;
    s->in_lo = msg[1];
    rc = spare(s, s->acc, &s->in);
    if (rc == MPI_SUCCESS)
      rc = pat_lr_irecv(s->call, s->in, s->call->count, s->call->datatype,
                        s->lo - 1, s->data_tag, &s->rq[RQ_LDATA]);
  } else {
    rc = MPI_ERR_INTERN; /* not in the protocol */
  }
  if (rc == MPI_SUCCESS)
    rc = expect_left(s);
  return rc;
}

/* The left's partial arrived: its EAGER counts from now (dropped if it
 * crossed our REDIRECT). */
static void on_left_data(lre *s) {
  s->l_started = s->l_closed = 1;
  s->l_eager = 0;
  if (!(s->gone && s->l_final))
    s->l_wait = 1;
}

static int on_target(lre *s, const int *msg) {
  int rc = MPI_SUCCESS;
  if (msg[0] == E_ACK) {
    s->t_present = 1;
    rc = expect_target(s);
  } else if (msg[0] == E_OK && s->out) {
    double t = PMPI_Wtime() - s->eager_at;
    s->out = 0;
    s->gone = 1;
    if (!(s->transfer > 0) || t < s->transfer)
      s->transfer = t; /* the fastest answer: one transfer */
  } else if (msg[0] == E_REDIRECT && msg[1] > s->tgt && msg[1] <= s->last) {
    if (!s->t_eager)
      rc = ctl(s, s->tgt, E_DONE, 1);
    s->out = 0;
    s->tgt = msg[1];
    s->t_present = s->t_eager = 0;
    if (rc == MPI_SUCCESS && s->ready && !s->l_wait)
      rc = send_eager(s);
    else if (rc == MPI_SUCCESS && !s->ready)
      rc = ctl(s, s->tgt, E_DONE, 0);
    /* ready with a partial waiting: merged first, then sent */
    if (rc == MPI_SUCCESS)
      rc = expect_target(s);
  } else {
    rc = MPI_ERR_INTERN;
  }
  return rc;
}

/* Waits for the next event, polling while a skip may fire first. */
static int next_event(lre *s) {
  int rc, idx = MPI_UNDEFINED, got = 0;
  MPI_Status st;
  double deadline = may_skip(s, INFINITY) ? s->l_since + s->patience : INFINITY;
  if (deadline < INFINITY) {
    rc = pat_lr_poll(RQ_COUNT, s->rq, deadline, s->patience / 32, &idx, &got,
                     &st);
    if (rc != MPI_SUCCESS || !got)
      return rc; /* the deadline: progress() applies the skip */
  } else {
    rc = PMPI_Waitany(RQ_COUNT, s->rq, &idx, &st);
  }
  if (rc != MPI_SUCCESS || idx == MPI_UNDEFINED)
    return rc != MPI_SUCCESS ? rc : MPI_ERR_INTERN; /* nothing to wait for */
  switch (idx) {
  case RQ_LEFT:
    return on_left(s, s->inmsg[RQ_LEFT]);
  case RQ_LDATA:
    on_left_data(s);
    return MPI_SUCCESS;
  case RQ_TARGET:
    return on_target(s, s->inmsg[RQ_TARGET]);
  default: /* RQ_SEND: our partial left; its answer tells the rest */
    return MPI_SUCCESS;
  }
}

int pat_lr_eager_run(const pat_call *c) {
  lre s = {0};
  int rc = MPI_SUCCESS;
  s.call = c;
  for (int i = 0; i < RQ_COUNT; i++)
    s.rq[i] = MPI_REQUEST_NULL;
  s.ctl_tag = c->tag;
  s.data_tag = c->tag + 1;
  s.last = c->nranks - 1;
  s.pos = pat_lr_pos_of(c, c->rank);
  s.lo = s.pos;
  s.plan = pat_lr_plan_size(s.pos, s.last);
  s.acc = (char *)c->sendbuf;
  s.patience = pat_lr_patience(c);
  rc = start_left(&s);
  if (rc == MPI_SUCCESS && s.pos != s.last) {
    s.tgt = s.pos + 1;
    s.ready = s.lo == 0 || s.plan == 1;
    rc = s.ready ? send_eager(&s) : ctl(&s, s.tgt, E_DONE, 0);
    if (rc == MPI_SUCCESS)
      rc = expect_target(&s);
  }
  while (rc == MPI_SUCCESS) {
    rc = progress(&s);
    if (rc != MPI_SUCCESS || s.finished)
      break;
    rc = next_event(&s);
  }
  /* position P - 1 holds everything: in the receive buffer at the root,
   * forwarded to a non-commutative root elsewhere */
  if (rc == MPI_SUCCESS && s.pos == s.last) {
    if (c->rank == c->root && s.acc != (char *)c->recvbuf)
      rc = pat_local_copy(s.acc, c->recvbuf, c->count, c->datatype);
    else if (c->rank != c->root)
      rc =
          PMPI_Send(s.acc, c->count, c->datatype, c->root, s.data_tag, c->priv);
  }
  if (rc == MPI_SUCCESS && s.rq[RQ_SEND] != MPI_REQUEST_NULL)
    rc = PMPI_Wait(&s.rq[RQ_SEND], MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && c->rank == c->root && s.pos != s.last)
    rc = PMPI_Recv(c->recvbuf, c->count, c->datatype, pat_lr_rank_of(c, s.last),
                   s.data_tag, c->priv, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && s.transfer > 0)
    pat_lr_observe(c, s.transfer);
  /* after an error, no receive may still write into this call's memory;
   * a send still reading a temporary keeps it (leaked, not freed) */
  for (int i = 0; rc != MPI_SUCCESS && i < RQ_COUNT; i++)
    if (i != RQ_SEND && s.rq[i] != MPI_REQUEST_NULL &&
        PMPI_Cancel(&s.rq[i]) == MPI_SUCCESS)
      PMPI_Wait(&s.rq[i], MPI_STATUS_IGNORE);
  {
    int brc = pat_lr_outbox_close(&s.box, rc == MPI_SUCCESS);
    rc = rc != MPI_SUCCESS ? rc : brc;
  }
  if (s.rq[RQ_SEND] != MPI_REQUEST_NULL) {
    PMPI_Request_free(&s.rq[RQ_SEND]);
    return rc;
  }
  pat_tmpbuf_free(&s.tmp[0]);
  pat_tmpbuf_free(&s.tmp[1]);
  return rc;
}
