/*
 * localredirect's tree protocol for commutative ops (issue 16).  The line
 * protocols (localredirect.c, eager.c) pay about three latencies per level
 * of the tree even balanced: a holder's first target has usually just
 * gone and redirects it.  With a commutative op the order of merges is
 * free, so here the data follows the binomial tree and a late rank is
 * skipped instead of waited for.
 *
 * Idea.  Virtual ranks v = rank - root mod P; the binomial tree rooted at
 * v = 0, parent(v) = v without its lowest set bit, children v + 2^j below
 * that bit.  Every rank merges its children's partials as they come, then
 * sends its own (PART) to its parent, as binomial does, with no control
 * message.  A rank other than the root that has waited for child j past
 * its due time (below) gives it up: it sends its PART without it, naming
 * the child in the PART's list, then waits for the child's PART after all
 * and forwards it unchanged to the root (FWD).  The root never gives up;
 * every list it merges names children whose parents owe it a FWD, and it
 * waits for exactly those (a FWD carries the list of its own subtree).
 * So a late rank's data reaches the root two hops after it arrives, and
 * only its parent (off the critical path) and the root wait for it.
 * Messages [n, n virtual ranks, the partial]:
 *   child -> parent  PART  on the call's first tag, one per child per call
 *   parent -> root   FWD   on the second tag, one per given-up child
 * A contiguous datatype's message is raw bytes (MPI_BYTE): the ints in a
 * header of 16-byte units, then the partial, combined where it arrived;
 * any other datatype's is MPI_Pack'ed (MPI_PACKED) and unpacked into a
 * temporary.  Every receive names its source and every rank knows how
 * many messages each source owes it in the call, so nothing is left in a
 * queue and no message of one call can match a receive of another.
 * Model-checked with SPIN (tests/spin/localredirect_tree.pml: no deadlock,
 * every contribution exactly once at the root, each message received in
 * its own call, nothing left over; P = 3..5 with two calls back to back,
 * and P = 8 with one call, where a given-up rank has children of its own,
 * so FWDs carry lists and one parent forwards two children).
 *
 * Due times.  Child j's subtree (2^j ranks at most) completes j rounds
 * after it starts and its PART takes one more, so it is due at
 * t0 + (j + 1) (u + s): t0 this rank's arrival, u one round under the
 * configured model (alpha + m beta + m gamma), s the slack:
 * PAT_REDUCE_LR_PATIENCE, or auto: u, doubled on this communicator after
 * a call where a given-up PART came, after this rank's own PART left, less
 * than two rounds (2 (u + s): what its FWD costs) or less than the time
 * this rank had waited for it (t_due - t0: it was nearly on time, e.g.
 * calls come back to back and the child is still in the previous one, or
 * the machine is slower than the model), and shrunk by 1/8 toward u after
 * a call with no premature give-up.  A child that
 * gives up on its own child sends its PART s before its parent's due time
 * for it.  While a due time is ahead a rank polls (pat_lr_poll), else it
 * blocks in MPI_Waitany.
 *
 * Cost.  Balanced: binomial's ceil(log2 P) (alpha + m beta + m gamma),
 * plus a header of 16 bytes.  One rank late by delta: max(ceil(log2 P)
 * rounds + its parent's wait, delta + 2 rounds) against binomial's
 * delta + (rounds above it).  Many ranks late at once: their FWDs queue at
 * the root, which receives and combines them one by one, k late ranks
 * about k (alpha + m beta + m gamma) after they arrive, where binomial
 * combines them in its tree (measured in localredirect.c, takes_tree: why
 * PAT_REDUCE_LR_TREE=auto stops at alpha / beta bytes).  Memory: a message per
 * child at once and its own; the root also up to ceil(log2 P) + 1 FWDs at once
 * (it posts their receives that many at a time, each buffer freed once merged;
 * a FWD not posted yet waits at its sender, or, below MPI's eager limit, in
 * MPI's own buffer): 2 ceil(log2 P) + 1 messages of the library's; a merged
 * FWD's request slot is taken by the next, so the root's waits scan its
 * children and the window, whatever P.  Measured (SMPI, CURIE-like, median of
 * 7, one rank late by 1x / 2x binomial's balanced time; `scripts/smpi-run P
 * curie patbench -q -a binomial,localredirect --sizes 8,4K,64K,1M --pattern
 * none
 * --pattern single --imbalance 1x,2x --reps 8 --warmup 2`): P = 128,
 * balanced 1.01x binomial at 8 B and 1.02x at 4 KiB, one late rank 1.51x /
 * 1.31x faster than binomial at 8 B, 1.55x / 1.32x at 4 KiB; P = 1024:
 * 1.02x / 1.01x balanced, 1.61x / 1.36x and 1.66x / 1.37x late (the line's
 * handshake: 3.0x / 2.0x binomial balanced at P = 128).  The larger sizes
 * and Open MPI on 2 cores are in the README (Status).
 *
 * Unexpected messages (thesis 5.4.2): a rank receives per call one PART
 * per child (at most ceil(log2 P)) and, at the root only, one FWD per
 * given-up rank; every PART's receive is posted at the call's start, a
 * FWD's once its list entry is merged and fewer than ceil(log2 P) + 1
 * FWD receives are posted.  So a non-root rank holds at
 * most ceil(log2 P) messages nobody waits for yet, the root at most
 * P - 1 in one call (every message it receives carries contributions no
 * other does), a bound the stress test checks
 * (mpi_stress_localredirect_tree_*: merges + ceil(log2 P) per call).
 *
 * Root: the tree is rooted at it (MPI_IN_PLACE: its receive buffer is its
 * contribution).  Non-commutative ops take the line protocols.
 *
 * Tunables: PAT_REDUCE_LR_TREE (localredirect.c) chooses the protocol;
 * PAT_REDUCE_LR_PATIENCE the slack.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "localredirect/lr_internal.h"

enum { TAG_PART, TAG_FWD };

/* What a request of the call is. */
enum { R_KID, R_SEND, R_FWD_OUT, R_FWD_IN };

/* Requests held in the call's own arrays before the heap: every child's
 * PART, its FWD, our PART (2 * 31 + 1), and some FWDs at the root. */
enum { LRT_INLINE = 72 };

/* How many ranks the subtree of v holds (its list names fewer). */
static int subtree(int v, int P) {
  int low = v == 0 ? P : (v & -v);
  return v + low > P ? P - v : low;
}

static int parent_of(int v) { return v & (v - 1); }

typedef struct lrt_kid {
  int v;      /* its virtual rank */
  double due; /* give it up after this */
  int state;  /* K_WAIT, K_MERGED, K_GIVEN, K_DONE */
} lrt_kid;
enum { K_WAIT, K_MERGED, K_GIVEN, K_DONE };

/* What a request is, its buffer and whether the buffer is the heap's. */
typedef struct lrt_req {
  char *buf;
  int what, who, heap;
  double posted; /* for the trace */
} lrt_req;

typedef struct lrt {
  const pat_call *call;
  int P, v, nkids, tracing;
  /* requests (contiguous, for MPI), and what each is */
  MPI_Request *rq;
  lrt_req *meta;
  int nrq, caprq;
  int sent;
  /* the root: the ranks whose FWDs it waits for and has not posted a
   * receive for yet (at most window receives are posted at once, so it
   * holds at most window FWDs besides its children's PARTs) */
  int *fwdq, nfwdq, capfwdq, fwd_live, window;
  /* the partial: acc (the send buffer until something is merged; then
   * a raw message's own data, or a temporary), and two temporaries for
   * packed messages (the partial, what arrives), the communicator's */
  char *acc;
  pat_tmpbuf tmp[2];
  /* the children's PARTs and our own arrive in and leave from one block:
   * the communicator's scratch, else the heap */
  char *arena, *sendbuf;
  int arena_heap, sendcap;
  int *list; /* list[0] = n, then the n given-up ranks our PART names */
  /* raw: a contiguous datatype's message is its bytes behind a header of
   * ints (MPI_BYTE, no packing); else MPI_Pack's */
  int raw;
  MPI_Datatype wire; /* MPI_BYTE or MPI_PACKED */
  int datasize;      /* the partial's bytes on the wire (at most) */
  double t0, slack, unit, sent_at;
  int premature; /* a given-up PART came less than two rounds after ours */
  /* not cleared per call (4 KiB): written before they are read */
  lrt_kid kid[32];
  MPI_Request rq_inline[LRT_INLINE];
  lrt_req meta_inline[LRT_INLINE];
} lrt;

static int rank_of(const lrt *s, int v) { return (v + s->call->root) % s->P; }

/* A raw message's header: n and the n ranks, in 16-byte units so that the
 * data behind it is aligned. */
static int raw_header(int n) {
  return (int)((sizeof(int) * (size_t)(1 + n) + 15) / 16 * 16);
}

/* Room for a message with a list of up to n ranks. */
static int packed_size(const lrt *s, int n, int *size) {
  int rc = MPI_SUCCESS;
  if (s->raw)
    *size = raw_header(n);
  else
    rc = PMPI_Pack_size(1 + n, MPI_INT, s->call->priv, size);
  *size += s->datasize;
  return rc;
}

/* A new request slot for buf (heap: freed with the slot). */
static int add_request(lrt *s, int what, int who, char *buf, int heap,
                       int *slot) {
  /* a FWD's receive takes the slot of one already merged (the root's
   * array stays at its children and a window of FWDs, whatever P) */
  *slot = -1;
  for (int i = 0; what == R_FWD_IN && i < s->nrq && *slot < 0; i++)
    if (s->meta[i].what == R_FWD_IN && s->rq[i] == MPI_REQUEST_NULL &&
        s->meta[i].buf == NULL)
      *slot = i;
  if (*slot < 0 && s->nrq == s->caprq) {
    int cap = 2 * s->caprq;
    MPI_Request *rq = malloc((size_t)cap * sizeof *rq);
    lrt_req *meta = rq ? malloc((size_t)cap * sizeof *meta) : NULL;
    if (meta == NULL) {
      free(rq);
      return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < s->nrq; i++) {
      rq[i] = s->rq[i];
      meta[i] = s->meta[i];
    }
    if (s->rq != s->rq_inline) {
      free(s->rq);
      free(s->meta);
    }
    s->rq = rq;
    s->meta = meta;
    s->caprq = cap;
  }
  if (*slot < 0)
    *slot = s->nrq++;
  s->rq[*slot] = MPI_REQUEST_NULL;
  s->meta[*slot] =
      (lrt_req){buf, what, who, heap, s->tracing ? PMPI_Wtime() : 0.0};
  return MPI_SUCCESS;
}

/* A receive of a packed message of up to size bytes from virtual rank
 * from into buf. */
static int post_recv(lrt *s, int what, int who, int from, char *buf, int heap,
                     int size, int tag) {
  int slot, rc = add_request(s, what, who, buf, heap, &slot);
  if (rc != MPI_SUCCESS) {
    if (heap)
      free(buf);
    return rc;
  }
  return pat_lr_irecv_rank(s->call, buf, size, s->wire, rank_of(s, from),
                           s->call->tag + tag, &s->rq[slot]);
}

/* The root posts receives for the FWDs it waits for, newest first (a
 * stack: the order does not matter), while fewer than window are posted
 * (a list up to the forwarder's subtree).  One not posted yet waits at
 * its sender (a message above MPI's eager limit) or in MPI's buffer at
 * the root; its sender waits for nothing else in this call. */
static int post_fwds(lrt *s) {
  int rc = MPI_SUCCESS;
  while (rc == MPI_SUCCESS && s->fwd_live < s->window && s->nfwdq > 0) {
    int x = s->fwdq[--s->nfwdq], size;
    char *buf = NULL;
    rc = packed_size(s, subtree(x, s->P), &size);
    if (rc == MPI_SUCCESS && (buf = malloc((size_t)size)) == NULL)
      rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
      rc = post_recv(s, R_FWD_IN, -1, x, buf, 1, size, TAG_FWD);
    s->fwd_live += rc == MPI_SUCCESS;
  }
  return rc;
}

/* The root owes a receive to a FWD from x. */
static int expect_fwd(lrt *s, int x) {
  if (s->nfwdq == s->capfwdq) {
    int cap = s->capfwdq ? 2 * s->capfwdq : 8;
    int *q = realloc(s->fwdq, (size_t)cap * sizeof *q);
    if (q == NULL)
      return MPI_ERR_NO_MEM;
    s->fwdq = q;
    s->capfwdq = cap;
  }
  /* a stack: the order among FWDs does not matter (the op commutes) */
  s->fwdq[s->nfwdq++] = x;
  return post_fwds(s);
}

/* The two temporaries a packed message is unpacked into, from the
 * communicator's scratch. */
static int temporaries(lrt *s) {
  const pat_call *c = s->call;
  int counts[2] = {c->count, c->count};
  if (s->tmp[1].base != NULL)
    return MPI_SUCCESS;
  return pat_tmpbufs_alloc(c->state, 2, counts, &c->type, s->tmp);
}

/* The list entry e of a received message: the root expects the FWD its
 * parent owes; another rank passes it on in its own list. */
static int take_entry(lrt *s, int e) {
  if (e <= 0 || e >= s->P)
    return MPI_ERR_INTERN; /* not in the protocol */
  if (s->v == 0)
    return expect_fwd(s, parent_of(e));
  s->list[1 + s->list[0]++] = e;
  return MPI_SUCCESS;
}

/* Opens a received message: its list taken, *data its partial (raw: in
 * the message; packed: unpacked into a temporary). */
static int open_part(lrt *s, char *buf, int len, char **data) {
  const pat_call *c = s->call;
  int pos = 0, n = 0, rc = MPI_SUCCESS;
  if (s->raw) {
    int e;
    memcpy(&n, buf, sizeof n);
    if (n < 0 || n > s->P || len < raw_header(n))
      return MPI_ERR_INTERN;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
      memcpy(&e, buf + sizeof(int) * (size_t)(1 + i), sizeof e);
      rc = take_entry(s, e);
    }
    *data = buf + raw_header(n);
    return rc;
  }
  rc = PMPI_Unpack(buf, len, &pos, &n, 1, MPI_INT, c->priv);
  if (rc == MPI_SUCCESS && (n < 0 || n > s->P))
    rc = MPI_ERR_INTERN;
  for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
    int e = -1;
    rc = PMPI_Unpack(buf, len, &pos, &e, 1, MPI_INT, c->priv);
    if (rc == MPI_SUCCESS)
      rc = take_entry(s, e);
  }
  if (rc == MPI_SUCCESS)
    rc = temporaries(s);
  if (rc != MPI_SUCCESS)
    return rc;
  *data = s->acc == s->tmp[0].base ? s->tmp[1].base : s->tmp[0].base;
  return PMPI_Unpack(buf, len, &pos, *data, c->count, c->datatype, c->priv);
}

/* Merges a received message into acc.  The first merge off the root
 * combines into the message's own partial (the op commutes), which
 * becomes acc. */
static int merge(lrt *s, char *buf, int len) {
  const pat_call *c = s->call;
  char *in = NULL;
  double t0 = s->tracing ? PMPI_Wtime() : 0.0;
  int rc = open_part(s, buf, len, &in);
  if (rc != MPI_SUCCESS)
    return rc;
  if (s->acc == (const char *)c->sendbuf && s->v != 0) {
    rc = pat_local_combine(c->sendbuf, in, c->count, c->datatype, c->op);
    s->acc = in;
  } else {
    rc = pat_local_combine(in, s->acc, c->count, c->datatype, c->op);
  }
  if (s->tracing)
    pat_trace_note(c, PAT_TRACE_COMBINE, -1, c->count, t0, PMPI_Wtime());
  return rc;
}

/* Our PART to the parent: the children not merged yet are given up. */
static int send_part(lrt *s) {
  const pat_call *c = s->call;
  int slot, pos = 0, rc;
  for (int j = 0; j < s->nkids; j++)
    if (s->kid[j].state == K_WAIT) {
      s->kid[j].state = K_GIVEN;
      s->list[1 + s->list[0]++] = s->kid[j].v;
    }
  /* a leaf has nothing to do meanwhile: a blocking send */
  if (s->nkids > 0)
    rc = add_request(s, R_SEND, -1, s->sendbuf, 0, &slot);
  else
    rc = MPI_SUCCESS;
  if (rc == MPI_SUCCESS && s->raw) {
    pos = raw_header(s->list[0]);
    memcpy(s->sendbuf, s->list, sizeof(int) * (size_t)(1 + s->list[0]));
    memcpy(s->sendbuf + pos, s->acc, (size_t)s->datasize);
    pos += s->datasize;
  } else if (rc == MPI_SUCCESS) {
    rc = PMPI_Pack(s->list, 1 + s->list[0], MPI_INT, s->sendbuf, s->sendcap,
                   &pos, c->priv);
    if (rc == MPI_SUCCESS)
      rc = PMPI_Pack(s->acc, c->count, c->datatype, s->sendbuf, s->sendcap,
                     &pos, c->priv);
  }
  if (rc == MPI_SUCCESS && s->nkids > 0)
    rc = PMPI_Isend(s->sendbuf, pos, s->wire, rank_of(s, parent_of(s->v)),
                    c->tag + TAG_PART, c->priv, &s->rq[slot]);
  else if (rc == MPI_SUCCESS)
    rc = PMPI_Send(s->sendbuf, pos, s->wire, rank_of(s, parent_of(s->v)),
                   c->tag + TAG_PART, c->priv);
  s->sent = 1;
  if (s->nkids > 0)
    s->sent_at = PMPI_Wtime();
  return rc;
}

/* Ready to send: every child merged or past its due time. */
static int ready(const lrt *s) {
  double now = -1.0;
  for (int j = 0; j < s->nkids; j++)
    if (s->kid[j].state == K_WAIT) {
      if (now < 0)
        now = PMPI_Wtime();
      if (now < s->kid[j].due)
        return 0;
    }
  return 1;
}

/* When ready() turns true with no message: the latest due time of the
 * children still waited for. */
static double next_due(const lrt *s) {
  double d = -1.0 / 0.0;
  for (int j = 0; j < s->nkids; j++)
    if (s->kid[j].state == K_WAIT && s->kid[j].due > d)
      d = s->kid[j].due;
  return d;
}

/* Request slot i completed. */
static int on_done(lrt *s, int i, const MPI_Status *st) {
  int rc = MPI_SUCCESS, len = 0, slot;
  lrt_req *m = &s->meta[i];
  lrt_kid *k = m->what == R_KID ? &s->kid[m->who] : NULL;
  if (m->what == R_SEND || m->what == R_FWD_OUT)
    return MPI_SUCCESS; /* a send of ours completed */
  rc = PMPI_Get_count(st, s->wire, &len);
  if (s->tracing)
    pat_trace_note(s->call, PAT_TRACE_RECV, st->MPI_SOURCE, s->call->count,
                   m->posted, PMPI_Wtime());
  if (rc != MPI_SUCCESS)
    return rc;
  if (m->what == R_FWD_IN) {
    char *buf = m->buf;
    rc = merge(s, buf, len); /* may post receives: m may move */
    free(buf);
    s->meta[i].buf = NULL;
    s->meta[i].heap = 0;
    s->fwd_live--;
    return rc == MPI_SUCCESS ? post_fwds(s) : rc;
  }
  if (k->state == K_WAIT) {
    k->state = K_MERGED;
    return merge(s, m->buf, len);
  }
  /* given up: forwarded as it came.  Premature if our PART gained less
   * than the two rounds its FWD costs, or than we had waited for the
   * child (it was nearly on time: calls back to back, a slow node) */
  {
    double gain = PMPI_Wtime() - s->sent_at, waited = k->due - s->t0;
    if (gain < 2 * (s->unit + s->slack) || gain < waited)
      s->premature = 1;
  }
  k->state = K_DONE;
  rc = add_request(s, R_FWD_OUT, -1, m->buf, 0, &slot);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Isend(s->meta[slot].buf, len, s->wire, s->call->root,
                    s->call->tag + TAG_FWD, s->call->priv, &s->rq[slot]);
  return rc;
}

/* Done: our PART out (the root sends none) and nothing pending. */
static int finished(const lrt *s) {
  if ((s->v != 0 && !s->sent) || s->nfwdq > 0)
    return 0;
  for (int i = 0; i < s->nrq; i++)
    if (s->rq[i] != MPI_REQUEST_NULL)
      return 0;
  return 1;
}

/* Waits for the next completion, polling while a due time may come
 * first. */
static int next_event(lrt *s) {
  int rc, idx = MPI_UNDEFINED, got = 0;
  MPI_Status st;
  double deadline = s->v != 0 && !s->sent ? next_due(s) : 1.0 / 0.0;
  if (deadline < 1.0 / 0.0) { /* -inf: nothing waited for, a send is out */
    rc = pat_lr_poll(s->nrq, s->rq, deadline, s->unit / 32, &idx, &got, &st);
    if (rc != MPI_SUCCESS || !got)
      return rc; /* the due time: the loop gives the child up */
  } else {
    rc = PMPI_Waitany(s->nrq, s->rq, &idx, &st);
  }
  if (rc != MPI_SUCCESS || idx == MPI_UNDEFINED)
    return rc != MPI_SUCCESS ? rc : MPI_ERR_INTERN; /* nothing to wait for */
  return on_done(s, idx, &st);
}

/* The arena (the communicator's scratch, else the heap: never this
 * call's stack, as after an error a send may still read it): each child's
 * PART and our own (a list up to our subtree; the root sends none), our
 * list. */
static int start(lrt *s) {
  const pat_call *c = s->call;
  int low = s->v == 0 ? s->P : (s->v & -s->v), rc = MPI_SUCCESS;
  size_t total = 0, at;
  s->raw = c->type.contiguous;
  s->wire = s->raw ? MPI_BYTE : MPI_PACKED;
  if (s->raw)
    s->datasize = (int)(c->type.size * c->count);
  else
    rc = PMPI_Pack_size(c->count, c->datatype, c->priv, &s->datasize);
  /* room for the longest list below us in every message (one query) */
  if (rc == MPI_SUCCESS)
    rc = packed_size(s, subtree(s->v, s->P) - 1, &s->sendcap);
  s->sendcap = (s->sendcap + 15) / 16 * 16; /* aligned slots */
  for (int j = 0; rc == MPI_SUCCESS && (1 << j) < low && s->v + (1 << j) < s->P;
       j++) {
    lrt_kid *k = &s->kid[s->nkids];
    k->v = s->v + (1 << j);
    k->due = s->t0 + (j + 1) * (s->unit + s->slack);
    k->state = K_WAIT;
    s->nkids++;
    total += (size_t)s->sendcap;
  }
  if (rc != MPI_SUCCESS)
    return rc;
  if (s->v != 0)
    total += (size_t)s->sendcap;
  at = total;
  total += (size_t)(subtree(s->v, s->P) + 1) * sizeof(int);
  s->window = s->nkids + 1;
  if (c->state != NULL)
    s->arena = pat_comm_state_scratch_take(c->state, PAT_SCRATCH_EXEC, total);
  if (s->arena == NULL) {
    s->arena = malloc(total);
    s->arena_heap = 1;
    if (s->arena == NULL)
      return MPI_ERR_NO_MEM;
  }
  s->list = (int *)(void *)(s->arena + at);
  s->list[0] = 0;
  s->acc = (char *)c->sendbuf;
  if (s->v == 0) {
    s->acc = c->recvbuf;
    if (c->sendbuf != c->recvbuf)
      rc = pat_local_copy_info(c->sendbuf, c->recvbuf, c->count, c->datatype,
                               &c->type);
  }
  at = 0;
  for (int j = 0; rc == MPI_SUCCESS && j < s->nkids; j++) {
    rc = post_recv(s, R_KID, j, s->kid[j].v, s->arena + at, 0, s->sendcap,
                   TAG_PART);
    at += (size_t)s->sendcap;
  }
  s->sendbuf = s->v != 0 ? s->arena + at : NULL;
  return rc;
}

/* After an error no receive may still write into this call's memory; a
 * send still reading its buffer keeps it (leaked, not freed, and the
 * scratch stays lent). */
static void finish(lrt *s) {
  int busy = 0;
  for (int i = 0; i < s->nrq; i++) {
    lrt_req *m = &s->meta[i];
    if (s->rq[i] != MPI_REQUEST_NULL &&
        (m->what == R_KID || m->what == R_FWD_IN) &&
        PMPI_Cancel(&s->rq[i]) == MPI_SUCCESS)
      PMPI_Wait(&s->rq[i], MPI_STATUS_IGNORE);
    if (s->rq[i] != MPI_REQUEST_NULL) {
      PMPI_Request_free(&s->rq[i]);
      busy = 1;
    } else if (m->heap) {
      free(m->buf);
    }
  }
  if (s->rq != s->rq_inline) {
    free(s->rq);
    free(s->meta);
  }
  free(s->fwdq);
  if (!busy && s->arena_heap)
    free(s->arena);
  else if (!busy && s->arena != NULL)
    pat_comm_state_scratch_give(s->call->state, PAT_SCRATCH_EXEC, s->arena);
  if (!busy) {
    pat_tmpbuf_free(&s->tmp[0]);
    pat_tmpbuf_free(&s->tmp[1]);
  }
}

int pat_lr_tree_run(const pat_call *c) {
  lrt s;
  int rc;
  memset(&s, 0, offsetof(lrt, kid));
  s.call = c;
  s.P = c->nranks;
  s.v = (c->rank - c->root + s.P) % s.P;
  s.tracing = pat_trace_on(c);
  s.rq = s.rq_inline;
  s.meta = s.meta_inline;
  s.caprq = LRT_INLINE;
  if (s.v != 0 && (s.v & 1) == 0) { /* a rank with children: due times */
    s.t0 = PMPI_Wtime();
    s.unit = pat_model_round_cost(pat_config_model(pat_config_get()), c->bytes);
    s.slack = pat_lr_tree_slack(c, s.unit);
  }
  rc = start(&s);
  while (rc == MPI_SUCCESS) {
    if (s.v != 0 && !s.sent && ready(&s))
      rc = send_part(&s);
    if (rc != MPI_SUCCESS || finished(&s))
      break;
    rc = next_event(&s);
  }
  if (rc == MPI_SUCCESS && s.nkids > 0 && s.v != 0)
    pat_lr_tree_learn(c, s.unit, s.premature);
  finish(&s);
  return rc;
}
