/*
 * localredirect: a reduction that absorbs arrival imbalance with local
 * information only (after Marendic's Local Redirect, thesis ch. 5): no
 * prediction, no global schedule; every process talks to its current two
 * neighbours and hands its data to whichever is ready.
 *
 * Idea.  The P processes stand in a line, positions 0..P-1.  Every position
 * starts holding the one-element interval [pos, pos]; data only ever flows
 * rightwards: the holder of [a, b] sends its partial to the holder of the
 * interval that starts at b + 1, which combines "left (op) right" and now
 * holds a longer interval.  So a holder is always the right end of its
 * interval, its left neighbour is fixed (position lo - 1), and position
 * P - 1 ends with the result.  Only neighbouring intervals ever merge, so
 * the result is in position order.
 *
 * Protocol.  A process talks to its left neighbour and to its target (the
 * holder it will send to, first pos + 1) in "conversations", one per
 * (left, target) pair, in control messages of two ints on one tag (so the
 * messages of a conversation arrive in the order sent) and data on another:
 *   left -> target  DONE(ready)  "I have arrived"; ready = 0 promises a
 *                                 DONE(1) once I am ready to send
 *                   MSG_LEFT(lo)  "my data follows; your new left is lo-1"
 *                   SEND          the partial (data tag)
 *   target -> left  ACK           "I am here and still hold my interval"
 *                   OK            "send now" (a receive is posted)
 *                   REDIRECT(t)   "I gave my data to t: talk to t"
 * The target answers the first DONE at once with ACK, OK or REDIRECT, and
 * after an ACK sends exactly one more of OK or REDIRECT.  A process that
 * has sent its data ("gone") still answers its left neighbour: it waits for
 * that neighbour's DONEs and redirects it.  So every message has a known
 * receiver that waits for it, and every process knows, from what it has
 * sent and received, how many messages are still coming: no wildcard
 * receive, nothing left in a queue when a call returns.
 *
 * Policy (when to take the left's data, when to send right).  Balanced,
 * the merges follow the in-order binomial tree rooted at P - 1: a position
 * q = P-1-pos from the right plans to gather 2^tz(q) positions before
 * sending (tz = trailing zero bits), just as binomial would.  Imbalanced:
 *  - a holder is "ready" to send when its plan is done, or when its target
 *    has answered and its left neighbour has not even arrived (it skips a
 *    late left, which is redirected later: the late process costs two
 *    rounds after it arrives instead of its whole subtree);
 *  - a holder takes its left's data (OK) while it is not ready, or when the
 *    left is ready and the holder's own target has not called for data yet
 *    (it absorbs the left while waiting for a late right);
 *  - a ready holder sends as soon as its target says OK, unless it is in
 *    the middle of a receive.
 * Position P - 1 takes every left.  Messages to a process that has left
 * are answered with REDIRECT, never lost.
 *
 * Cost.  Balanced: the binomial tree's ceil(log2 P) (alpha + m beta +
 * m gamma) plus control messages mostly off the critical path (DONE/OK are
 * exchanged on arrival while the partials are still being gathered).
 * One late process arriving at delta: about delta + 2 (alpha + m beta +
 * m gamma) plus a few redirect hops (2 alpha each), against
 * delta + (rounds above it) (alpha + m beta + m gamma) for binomial.
 * Per call a process receives at most three control messages per
 * conversation (two DONEs, MSG_LEFT; or ACK and OK/REDIRECT), and unexpected
 * ones from at most its left, its target and one left redirected ahead of
 * its data: the unexpected-message queue stays short (thesis 5.4.2).  Per
 * call, at most 4 messages per conversation with a left and 2 per
 * conversation with a target are there before their receive; with
 * tracing on they are noted (PAT_TRACE_UNEXPECTED) and the stress test
 * bounds them (--unexpected).
 *
 * Root and non-commutative ops.  Commutative: the line is rotated so that
 * the root is position P - 1 (position = rank - root - 1 mod P).
 * Non-commutative: position = rank, and rank P - 1 forwards the result to
 * the root if that is another rank.  Correctness of the protocol (no
 * deadlock, every contribution exactly once, in order, no message left
 * over) is model-checked with SPIN: tests/spin/localredirect.pml.
 *
 * The tree protocol.  Commutative calls up to PAT_REDUCE_LR_TREE bytes
 * (default auto: contiguous datatypes up to 32 alpha / beta, 173 KiB for
 * CURIE, while the root's 2 ceil(log2 P) + 1 messages fit in 64 MiB,
 * others up to alpha / beta, 5.4 KiB; takes_tree says why), and
 * non-commutative calls on contiguous datatypes up to PAT_REDUCE_LR_TREE
 * bytes (auto: alpha / beta) run the tree protocol (tree.c: binomial's
 * tree, a late child given up and its data forwarded, combined among the
 * ranks that forward, one message per merge; in rank order for the
 * non-commutative ones). Any other call
 * of up to PAT_REDUCE_LR_EAGER bytes (default 0: never) runs the line's
 * small-message protocol (eager.c: the partial travels with its announcement),
 * the rest this file's handshake protocol.  Their measurements are in their
 * files.
 *
 * Tunables: PAT_REDUCE_LR_PATIENCE (seconds, or auto: this rank's smoothed
 * time of one transfer of the message on this communicator, kept in the
 * algorithm's per-communicator state; the tree protocol's slack),
 * PAT_REDUCE_LR_EAGER and PAT_REDUCE_LR_TREE (bytes, 0, or auto: for
 * the line's eager protocol the configured model's alpha / beta; for the
 * tree, takes_tree below), parsed here (lr_parse).
 */
#include <limits.h>
#include <math.h>
#ifdef PATREDUCE_SMPI
#include <smpi/smpi.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "core/pat_internal.h"
#include "localredirect/localredirect.h"
#include "localredirect/lr_internal.h"

extern const pat_alg_row pat_alg_binomial; /* never_below */

/* Control message kinds (the data message, SEND, has a tag of its own). */
enum { LR_DONE = 1, LR_OK, LR_ACK, LR_REDIRECT, LR_MSG_LEFT };

/* Requests the event loop waits on. */
enum { RQ_LEFT, RQ_TARGET, RQ_DATA, RQ_SEND, RQ_COUNT };

typedef struct lr {
  const pat_call *call;
  int ctl_tag, data_tag;
  int P, pos, last; /* last = P - 1 */
  int plan;         /* planned interval size before sending */
  int lo;           /* this process holds [lo, pos] */
  int ready, gone, finished;
  /* my partial (the send buffer until something is combined into it) and
   * the buffer the left's partial arrives in; both point to the send or
   * receive buffer or one of two temporaries allocated on first use */
  char *acc, *in;
  pat_tmpbuf tmp[2];
  /* conversation with the left neighbour, position lo - 1 */
  int l_started;  /* its first DONE arrived */
  int l_ready;    /* it said it is ready (DONE(1)) */
  int l_answered; /* we sent ACK, OK or REDIRECT */
  int l_oked;     /* we sent OK: a receive is posted */
  int l_final;    /* we sent OK or REDIRECT */
  int l_msgleft;  /* MSG_LEFT arrived: new lo below */
  int l_newlo;
  int l_data; /* its data arrived */
  /* conversation with the target */
  int tgt;
  int t_ready_sent; /* our DONE to tgt said ready */
  int t_present;    /* it sent ACK or OK */
  int t_ok;         /* it sent OK */
  int *owed;        /* earlier targets we promised a DONE(1) */
  int nowed, capowed;
  /* requests */
  MPI_Request rq[RQ_COUNT];
  int inmsg[2][2]; /* RQ_LEFT, RQ_TARGET */
  pat_lr_outbox box;
  /* a neighbour silent for patience seconds is late */
  double patience;
  double l_since; /* the current left conversation began */
  double t_since; /* we announced ourselves to the current target */
  /* measuring one transfer: a receive from when the left is ready and
   * OKed, a send from its start, both to completion */
  double l_ok_at, l_ready_at, sent_at, transfer;
} lr;

int pat_lr_rank_of(const pat_call *c, int pos) {
  return c->commutative ? (c->root + 1 + pos) % c->nranks : pos;
}

int pat_lr_pos_of(const pat_call *c, int rank) {
  return c->commutative ? (rank - c->root - 1 + 2 * c->nranks) % c->nranks
                        : rank;
}

static int rank_of(const lr *s, int pos) {
  return pat_lr_rank_of(s->call, pos);
}

int pat_lr_plan_size(int pos, int last) {
  int q = last - pos, size = 1;
  if (q == 0)
    return last + 1;
  while ((q & 1) == 0) {
    q >>= 1;
    size <<= 1;
  }
  return size;
}

static int plan_done(const lr *s) {
  return s->lo == 0 || s->pos - s->lo + 1 >= s->plan;
}

/* Sends a control message; the request is completed at the end. */
int pat_lr_send_ctl(pat_lr_outbox *box, const pat_call *c, int pos, int tag,
                    int kind, int value) {
  int rc = MPI_SUCCESS, slot = -1, flag;
  for (int i = 0; i < box->n && slot < 0 && rc == MPI_SUCCESS; i++) {
    rc = PMPI_Test(&box->out[i]->req, &flag, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && flag)
      slot = i;
  }
  if (rc != MPI_SUCCESS)
    goto out;
  if (slot < 0) {
    if (box->n == box->cap) {
      int cap = box->cap ? 2 * box->cap : 8;
      pat_lr_out **grown = realloc(box->out, (size_t)cap * sizeof *grown);
      if (grown == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto out;
      }
      box->out = grown;
      box->cap = cap;
    }
    box->out[box->n] = malloc(sizeof(pat_lr_out));
    if (box->out[box->n] == NULL) {
      rc = MPI_ERR_NO_MEM;
      goto out;
    }
    slot = box->n++;
  }
  box->out[slot]->msg[0] = kind;
  box->out[slot]->msg[1] = value;
  rc = PMPI_Isend(box->out[slot]->msg, 2, MPI_INT, pat_lr_rank_of(c, pos), tag,
                  c->priv, &box->out[slot]->req);
out:
  return rc;
}

int pat_lr_outbox_close(pat_lr_outbox *box, int wait) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < box->n && wait && rc == MPI_SUCCESS; i++)
    rc = PMPI_Wait(&box->out[i]->req, MPI_STATUS_IGNORE);
  /* a message still on its way (after an error) keeps its two ints:
   * leaked, not freed under the send */
  for (int i = 0; i < box->n; i++)
    if (box->out[i]->req != MPI_REQUEST_NULL)
      PMPI_Request_free(&box->out[i]->req);
    else
      free(box->out[i]);
  free(box->out);
  box->out = NULL;
  box->n = box->cap = 0;
  return rc;
}

int pat_lr_irecv(const pat_call *c, void *buf, int count, MPI_Datatype datatype,
                 int pos, int tag, MPI_Request *req) {
  return pat_lr_irecv_rank(c, buf, count, datatype, pat_lr_rank_of(c, pos), tag,
                           req);
}

int pat_lr_note_early(const pat_call *c, int rank, int tag) {
  double now = PMPI_Wtime();
  int there = 0,
      rc = PMPI_Iprobe(rank, tag, c->priv, &there, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && there)
    pat_trace_note(c, PAT_TRACE_UNEXPECTED, rank, 0, now, now);
  return rc;
}

int pat_lr_irecv_rank(const pat_call *c, void *buf, int count,
                      MPI_Datatype datatype, int rank, int tag,
                      MPI_Request *req) {
  int rc = pat_trace_on(c) ? pat_lr_note_early(c, rank, tag) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS)
    rc = PMPI_Irecv(buf, count, datatype, rank, tag, c->priv, req);
  return rc;
}

int pat_lr_poll(int n, MPI_Request *rq, double deadline, double step, int *idx,
                int *got, MPI_Status *st) {
  int rc = MPI_SUCCESS, live = 0;
  *idx = MPI_UNDEFINED;
  *got = 0;
  for (;;) {
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
      if (rq[i] != MPI_REQUEST_NULL) {
        live = 1;
        rc = PMPI_Test(&rq[i], got, st);
        if (rc == MPI_SUCCESS && *got) {
          *idx = i;
          return rc;
        }
      }
    if (rc != MPI_SUCCESS || !live) {
      *got = !live; /* nothing to wait for: as MPI_Testany says */
      return rc;
    }
    if (PMPI_Wtime() >= deadline)
      return rc;
#ifdef PATREDUCE_SMPI
    if (step > 0) {
      struct timespec ts = {(time_t)step, (long)((step - (time_t)step) * 1e9)};
      smpi_nanosleep(&ts, NULL);
    }
#else
    (void)step;
#endif
  }
}

static int send_ctl(lr *s, int pos, int kind, int value) {
  return pat_lr_send_ctl(&s->box, s->call, pos, s->ctl_tag, kind, value);
}

/* Keeps a receive posted from the left exactly while it owes us a message:
 * its first DONE, the DONE(1) a DONE(0) promised, or MSG_LEFT after OK. */
static int expect_left(lr *s) {
  int rc = MPI_SUCCESS;
  int owed = s->lo > 0 &&
             (!s->l_started || !s->l_ready || (s->l_oked && !s->l_msgleft));
  if (owed && s->rq[RQ_LEFT] == MPI_REQUEST_NULL)
    rc = pat_lr_irecv(s->call, s->inmsg[RQ_LEFT], 2, MPI_INT, s->lo - 1,
                      s->ctl_tag, &s->rq[RQ_LEFT]);
  return rc;
}

static int post_target(lr *s) {
  return pat_lr_irecv(s->call, s->inmsg[RQ_TARGET], 2, MPI_INT, s->tgt,
                      s->ctl_tag, &s->rq[RQ_TARGET]);
}

/* A fresh conversation with the (new) left neighbour lo - 1. */
static int start_left(lr *s) {
  int rc = MPI_SUCCESS;
  s->l_started = s->l_ready = s->l_answered = s->l_oked = s->l_final = 0;
  s->l_msgleft = s->l_data = 0;
  s->l_since = PMPI_Wtime();
  rc = expect_left(s);
  return rc;
}

/* A fresh conversation with target t: announce ourselves. */
static int start_target(lr *s, int t) {
  int rc;
  s->tgt = t;
  s->t_present = s->t_ok = 0;
  s->t_ready_sent = s->ready;
  s->t_since = PMPI_Wtime();
  rc = send_ctl(s, t, LR_DONE, s->ready);
  if (rc == MPI_SUCCESS)
    rc = post_target(s);
  return rc;
}

static int owe_done(lr *s, int t) {
  int rc = MPI_SUCCESS;
  if (s->nowed == s->capowed) {
    int cap = s->capowed ? 2 * s->capowed : 4;
    int *grown = realloc(s->owed, (size_t)cap * sizeof *grown);
    if (grown == NULL) {
      rc = MPI_ERR_NO_MEM;
      goto out;
    }
    s->owed = grown;
    s->capowed = cap;
  }
  s->owed[s->nowed++] = t;
out:
  return rc;
}

/* A temporary that is neither acc nor avoid, allocated on first use. */
static int spare(lr *s, const char *avoid, char **out) {
  const pat_call *c = s->call;
  int rc = MPI_SUCCESS, i = 0;
  while (i < 2 && s->tmp[i].base != NULL &&
         (s->tmp[i].base == s->acc || s->tmp[i].base == avoid))
    i++;
  if (i == 2) {
    rc = MPI_ERR_INTERN;
    goto out;
  }
  if (s->tmp[i].base == NULL)
    rc = pat_tmpbuf_alloc(&s->tmp[i], c->count, c->datatype);
  *out = s->tmp[i].base;
out:
  return rc;
}

/* Our partial becomes writable: a copy of the send buffer, in the receive
 * buffer if this process ends with the result. */
static int own_acc(lr *s) {
  const pat_call *c = s->call;
  int rc = MPI_SUCCESS;
  char *dst = NULL;
  if (s->acc != (const char *)c->sendbuf)
    goto out;
  if (s->pos == s->last && c->rank == c->root)
    dst = c->recvbuf;
  else
    rc = spare(s, s->in, &dst);
  if (rc == MPI_SUCCESS)
    rc = pat_local_copy(c->sendbuf, dst, c->count, c->datatype);
  if (rc == MPI_SUCCESS)
    s->acc = dst;
out:
  return rc;
}

/* The left's partial and its MSG_LEFT are both here: combine into
 * "left (op) mine".  A commutative op away from the result's final buffer
 * combines into the incoming buffer instead (no copy of the send buffer). */
static int merge_left(lr *s) {
  const pat_call *c = s->call;
  int rc = MPI_SUCCESS;
  double t0 = PMPI_Wtime();
  if (c->commutative && !(s->pos == s->last && c->rank == c->root)) {
    rc = pat_local_combine(s->acc, s->in, c->count, c->datatype, c->op);
    s->acc = s->in;
  } else {
    rc = own_acc(s);
    if (rc == MPI_SUCCESS)
      rc = pat_local_combine(s->in, s->acc, c->count, c->datatype, c->op);
  }
  if (rc != MPI_SUCCESS)
    goto out;
  pat_trace_note(c, PAT_TRACE_COMBINE, -1, c->count, t0, PMPI_Wtime());
  s->lo = s->l_newlo;
  rc = start_left(s);
out:
  return rc;
}

/* Skip the left: the target has answered and the left has not even
 * arrived (been silent since the conversation began) for patience. */
static int may_skip(const lr *s, double now) {
  return !s->gone && !s->ready && s->pos != s->last && s->t_present &&
         s->lo > 0 && !s->l_started && now - s->l_since >= s->patience;
}

/* Absorb the left: it is ready, we are too, and the target has not called
 * for our data for patience. */
static int may_absorb(const lr *s, double now) {
  return !s->gone && s->pos != s->last && s->ready && s->lo > 0 &&
         s->l_started && s->l_ready && !s->l_final && !s->t_ok &&
         now - s->t_since >= s->patience;
}

/* When a time-gated rule can fire next (+infinity if none waits). */
static double next_deadline(const lr *s) {
  double d = 1.0 / 0.0;
  if (may_skip(s, 1.0 / 0.0))
    d = s->l_since + s->patience;
  if (may_absorb(s, 1.0 / 0.0) && s->t_since + s->patience < d)
    d = s->t_since + s->patience;
  return d;
}

/* Applies the policy until nothing changes. */
static int progress(lr *s) {
  const pat_call *c = s->call;
  int rc = MPI_SUCCESS, changed = 1;
  while (changed && rc == MPI_SUCCESS) {
    changed = 0;
    if (!s->gone && s->l_msgleft && s->l_data) {
      rc = merge_left(s);
      changed = 1;
      continue;
    }
    /* ready: plan done, or the target answered and the left is late */
    if (!s->gone && !s->ready && s->pos != s->last &&
        (plan_done(s) || may_skip(s, PMPI_Wtime()))) {
      s->ready = 1;
      changed = 1;
      if (!s->t_ready_sent) {
        s->t_ready_sent = 1;
        rc = send_ctl(s, s->tgt, LR_DONE, 1);
      }
      for (int i = 0; i < s->nowed && rc == MPI_SUCCESS; i++)
        rc = send_ctl(s, s->owed[i], LR_DONE, 1);
      s->nowed = 0;
      continue;
    }
    /* take the left's data */
    if (!s->gone && s->lo > 0 && s->l_started && !s->l_final &&
        (s->pos == s->last || !s->ready || may_absorb(s, PMPI_Wtime()))) {
      rc = spare(s, NULL, &s->in);
      if (rc == MPI_SUCCESS)
        rc = pat_lr_irecv(c, s->in, c->count, c->datatype, s->lo - 1,
                          s->data_tag, &s->rq[RQ_DATA]);
      if (rc == MPI_SUCCESS)
        rc = send_ctl(s, s->lo - 1, LR_OK, 0);
      s->l_oked = s->l_final = s->l_answered = 1;
      s->l_ok_at = PMPI_Wtime();
      if (rc == MPI_SUCCESS)
        rc = expect_left(s);
      changed = 1;
      continue;
    }
    /* send right */
    if (!s->gone && s->ready && s->t_ok && !s->l_oked) {
      const void *data = s->acc;
      rc = send_ctl(s, s->tgt, LR_MSG_LEFT, s->lo);
      if (rc == MPI_SUCCESS)
        rc = PMPI_Isend(data, c->count, c->datatype, rank_of(s, s->tgt),
                        s->data_tag, c->priv, &s->rq[RQ_SEND]);
      s->sent_at = PMPI_Wtime();
      s->gone = 1;
      changed = 1;
      continue;
    }
    /* answer the left: redirect once gone, else acknowledge */
    if (s->lo > 0 && s->l_started && !s->l_final && s->gone) {
      rc = send_ctl(s, s->lo - 1, LR_REDIRECT, s->tgt);
      s->l_final = s->l_answered = 1;
      changed = 1;
      continue;
    }
    if (s->lo > 0 && s->l_started && !s->l_answered) {
      rc = send_ctl(s, s->lo - 1, LR_ACK, 0);
      s->l_answered = 1;
      changed = 1;
      continue;
    }
  }
  /* finished? */
  if (rc == MPI_SUCCESS && !s->finished) {
    int left_done = s->lo == 0 || (s->l_final && s->l_ready && !s->l_oked);
    if (s->pos == s->last)
      s->finished = s->lo == 0;
    else
      s->finished = s->gone && left_done;
  }
  return rc;
}

static int on_left(lr *s, const int *msg) {
  int rc = MPI_SUCCESS;
  switch (msg[0]) {
  case LR_DONE:
    s->l_started = 1;
    if (msg[1]) {
      s->l_ready = 1;
      s->l_ready_at = PMPI_Wtime();
    }
    break;
  case LR_MSG_LEFT:
    s->l_msgleft = 1;
    s->l_newlo = msg[1];
    break;
  default:
    rc = MPI_ERR_INTERN;
  }
  if (rc == MPI_SUCCESS)
    rc = expect_left(s);
  return rc;
}

static int on_target(lr *s, const int *msg) {
  int rc = MPI_SUCCESS;
  switch (msg[0]) {
  case LR_ACK:
    s->t_present = 1;
    rc = post_target(s);
    break;
  case LR_OK:
    s->t_present = s->t_ok = 1;
    break;
  case LR_REDIRECT:
    if (!s->t_ready_sent)
      rc = owe_done(s, s->tgt);
    if (rc == MPI_SUCCESS)
      rc = start_target(s, msg[1]);
    break;
  default:
    rc = MPI_ERR_INTERN;
  }
  return rc;
}

/* One transfer that began at since ended now; the call keeps the longest. */
static void observe(lr *s, double since) {
  double t = PMPI_Wtime() - since;
  if (t > s->transfer)
    s->transfer = t;
}

/* Our send to the target completed: its time for the patience estimate,
 * its interval for the trace. */
static void send_done(lr *s) {
  observe(s, s->sent_at);
  pat_trace_note(s->call, PAT_TRACE_SEND, rank_of(s, s->tgt), s->call->count,
                 s->sent_at, PMPI_Wtime());
}

/* Forward the result from position P - 1 to a non-commutative root. */
static int forward_result(lr *s) {
  const pat_call *c = s->call;
  int rc = MPI_SUCCESS;
  if (c->commutative || c->root == s->last)
    goto out;
  if (c->rank == s->last)
    rc =
        PMPI_Send(s->acc, c->count, c->datatype, c->root, s->data_tag, c->priv);
out:
  return rc;
}

/* ---- per-communicator state: the measured transfer time --------------- */

/* This rank's smoothed time of one transfer of bytes on the communicator;
 * the tree protocol's learned slack and the round it was learned for, and
 * whether its last call as the tree's root read a list (unrest). */
typedef struct lr_comm {
  double transfer, bytes;
  double slack, slack_unit;
  int unrest;
} lr_comm;

static lr_comm *lr_comm_get(const pat_call *c) {
  lr_comm *m;
  if (c->state == NULL)
    return NULL;
  m = pat_comm_state_alg(c->state, PAT_REDUCE_ALG_LOCALREDIRECT);
  if (m == NULL && (m = calloc(1, sizeof *m)) != NULL)
    pat_comm_state_set_alg(c->state, PAT_REDUCE_ALG_LOCALREDIRECT, m);
  return m;
}

/* The communicator's state if there is one (no allocation). */
static const lr_comm *lr_comm_peek(const pat_call *c) {
  return c->state != NULL
             ? pat_comm_state_alg(c->state, PAT_REDUCE_ALG_LOCALREDIRECT)
             : NULL;
}

static void lr_comm_free(void *state) { free(state); }

/* The estimate for bytes (seconds; 0 while nothing was measured), scaled
 * up linearly for a larger message. */
static double lr_transfer_estimate(const lr_comm *m, double bytes) {
  double t = 0.0;
  if (m != NULL && m->bytes > 0 && bytes > m->bytes)
    t = m->transfer * bytes / m->bytes;
  else if (m != NULL && m->bytes > 0)
    t = m->transfer;
  return t;
}

/* A new size restarts the estimate; the same size is smoothed (weight 1/4
 * for the new sample) so one noisy call does not swing it. */
void pat_lr_observe(const pat_call *c, double seconds) {
  double bytes = c->bytes;
  lr_comm *m;
  if (!(seconds >= 0) || (m = lr_comm_get(c)) == NULL)
    return; /* no estimate: patience stays 0, still correct */
  if (m->bytes != bytes || m->transfer <= 0) {
    m->bytes = bytes;
    m->transfer = seconds;
  } else {
    m->transfer = 0.75 * m->transfer + 0.25 * seconds;
  }
}

double pat_lr_patience(const pat_call *c) {
  double patience = ((const pat_lr_config *)pat_config_alg(
                         pat_config_get(), PAT_REDUCE_ALG_LOCALREDIRECT))
                        ->patience;
  if (patience < 0)
    patience = lr_transfer_estimate(lr_comm_peek(c), c->bytes);
  return patience;
}

/* A set patience is the slack; auto starts at unit for a new message size
 * (a new unit), doubles after a call with a premature give-up (tree.c),
 * and shrinks by 1/8 toward unit otherwise.  Up to 1 s. */
double pat_lr_tree_slack(const pat_call *c, double unit) {
  double set = ((const pat_lr_config *)pat_config_alg(
                    pat_config_get(), PAT_REDUCE_ALG_LOCALREDIRECT))
                   ->patience;
  const lr_comm *m;
  if (set >= 0)
    return set;
  m = lr_comm_peek(c);
  return m != NULL && m->slack_unit == unit && m->slack > unit ? m->slack
                                                               : unit;
}

void pat_lr_tree_learn(const pat_call *c, double unit, double slack,
                       int premature) {
  lr_comm *m = lr_comm_get(c);
  if (m == NULL)
    return;
  slack = premature ? 2 * slack : slack - (slack - unit) / 8;
  m->slack = slack < 1.0 ? slack : 1.0;
  m->slack_unit = unit;
}

int pat_lr_tree_unrest(const pat_call *c) {
  const lr_comm *m = lr_comm_peek(c);
  return m != NULL && m->unrest;
}

void pat_lr_tree_root_learn(const pat_call *c, int unrest) {
  lr_comm *m = lr_comm_get(c);
  if (m != NULL)
    m->unrest = unrest;
}

/* ---- tunables ----------------------------------------------------------- */

static const pat_env_var lr_env[] = {
    {"PAT_REDUCE_LR_PATIENCE", "auto",
     "localredirect: how long (a time >= 0: 50us) a neighbour may stay silent "
     "before it counts as late; auto = this rank's measured time of one "
     "transfer of the message; in the tree protocol the slack per level, "
     "auto = one round under the configured model, doubled after a "
     "premature give-up",
     /* may differ between ranks: auto already does */
     1, PAT_SCOPE_ROWS + PAT_REDUCE_ALG_LOCALREDIRECT},
    {"PAT_REDUCE_LR_EAGER", "0",
     "localredirect: calls the tree protocol does not take (non-commutative "
     "ops on non-contiguous datatypes, larger messages) of at most this "
     "many bytes (K, M suffixes) "
     "travel with their announcement (the small-message protocol: one "
     "message per merge instead of a handshake); 0: never (the default: "
     "faster on an oversubscribed node, slower in SMPI; see the README); "
     "auto = where the configured model's latency is at least the "
     "message's wire time (alpha / beta bytes: 5.4 KiB for the CURIE-like "
     "reference)",
     /* chooses the protocol: every rank must run the same */
     0, PAT_SCOPE_ROWS + PAT_REDUCE_ALG_LOCALREDIRECT},
    {"PAT_REDUCE_LR_TREE", "auto",
     "localredirect: commutative calls of at most this many bytes (K, M "
     "suffixes) run the tree protocol (binomial's tree, a late child given "
     "up and its data forwarded, combined among the ranks that forward: no "
     "handshake, no redirect), and so do non-commutative calls on "
     "contiguous datatypes (in rank order); "
     "0: never; auto = contiguous datatypes up to 32 alpha / beta bytes "
     "(173 KiB for the CURIE-like reference) while the root's 2 ceil(log2 "
     "P) + 1 messages fit in 64 MiB, other datatypes (packed) up to "
     "alpha / beta bytes; in rank order up to alpha / beta bytes while "
     "rank 0's FWD buffers fit in 64 MiB",
     /* chooses the protocol: every rank must run the same */
     0, PAT_SCOPE_ROWS + PAT_REDUCE_ALG_LOCALREDIRECT},
    {NULL, NULL, NULL, 0, 0}};

/* One of the protocol switches (a size, or auto: -1) into *out; an error
 * says why unless an earlier one has (said). */
static int lr_parse_size(const pat_env_var *var,
                         const char *(*get)(const char *), long long *out,
                         char *why, size_t whylen, int said) {
  const char *v = pat_env_value(var, get);
  *out = -1;
  if (strcasecmp(v, "auto") == 0 || pat_parse_bytes(v, 1LL << 40, out) == 1)
    return PAT_SUCCESS;
  if (!said)
    snprintf(why, whylen,
             "%s=%s is not a size; valid: auto, 0 (never), or bytes with an "
             "optional K, M or G suffix, e.g. 4K",
             var->name, v);
  return PAT_ERR_BAD_ENV;
}

static int lr_parse(void *config, const char *(*get)(const char *), char *why,
                    size_t whylen) {
  pat_lr_config *cfg = config;
  const char *v = pat_env_value(&lr_env[0], get);
  int err, err2;
  cfg->patience = -1.0;
  if (strcasecmp(v, "auto") != 0 && !pat_parse_seconds(v, &cfg->patience)) {
    snprintf(why, whylen,
             "%s=%s is not a time >= 0; valid: auto, or a number with an "
             "optional unit s, ms, us or ns (none: seconds), e.g. 50us",
             lr_env[0].name, v);
    return PAT_ERR_BAD_ENV;
  }
  err = lr_parse_size(&lr_env[1], get, &cfg->eager, why, whylen, 0);
  err2 = lr_parse_size(&lr_env[2], get, &cfg->tree, why, whylen,
                       err != PAT_SUCCESS);
  return err != PAT_SUCCESS ? err : err2;
}

/* The largest message a small-message protocol carries (set: the
 * variable's bytes; auto: -1): the same on every rank (the variable must
 * agree; auto reads the configured model, not a measured one). */
static double small_limit(long long set) {
  const pat_model *m = pat_config_model(pat_config_get());
  if (set >= 0)
    return (double)set;
  return m->beta > 0 ? m->alpha / m->beta : 0;
}

/* The tree protocol's root holds a message per child and up to
 * ceil(log2 P) + 1 FWDs at once. */
#define TREE_AUTO_BYTES (64.0 * 1024 * 1024)
/* auto's range for contiguous datatypes, in alpha / beta units: where the
 * handshake's control messages (about three latencies per level) still
 * cost it more than a few percent of a round. */
#define TREE_AUTO_LATENCIES 32.0

/* Whether a call runs the tree protocol: a message whose header and data
 * fit an int count, and a non-commutative op only on a contiguous datatype
 * (the tree's in-order pieces travel raw) of up to PAT_REDUCE_LR_TREE
 * bytes (auto: alpha / beta: rank 0 may hold a piece per late rank, and
 * SMPI P = 128 measured in the README); a commutative op, for
 * PAT_REDUCE_LR_TREE=auto, a contiguous datatype of up to 32 alpha / beta
 * bytes (173 KiB for CURIE) whose 2 ceil(log2 P) + 1 messages at the root
 * fit in 64 MiB, or any datatype up to alpha / beta bytes (others are
 * packed, a copy per hop).  Measured against the line's handshake (SMPI,
 * P = 128, in the README): at 64 KiB faster balanced (1.01x binomial's
 * time against 1.12x), with one rank late by 0.8x to 2x the balanced time
 * and with every odd rank late (late data combined among the forwarders);
 * from 256 KiB the handshake is within 3% balanced, as fast or faster with
 * one late rank (by less than the balanced time: 1.28x-1.50x faster than
 * binomial against 1.11x-1.37x), and faster with 16 random ranks late
 * (1.07x binomial's time against 1.32x at 1 MiB: scattered late ranks'
 * FWDs mostly reach the root one by one).  The same on every rank. */
static int takes_tree(long long set, int commutative, int contiguous,
                      double bytes, int P) {
  int levels = 0;
  if (!(bytes > 0) || bytes + 4.0 * P + 64 > (double)INT_MAX)
    return 0;
  /* the common call first, with no loop (it runs on every rank of every
   * call: "CPU per call" in tree.c) */
  if (commutative && contiguous && set < 0 && bytes * 63 <= TREE_AUTO_BYTES)
    return bytes <= TREE_AUTO_LATENCIES * small_limit(set);
  while (levels < 31 && (1 << levels) < P)
    levels++;
  /* in order: raw messages only (tree.c); a FWD's buffer has room for a
   * run per two ranks of its sender's subtree (P / 4 runs from rank P /
   * 2), which must fit an int count, and auto keeps rank 0's window of
   * ceil(log2 P) + 1 such buffers within the root-memory bound */
  if (!commutative)
    return contiguous && bytes <= small_limit(set) &&
           (P / 4.0 + 2) * (bytes + 16) + 4.0 * P + 64 <= (double)INT_MAX &&
           (set >= 0 ||
            (levels + 1) * (P / 4.0 + 2) * (bytes + 16) <= TREE_AUTO_BYTES);
  if (set >= 0 || !contiguous)
    return bytes <= small_limit(set);
  return bytes <= TREE_AUTO_LATENCIES * small_limit(set) &&
         (2 * levels + 1) * bytes <= TREE_AUTO_BYTES;
}

/* The handshake protocol (this file's). */
static int handshake_run(const pat_call *c) {
  lr s = {0};
  int rc = MPI_SUCCESS;

  s.call = c;
  for (int i = 0; i < RQ_COUNT; i++)
    s.rq[i] = MPI_REQUEST_NULL;
  s.ctl_tag = c->tag;
  s.data_tag = c->tag + 1;
  s.P = c->nranks;
  s.last = s.P - 1;
  s.pos = pat_lr_pos_of(c, c->rank);
  s.lo = s.pos;
  s.plan = pat_lr_plan_size(s.pos, s.last);
  s.acc = (char *)c->sendbuf;
  s.patience = pat_lr_patience(c);
  /* the result's final buffer starts as a copy of this rank's data */
  if (rc == MPI_SUCCESS && s.pos == s.last && c->rank == c->root)
    rc = own_acc(&s);
  if (rc != MPI_SUCCESS)
    goto out;
  s.ready = s.pos != s.last && plan_done(&s);
  rc = start_left(&s);
  if (rc == MPI_SUCCESS && s.pos != s.last)
    rc = start_target(&s, s.pos + 1);
  while (rc == MPI_SUCCESS) {
    int idx, flag = 0;
    double deadline;
    MPI_Status st;
    rc = progress(&s);
    if (rc != MPI_SUCCESS || s.finished)
      break;
    deadline = next_deadline(&s);
    if (deadline < 1.0 / 0.0) {
      /* poll until an event or the deadline */
      int got = 0;
      rc = pat_lr_poll(RQ_COUNT, s.rq, deadline, s.patience / 32, &idx, &got,
                       &st);
      if (rc == MPI_SUCCESS && !got)
        continue;
    } else {
      rc = PMPI_Waitany(RQ_COUNT, s.rq, &idx, &st);
    }
    if (rc != MPI_SUCCESS || idx == MPI_UNDEFINED) {
      rc = rc != MPI_SUCCESS ? rc : MPI_ERR_INTERN; /* nothing to wait for */
      break;
    }
    switch (idx) {
    case RQ_LEFT:
      rc = on_left(&s, s.inmsg[RQ_LEFT]);
      break;
    case RQ_TARGET:
      rc = on_target(&s, s.inmsg[RQ_TARGET]);
      break;
    case RQ_DATA:
      s.l_data = 1;
      observe(&s, s.l_ok_at > s.l_ready_at ? s.l_ok_at : s.l_ready_at);
      pat_trace_note(c, PAT_TRACE_RECV, st.MPI_SOURCE, c->count, s.l_ok_at,
                     PMPI_Wtime());
      break;
    case RQ_SEND:
      send_done(&s);
      break;
    default:
      flag = 1;
    }
    if (flag)
      rc = MPI_ERR_INTERN;
  }
  if (rc != MPI_SUCCESS)
    goto out;
  /* position P - 1 holds everything */
  if (s.pos == s.last) {
    rc = own_acc(&s);
    if (rc == MPI_SUCCESS)
      rc = forward_result(&s);
  }
  if (rc == MPI_SUCCESS && s.rq[RQ_SEND] != MPI_REQUEST_NULL) {
    rc = PMPI_Wait(&s.rq[RQ_SEND], MPI_STATUS_IGNORE);
    send_done(&s);
  }
  if (rc == MPI_SUCCESS && s.transfer > 0)
    pat_lr_observe(c, s.transfer);
  /* a non-commutative root other than P - 1 receives the result */
  if (rc == MPI_SUCCESS && !c->commutative && c->rank == c->root &&
      c->root != s.last)
    rc = PMPI_Recv(c->recvbuf, c->count, c->datatype, s.last, s.data_tag,
                   c->priv, MPI_STATUS_IGNORE);
out : {
  int brc = pat_lr_outbox_close(&s.box, rc == MPI_SUCCESS);
  rc = rc != MPI_SUCCESS ? rc : brc;
}
  free(s.owed);
  pat_tmpbuf_free(&s.tmp[0]);
  pat_tmpbuf_free(&s.tmp[1]);
  return rc;
}

/* The row: the protocol for the call's size and op. */
static int localredirect_run(const pat_call *c) {
  const pat_lr_config *cfg =
      pat_config_alg(pat_config_get(), PAT_REDUCE_ALG_LOCALREDIRECT);
  if (takes_tree(cfg->tree, c->commutative, c->type.contiguous, c->bytes,
                 c->nranks))
    return pat_lr_tree_run(c);
  if (c->bytes > 0 && c->bytes <= small_limit(cfg->eager))
    return pat_lr_eager_run(c);
  return handshake_run(c);
}

/* For auto: binomial's tree walked under the arrivals; for the line
 * protocols each merge is a handshake (DONE, OK) or a redirect before the
 * data, so three latencies per round (SMPI, P = 128, 8 B: 3.0x binomial
 * measured), for the tree protocol one (1.01x measured; the datatype
 * weighed as contiguous: the parameters do not say), in rank order
 * rooted at rank 0 and one message more to another root.  The tree
 * protocol of a commutative op is walked with its give-ups
 * (pat_lr_tree_estimate): balanced that is binomial's walk, and a rank
 * predicted late by more than a round and the slack is absorbed (the
 * row's absorbs; SMPI, P = 64, 8 B, the last rank late by binomial's
 * time: 0.69x binomial's time measured).  The line protocols' redirects
 * are not credited (no model promises them), nor the in-order tree's
 * give-ups. */
static double lr_estimate(const pat_sched_params *p) {
  pat_sched_params q = *p;
  const pat_lr_config *cfg =
      pat_config_alg(pat_config_get(), PAT_REDUCE_ALG_LOCALREDIRECT);
  const pat_alg_row *bin = pat_alg_table[PAT_REDUCE_ALG_BINOMIAL];
  double bytes = (double)p->count * p->elem_size, hop, t, unit;
  if (!takes_tree(cfg->tree, p->commutative, 1, bytes, p->nranks)) {
    q.model.alpha *= 3;
    return bin->estimate(&q);
  }
  if (p->commutative && p->arrivals == NULL)
    return bin->estimate(&q);
  if (p->commutative) { /* tree.c's due times, as a call starts them */
    unit = pat_model_round_cost(pat_config_model(pat_config_get()), bytes);
    return pat_lr_tree_estimate(p, unit,
                                cfg->patience >= 0 ? cfg->patience : unit);
  }
  /* in rank order: never below binomial's own in-order trees (the row's
   * never_below) */
  q.root = 0;
  hop = p->root != 0 ? p->model.alpha + bytes * p->model.beta : 0;
  t = bin->estimate(&q) + hop;
  return fmax(t, bin->estimate(p));
}

const pat_alg_row pat_alg_localredirect = {
    .id = PAT_REDUCE_ALG_LOCALREDIRECT,
    .name = "localredirect",
    .description = "absorbs imbalance without prediction: binomial's tree "
                   "that gives late children up (commutative ops, and in "
                   "rank order non-commutative ones), else "
                   "handshake/redirect along a line (thesis Alg. 9)",
    .run = localredirect_run,
    .estimate = lr_estimate,
    .never_below = &pat_alg_binomial,
    .absorbs = 1,
    .fallback = PAT_REDUCE_ALG_LOCALREDIRECT,
    .env = lr_env,
    .config_size = sizeof(pat_lr_config),
    .parse = lr_parse,
    .state_free = lr_comm_free};
