/*
 * The executor: runs one rank's program of a schedule as a dataflow.
 *
 * Idea.  An operation starts as soon as the earlier operations it depends
 * on (same buffer, overlapping range, one of them writing: dataflow.c) have
 * finished, and a send (receive) is posted only after the previous send to
 * (receive from) the same peer, so MPI matches messages in program order
 * on the call's one tag.  Combines and copies run the moment their inputs
 * are in; a late peer delays only what depends on it, and a send to a late
 * parent no longer blocks the receives that follow it.
 *
 * Step function.  pat_exec_start prepares the run (buffers, dependencies)
 * and starts what can start; pat_exec_progress starts and completes what it
 * can without blocking and says whether the program is done; pat_exec_wait
 * blocks (PMPI_Waitany, not a spin) until it is, then frees everything.
 * The blocking reduction is start + wait; a non-blocking one or a progress
 * thread drives the same steps, keeping the pat_call it started with
 * alive until the run is done (the executor points to it).  In a run that
 * blocks, a transfer that would be alone in flight, with nothing else
 * ready and nothing it makes ready, is one blocking PMPI_Send or PMPI_Recv
 * instead of a request and a PMPI_Waitany: the same order of events, with
 * no request (a tree's leaf, a small message's every transfer).
 *
 * Outstanding operations.  Every operation of the earliest round that is
 * not finished may be in flight (the validator proves that this much never
 * deadlocks).  A receive of a later round is posted early only while fewer
 * than PAT_REDUCE_MAX_OUTSTANDING receives (default 1) are in flight: two
 * messages arriving at once share the rank's link, which delays the first
 * one's combine (measured in SMPI: a tree with one late rank lost 3.5%
 * with 16), while one receive ahead is what a pipeline needs.  A send of a
 * later round whose data is ready is posted early only while fewer than
 * PAT_REDUCE_MAX_SENDS sends (default 4; fewer where the schedule says so:
 * pat_schedule_sends_ahead) are in flight, like Open MPI's
 * chain, whose leaves send one segment at a time: a pipeline's leaf
 * posting all 64 of its 64 KiB segments at once flooded its parent
 * (real Open MPI, P = 8 on 2 cores, 4 MiB: 1.11-1.44x Open MPI's chain with
 * every send posted, 1.07-1.14 with 1 in flight, 0.99-1.07 with 4).
 * Holding either kind is safe for the same reason: the earliest round is
 * never held, and what is held gets another chance whenever a transfer
 * completes.  Ready transfers are posted before ready combines run, so
 * the next segment arrives while this one is combined.
 *
 * Memory.  A call allocates nothing once its communicator has run a call
 * as large: the executor with its per-operation arrays, and the
 * temporaries, are two blocks of the communicator's scratch (comm.c), kept
 * between calls up to PAT_REDUCE_SCRATCH_KEEP bytes.  Measured at P = 8,
 * Open MPI on 2 cores: per-call allocation made pipeline 1.12-1.30x Open
 * MPI's chain at 1-4 MiB (glibc mmaps and unmaps such temporaries) and
 * cost binomial 0.1-0.3 us per call at 8 B (the executor's kilobyte made
 * glibc consolidate its free lists every call).
 *
 * Measurements.  Every finished receive (posted to completed) and combine
 * is a (bytes, seconds) sample for the PAT layer's model, and every
 * transfer and combine an interval for the trace.  The clock is read only
 * when one of them is on.
 *
 * Per-call cost.  What a call derives from its program alone (the
 * dependencies, the range of each temporary) is computed once with the
 * cached schedule (dataflow.c); the datatype is read once per call (the
 * caller's pat_call, which the executor points to, not copies).  Measured,
 * one rank, 8 bytes, binomial: 0.22-0.27 us per call before, 0.12-0.17
 * after (Open MPI's binomial: 0.02, a copy).  A blocking run of a tree
 * node's program up to 4 KiB runs op by op with blocking transfers and no
 * executor at all (run_in_order); other blocking runs make a lone transfer one
 * blocking call.  Measured with callgrind, P = 2, 8 B: the leaf's executor
 * took 2080 instructions per call, 1125 with blocking transfers, 843 in
 * order (Open MPI's whole reduce at the leaf: 745-1525, its polling
 * included).  The rest of an 8-byte call's cost was in the dispatcher and
 * the dozens of small functions around this one: a call repeating the
 * last one now skips the dispatcher's work (dispatch.c, "repeats"), and
 * link-time optimization inlines the small functions, and a repeat runs
 * prepared (below); at P = 8 on 2 cores, 8 B back to back, binomial went
 * from 1.65-1.77x Open MPI's binomial to 0.86-0.89x.  (patbench's native
 * row used to run through the dispatcher too, which hid most of that
 * difference.)
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pat/pat_layer.h"
#include "pat_internal.h"

enum { WAITING = 0, STARTED, DONE };

struct pat_exec {
  const pat_sched_op *ops;
  int nops;
  const pat_deps *deps; /* the caller's (cached), or own_deps */
  pat_deps *own_deps;
  int *ints; /* one block for the int arrays below */
  MPI_Aint extent;
  double elem_bytes;
  pat_tmpbuf tmp; /* the block of all temporaries (pat_tmpbufs_alloc) */
  /* per operation */
  unsigned char *state;
  int *npend;     /* predecessors not finished */
  double *posted; /* when a transfer was posted */
  /* operations ready to start (FIFO each: transfers, local operations),
   * and receives held back by the bound */
  int *ready, nready, rhead;
  int *local, nlocal, lhead;
  int *held, nheld;
  /* transfers in flight: requests and their operations */
  MPI_Request *reqs;
  int *req_op, *idx, ninflight, nrecv;
  int first, ndone, max_outstanding, max_sends;
  int timed;     /* someone reads the times: the trace or the PAT layer */
  int may_block; /* a lone transfer may run as a blocking call */
  /* the state whose PAT_SCRATCH_EXEC block x is, or NULL: x is malloc'd */
  pat_comm_state *pool;
  /* buffers by slot: bit s of readable (writable) says slot s may be read
   * (written), rd[s] (wr[s]) is the address of its element 0 then, which
   * may be NULL: MPI_BOTTOM with absolute addresses (buffers_alloc) */
  unsigned readable, writable;
  const char *rd[PAT_SLOT_MAX];
  char *wr[PAT_SLOT_MAX];
  const pat_call *call; /* the caller's: it outlives the run */
};

/* Address checks: a program naming a slot this rank lacks is an internal
 * error, never a write through a missing buffer. */
static int has(unsigned mask, int slot) {
  return slot >= 0 && slot < PAT_SLOT_MAX && (mask >> slot & 1u);
}

static int rd_at(const pat_exec *x, int slot, int elem, const char **p) {
  if (!has(x->readable, slot))
    return MPI_ERR_INTERN;
  *p = pat_celem(x->rd[slot], elem, x->extent);
  return MPI_SUCCESS;
}

static int wr_at(const pat_exec *x, int slot, int elem, char **p) {
  if (!has(x->writable, slot))
    return MPI_ERR_INTERN;
  *p = pat_elem(x->wr[slot], elem, x->extent);
  return MPI_SUCCESS;
}

/* Each temporary the program uses holds only the elements its operations
 * touch: a reduce-scatter's temporaries shrink with the range they work
 * on.  The ranges come with the program's dependencies (dataflow.c); all
 * of them share one block, the communicator's scratch where it can serve
 * (combine.c). */
static int buffers_alloc(pat_exec *x) {
  const pat_call *c = x->call;
  const pat_deps *d = x->deps;
  int rc = MPI_SUCCESS, counts[PAT_SLOT_MAX];
  pat_tmpbuf tmp[PAT_SLOT_MAX];
  unsigned root = c->rank == c->root;
  x->rd[PAT_SLOT_SEND] = c->sendbuf;
  x->wr[PAT_SLOT_SEND] = c->recvbuf; /* in place */
  x->rd[PAT_SLOT_RECV] = c->recvbuf;
  x->wr[PAT_SLOT_RECV] = c->recvbuf;
  x->readable = 1u << PAT_SLOT_SEND | root << PAT_SLOT_RECV;
  x->writable =
      (unsigned)(c->in_place != 0) << PAT_SLOT_SEND | root << PAT_SLOT_RECV;
  if (d->ntmp == 0)
    return rc;
  for (int k = 0; k < d->ntmp; k++) {
    int slot = PAT_SLOT_TMP0 + k;
    counts[k] = d->tmp_hi[slot] < d->tmp_lo[slot]
                    ? -1
                    : d->tmp_hi[slot] - d->tmp_lo[slot];
  }
  rc = pat_tmpbufs_alloc(c->state, d->ntmp, counts, &c->type, tmp);
  x->tmp = tmp[0];
  for (int k = 0; rc == MPI_SUCCESS && k < d->ntmp; k++)
    if (counts[k] >= 0) {
      /* element lo of the slot is the buffer's first */
      int slot = PAT_SLOT_TMP0 + k;
      x->wr[slot] = pat_elem(tmp[k].base, -d->tmp_lo[slot], x->extent);
      x->rd[slot] = x->wr[slot];
      x->readable |= 1u << slot;
      x->writable |= 1u << slot;
    }
  return rc;
}

void pat_exec_free(pat_exec *x) {
  if (x == NULL)
    return;
  pat_tmpbuf_free(&x->tmp);
  pat_deps_free(x->own_deps);
  if (x->pool != NULL)
    pat_comm_state_scratch_give(x->pool, PAT_SCRATCH_EXEC, x);
  else
    free(x);
}

static int is_transfer(const pat_sched_op *op) {
  return op->kind == PAT_SCHED_SEND || op->kind == PAT_SCHED_RECV;
}

static void push_ready(pat_exec *x, int i) {
  if (is_transfer(&x->ops[i]))
    x->ready[(x->rhead + x->nready++) % x->nops] = i;
  else
    x->local[(x->lhead + x->nlocal++) % x->nops] = i;
}

/* Ready when no predecessor is pending and the previous transfer on the
 * same channel has been posted. */
static void maybe_ready(pat_exec *x, int i) {
  int prev = x->deps->chan_prev[i];
  if (x->state[i] == WAITING && x->npend[i] == 0 &&
      (prev < 0 || x->state[prev] != WAITING))
    push_ready(x, i);
}

/* Held-back transfers get another chance (the bound or the first round
 * moved). */
static void release_held(pat_exec *x) {
  for (int k = 0; k < x->nheld; k++)
    push_ready(x, x->held[k]);
  x->nheld = 0;
}

static void finish(pat_exec *x, int i) {
  const pat_deps *d = x->deps;
  int round = x->ops[x->first < x->nops ? x->first : 0].round;
  x->state[i] = DONE;
  x->ndone++;
  for (int k = d->succ_start[i]; k < d->succ_start[i + 1]; k++) {
    int j = d->succ[k];
    if (--x->npend[j] == 0)
      maybe_ready(x, j);
  }
  while (x->first < x->nops && x->state[x->first] == DONE)
    x->first++;
  if (x->nheld > 0 && x->first < x->nops && x->ops[x->first].round != round)
    release_held(x);
}

/* Whether the call's transfers and combines are timed: for the trace,
 * and for the PAT layer when it will exchange the samples. */
static int timed(const pat_call *call) {
  return (call->pat != NULL && pat_state_sampling(call->pat)) ||
         pat_trace_on(call);
}

/* The time, when someone reads it; else 0 (a clock read per transfer
 * and two per combine were 15% of a P = 2, 8-byte binomial's CPU). */
static double stamp(const pat_exec *x) { return x->timed ? PMPI_Wtime() : 0; }

/* Transfer i, posted at posted, completed at now: for the trace and the
 * PAT layer, when one of them is on. */
static void note_transfer(pat_exec *x, int i, double posted, double now) {
  const pat_sched_op *op = &x->ops[i];
  double bytes = (double)op->count * x->elem_bytes;
  if (!x->timed)
    return;
  pat_trace_note(x->call,
                 op->kind == PAT_SCHED_RECV ? PAT_TRACE_RECV : PAT_TRACE_SEND,
                 op->peer, op->count, posted, now);
  if (op->kind == PAT_SCHED_RECV && x->call->pat != NULL)
    pat_state_transfer_sample(x->call->pat, bytes, now - posted);
}

static int run_local(pat_exec *x, int i) {
  const pat_sched_op *op = &x->ops[i];
  const char *from;
  char *to;
  int rc = rd_at(x, op->src, op->offset, &from);
  if (rc == MPI_SUCCESS)
    rc = wr_at(x, op->dst, op->offset, &to);
  if (rc == MPI_SUCCESS && op->kind == PAT_SCHED_COMBINE) {
    double t0 = stamp(x), t1;
    rc = pat_local_combine(from, to, op->count, x->call->datatype, x->call->op);
    t1 = stamp(x);
    if (x->timed)
      pat_trace_note(x->call, PAT_TRACE_COMBINE, -1, op->count, t0, t1);
    if (x->timed && x->call->pat != NULL && op->count > 0)
      pat_state_combine_sample(x->call->pat, (double)op->count * x->elem_bytes,
                               t1 - t0);
  } else if (rc == MPI_SUCCESS) {
    rc = pat_local_copy_info(from, to, op->count, x->call->datatype,
                             &x->call->type);
  }
  return rc;
}

/* Starts transfer i: posted as *req, or with req NULL run as one blocking
 * call (PMPI_Send, PMPI_Recv). */
static int transfer(pat_exec *x, int i, MPI_Request *req) {
  const pat_sched_op *op = &x->ops[i];
  const pat_call *c = x->call;
  int rc;
  if (op->kind == PAT_SCHED_RECV) {
    char *to;
    rc = wr_at(x, op->dst, op->offset, &to);
    if (rc == MPI_SUCCESS)
      rc = req != NULL ? PMPI_Irecv(to, op->count, c->datatype, op->peer,
                                    c->tag, c->priv, req)
                       : PMPI_Recv(to, op->count, c->datatype, op->peer, c->tag,
                                   c->priv, MPI_STATUS_IGNORE);
  } else {
    const char *from;
    rc = rd_at(x, op->src, op->offset, &from);
    if (rc == MPI_SUCCESS)
      rc = req != NULL ? PMPI_Isend(from, op->count, c->datatype, op->peer,
                                    c->tag, c->priv, req)
                       : PMPI_Send(from, op->count, c->datatype, op->peer,
                                   c->tag, c->priv);
  }
  return rc;
}

static int post(pat_exec *x, int i) {
  int rc;
  x->posted[i] = stamp(x);
  rc = transfer(x, i, &x->reqs[x->ninflight]);
  if (rc == MPI_SUCCESS) {
    x->req_op[x->ninflight++] = i;
    x->nrecv += x->ops[i].kind == PAT_SCHED_RECV;
    x->state[i] = STARTED;
  }
  return rc;
}

/* Would transfer i be the only thing this rank does until it completes?
 * Nothing in flight, nothing else ready, and posting it makes nothing
 * ready (the next transfer on its channel waits for a predecessor).  Then
 * the run would post it and wait for it alone. */
static int alone(const pat_exec *x, int i) {
  int next = x->deps->chan_next[i];
  return x->may_block && x->ninflight == 0 && x->nready == 0 &&
         x->nlocal == 0 &&
         (next < 0 || x->state[next] != WAITING || x->npend[next] > 0);
}

/* Runs transfer i as one blocking call (PMPI_Send, PMPI_Recv): what
 * posting it alone and waiting for it does, without a request.  At 8 B
 * this was a third of the executor's instructions per call. */
static int transfer_blocking(pat_exec *x, int i) {
  double posted = stamp(x);
  int rc = transfer(x, i, NULL);
  if (rc == MPI_SUCCESS)
    note_transfer(x, i, posted, stamp(x));
  return rc;
}

static int transfer_now(pat_exec *x, int i) {
  int rc;
  x->state[i] = STARTED;
  rc = transfer_blocking(x, i);
  if (rc == MPI_SUCCESS)
    finish(x, i);
  return rc;
}

/* Posts the ready transfers; a receive (send) beyond the earliest
 * unfinished round waits while its kind's bound is reached. */
static int post_ready(pat_exec *x) {
  int rc = MPI_SUCCESS;
  while (x->nready > 0 && rc == MPI_SUCCESS) {
    int i = x->ready[x->rhead];
    x->rhead = (x->rhead + 1) % x->nops;
    x->nready--;
    if (x->state[i] != WAITING)
      continue;
    if (x->ops[i].round > x->ops[x->first].round &&
        (x->ops[i].kind == PAT_SCHED_RECV
             ? x->nrecv >= x->max_outstanding
             : x->ninflight - x->nrecv >= x->max_sends)) {
      x->held[x->nheld++] = i;
      continue;
    }
    if (alone(x, i)) {
      rc = transfer_now(x, i);
      continue;
    }
    rc = post(x, i);
    if (rc == MPI_SUCCESS && x->deps->chan_next[i] >= 0)
      maybe_ready(x, x->deps->chan_next[i]);
  }
  return rc;
}

/* Starts everything that may start now: transfers first, then one local
 * operation at a time (each may make transfers ready). */
static int start_ready(pat_exec *x) {
  int rc = post_ready(x);
  while (x->nlocal > 0 && rc == MPI_SUCCESS) {
    int i = x->local[x->lhead];
    x->lhead = (x->lhead + 1) % x->nops;
    x->nlocal--;
    x->state[i] = STARTED;
    rc = run_local(x, i);
    if (rc == MPI_SUCCESS) {
      finish(x, i);
      rc = post_ready(x);
    }
  }
  return rc;
}

/* Retires the in-flight transfers at positions idx[0..n) of reqs. */
static void retire(pat_exec *x, const int *idx, int n) {
  double now = stamp(x);
  for (int k = 0; k < n; k++) {
    int i = x->req_op[idx[k]];
    note_transfer(x, i, x->posted[i], now);
    x->nrecv -= x->ops[i].kind == PAT_SCHED_RECV;
    x->req_op[idx[k]] = -1;
  }
  /* compact, keeping posting order; MPI set the requests to NULL */
  {
    int m = 0;
    for (int k = 0; k < x->ninflight; k++)
      if (x->req_op[k] >= 0) {
        x->reqs[m] = x->reqs[k];
        x->req_op[m++] = x->req_op[k];
      }
    x->ninflight = m;
  }
  for (int k = 0; k < n; k++)
    finish(x, x->idx[n + k]);
  if (x->nheld > 0)
    release_held(x);
}

static int complete_some(pat_exec *x, int blocking) {
  int rc = MPI_SUCCESS, n = 0;
  if (x->ninflight == 0)
    return rc;
  if (blocking) {
    int k = MPI_UNDEFINED;
    rc = PMPI_Waitany(x->ninflight, x->reqs, &k, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && k == MPI_UNDEFINED)
      rc = MPI_ERR_INTERN; /* every request null: nothing would ever end */
    if (rc == MPI_SUCCESS) {
      x->idx[0] = k;
      n = 1;
    }
  } else {
    rc = PMPI_Testsome(x->ninflight, x->reqs, &n, x->idx, MPI_STATUSES_IGNORE);
    if (n == MPI_UNDEFINED)
      n = 0;
  }
  if (rc == MPI_SUCCESS && n > 0) {
    /* remember the operations before compaction reorders positions */
    for (int k = 0; k < n; k++)
      x->idx[n + k] = x->req_op[x->idx[k]];
    retire(x, x->idx, n);
  }
  return rc;
}

/* Rounds b up to a multiple of the strictest alignment. */
static size_t aligned(size_t b) {
  size_t a = _Alignof(max_align_t);
  return (b + a - 1) / a * a;
}

/* The executor and its per-operation arrays for n operations, in one
 * block: the communicator's PAT_SCRATCH_EXEC scratch when it can serve
 * (st not NULL), else malloc.  The struct's counters and state[] start
 * zeroed; the rest is written before it is read. */
static int exec_alloc(pat_comm_state *st, int n, pat_exec **out) {
  size_t nn = (size_t)(n > 0 ? n : 0);
  size_t at_posted = aligned(sizeof(pat_exec));
  size_t at_reqs = at_posted + aligned(nn * sizeof(double));
  size_t at_ints = at_reqs + aligned(nn * sizeof(MPI_Request));
  size_t at_state = at_ints + aligned(7 * nn * sizeof(int));
  size_t total = at_state + aligned(nn);
  char *block = st != NULL
                    ? pat_comm_state_scratch_take(st, PAT_SCRATCH_EXEC, total)
                    : NULL;
  pat_comm_state *pool = block != NULL ? st : NULL;
  pat_exec *x;
  if (block == NULL)
    block = malloc(total);
  if (block == NULL)
    return MPI_ERR_NO_MEM;
  /* field by field: a memset of the struct was 4% of an 8-byte call */
  x = (pat_exec *)block;
  x->ops = NULL;
  x->nops = 0;
  x->deps = NULL;
  x->own_deps = NULL;
  x->extent = 0;
  x->elem_bytes = 0;
  x->tmp = (pat_tmpbuf){.raw = NULL};
  x->nready = x->rhead = x->nlocal = x->lhead = x->nheld = 0;
  x->ninflight = x->nrecv = x->first = x->ndone = 0;
  x->max_outstanding = x->max_sends = x->timed = x->may_block = 0;
  x->readable = x->writable = 0; /* no buffer yet */
  x->call = NULL;
  x->pool = pool;
  x->posted = (double *)(block + at_posted);
  x->reqs = (MPI_Request *)(block + at_reqs);
  x->ints = (int *)(block + at_ints);
  x->state = (unsigned char *)(block + at_state);
  memset(x->state, 0, nn);
  x->npend = x->ints;
  x->ready = x->ints + nn;
  x->local = x->ints + 2 * nn;
  x->held = x->ints + 3 * nn;
  x->req_op = x->ints + 4 * nn;
  x->idx = x->ints + 5 * nn; /* 2 n */
  *out = x;
  return MPI_SUCCESS;
}

/* pat_exec_start; may_block: the caller waits for the run anyway. */
static int exec_start(const pat_schedule *sched, const pat_call *call,
                      const pat_deps *deps, int may_block, pat_exec **out) {
  pat_exec *x = NULL;
  const pat_config *cfg = pat_config_get();
  const pat_sched_params *p = pat_schedule_params(sched);
  int rc = MPI_SUCCESS, n = pat_schedule_nops(sched, call->rank), err;
  rc = exec_alloc(call->state, n, &x);
  if (rc != MPI_SUCCESS)
    goto out;
  x->call = call;
  x->ops = pat_schedule_ops(sched, call->rank);
  x->nops = n;
  x->may_block = may_block;
  x->max_outstanding = cfg->max_outstanding;
  x->max_sends = pat_schedule_sends_ahead(sched, cfg->max_sends);
  x->timed = timed(call);
  x->extent = call->type.extent;
  x->elem_bytes = (double)call->type.size;
  if (n == 0) { /* an empty program: nothing to run */
    pat_exec_free(x);
    x = NULL;
    goto out;
  }
  x->deps = deps;
  if (deps == NULL || deps->nops != n) {
    err = pat_deps_alloc(x->ops, n, p->in_place && call->rank == call->root,
                         &x->own_deps);
    if (err != PAT_SUCCESS) {
      rc = err == PAT_ERR_NO_MEMORY ? MPI_ERR_NO_MEM : MPI_ERR_INTERN;
      goto out;
    }
    x->deps = x->own_deps;
  }
  rc = buffers_alloc(x);
  if (rc != MPI_SUCCESS)
    goto out;
  for (int i = 0; i < n; i++)
    x->npend[i] = x->deps->pred_start[i + 1] - x->deps->pred_start[i];
  for (int i = 0; i < n; i++)
    maybe_ready(x, i);
  rc = start_ready(x);
out:
  if (rc != MPI_SUCCESS) {
    pat_exec_free(x);
    x = NULL;
  }
  *out = x;
  return rc;
}

int pat_exec_start(const pat_schedule *sched, const pat_call *call,
                   const pat_deps *deps, pat_exec **out) {
  return exec_start(sched, call, deps, 0, out);
}

int pat_exec_progress(pat_exec *x, int *done) {
  int rc = MPI_SUCCESS, before;
  *done = 1;
  if (x == NULL) /* an empty program */
    return rc;
  do {
    before = x->ndone;
    rc = complete_some(x, 0);
    if (rc == MPI_SUCCESS)
      rc = start_ready(x);
  } while (rc == MPI_SUCCESS && x->ndone != before && x->ndone < x->nops);
  *done = x->ndone == x->nops;
  return rc;
}

/* Blocks in PMPI_Waitany, never polling first: whatever has completed
 * is returned by it at once, and a failing test is not free everywhere
 * (SMPI charges smpi/test per failed test, which delayed radix-k's
 * concurrent receives by about 1 us per round at P = 128; its Waitsome
 * cost more still: ring at 64 KiB, P = 128, 0.511 ms against 0.433). */
int pat_exec_wait(pat_exec *x) {
  int rc = MPI_SUCCESS;
  if (x != NULL)
    x->may_block = 1;
  while (rc == MPI_SUCCESS && x != NULL && x->ndone < x->nops) {
    if (x->ninflight == 0) {
      rc = MPI_ERR_INTERN; /* nothing in flight, nothing ready: a bad program */
      break;
    }
    rc = complete_some(x, 1);
    if (rc == MPI_SUCCESS)
      rc = start_ready(x);
  }
  pat_exec_free(x);
  return rc;
}

/* The program op by op in its order, each transfer a blocking call, with
 * no executor state: for a tree node's program (deps->in_order: receives,
 * then at most one send, no round with two transfers) and one receive in
 * flight at a time, the dataflow does the same, except that it posts a
 * receive before the ready combine ahead of it, which lets the transfer
 * flow during the combine: that matters for large messages only
 * (PAT_IN_ORDER_MAX_BYTES below; a program whose
 * receives and sends alternate, a pipeline's, is not: there the dataflow
 * posts the next receive while a send is in flight, and running it in
 * order made pipeline 1.8-2.1x slower at 4 KiB, 8 ranks, back to back).
 * It never deadlocks where the dataflow does not: the validator's run
 * already starts an operation only after every operation of the earlier
 * rounds has finished, and within a round there is no other transfer to
 * wait for.  See "Per-call cost" for what it saves. */
/* The fields of x an in-order run reads, and its buffers: zeroing the
 * whole executor (528 bytes, its slot tables) was half of run_in_order's
 * cost at 8 bytes.  The slot tables are read only where buffers_alloc set
 * the readable / writable bit. */
static int in_order_setup(pat_exec *x, const pat_schedule *sched,
                          const pat_call *call, const pat_deps *deps) {
  x->call = call;
  x->ops = pat_schedule_ops(sched, call->rank);
  x->nops = deps->nops;
  x->deps = deps;
  x->extent = call->type.extent;
  x->elem_bytes = (double)call->type.size;
  x->timed = timed(call);
  x->tmp = (pat_tmpbuf){.raw = NULL};
  return buffers_alloc(x);
}

static int run_in_order(const pat_schedule *sched, const pat_call *call,
                        const pat_deps *deps) {
  pat_exec x;
  int rc = in_order_setup(&x, sched, call, deps);
  for (int i = 0; rc == MPI_SUCCESS && i < x.nops; i++)
    rc = is_transfer(&x.ops[i]) ? transfer_blocking(&x, i) : run_local(&x, i);
  pat_tmpbuf_free(&x.tmp);
  return rc;
}

/* Largest message a tree node's program runs in order.  Above it the
 * dataflow runs it, which posts a receive before the ready combine ahead
 * of it, so the transfer flows while the combine runs where their buffers
 * differ (the model's overlap): SMPI, P = 64, 1 MiB, root 1 ms late,
 * clairvoyant 1.764 -> 1.596 ms, the oracle 1.723 -> 1.559, binomial
 * 5.095 -> 4.920 (its programs alternate two buffers, so only every other
 * receive overlaps); balanced binomial the same, the oracle 1.144 ->
 * 1.111.  On this 2-core node, binomial balanced, 8 ranks, by the median
 * of 8 alternated pairs: 1 MiB 0.79x, 64 KiB 0.88x; 2 ranks (one receive,
 * nothing to overlap) 1.0x.  Below it the in-order run's lower cost per
 * call matters more (see "Per-call cost"). */
#define PAT_IN_ORDER_MAX_BYTES 4096.0

static int in_order_run(const pat_schedule *sched, const pat_call *call,
                        const pat_deps *deps) {
  return deps != NULL && deps->in_order &&
         call->bytes <= PAT_IN_ORDER_MAX_BYTES &&
         deps->nops == pat_schedule_nops(sched, call->rank) &&
         pat_config_get()->max_outstanding <= 1;
}

/* Prepared runs.  A repeated call (dispatch.c) runs the same program on
 * the same buffers: its operations' addresses are resolved once and the
 * run is a loop of PMPI calls, with no executor or slot checks, and no
 * clock unless it samples for the PAT layer (a quiet call of auto that
 * samples for the next call's exchange runs prepared too).
 * The temporaries stay where the communicator's scratch had them: each
 * run takes the scratch again and runs prepared only if it gets the same
 * block (else the ordinary run, which the caller then prepares again).
 * Measured: see dispatch.c, "repeats". */
void pat_exec_prepare(const pat_schedule *sched, const pat_call *call,
                      const pat_deps *deps, pat_exec_prep *prep) {
  pat_exec x;
  int rc;
  prep->nops = 0;
  if (!in_order_run(sched, call, deps) || pat_trace_on(call) ||
      deps->nops > PAT_PREP_MAX_OPS)
    return;
  rc = in_order_setup(&x, sched, call, deps);
  prep->block = x.tmp.raw;
  prep->bytes =
      x.tmp.raw != NULL
          ? pat_comm_state_scratch_bytes(call->state, PAT_SCRATCH_DATA)
          : 0;
  if (x.tmp.raw != NULL && x.tmp.pool == NULL)
    rc = MPI_ERR_OTHER; /* not the scratch: its own block each call */
  for (int i = 0; rc == MPI_SUCCESS && i < x.nops; i++) {
    const pat_sched_op *op = &x.ops[i];
    struct pat_prep_op *q = &prep->op[i];
    q->kind = op->kind;
    q->peer = op->peer;
    q->count = op->count;
    q->from = NULL;
    q->to = NULL;
    if (op->kind != PAT_SCHED_RECV)
      rc = rd_at(&x, op->src, op->offset, &q->from);
    if (rc == MPI_SUCCESS && op->kind != PAT_SCHED_SEND)
      rc = wr_at(&x, op->dst, op->offset, &q->to);
  }
  pat_tmpbuf_free(&x.tmp);
  if (rc == MPI_SUCCESS)
    prep->nops = x.nops;
}

int pat_exec_run_prepared(const pat_exec_prep *prep, const pat_call *c) {
  void *block = NULL;
  int rc = MPI_SUCCESS;
  /* a call that samples for the PAT layer reads the clock around each
   * receive and combine, as the executor does (the trace: the executor) */
  pat_state *sampling =
      c->pat != NULL && pat_state_sampling(c->pat) ? c->pat : NULL;
  double t0 = 0, elem = (double)c->type.size;
  if (prep->nops == 0 || pat_trace_on(c))
    return PAT_EXEC_NOT_PREPARED;
  if (prep->block != NULL) {
    block =
        pat_comm_state_scratch_take(c->state, PAT_SCRATCH_DATA, prep->bytes);
    if (block != prep->block) {
      if (block != NULL)
        pat_comm_state_scratch_give(c->state, PAT_SCRATCH_DATA, block);
      return PAT_EXEC_NOT_PREPARED;
    }
  }
  for (int i = 0; rc == MPI_SUCCESS && i < prep->nops; i++) {
    const struct pat_prep_op *q = &prep->op[i];
    switch (q->kind) {
    case PAT_SCHED_SEND:
      rc = PMPI_Send(q->from, q->count, c->datatype, q->peer, c->tag, c->priv);
      break;
    case PAT_SCHED_RECV:
      t0 = sampling != NULL ? PMPI_Wtime() : 0;
      rc = PMPI_Recv(q->to, q->count, c->datatype, q->peer, c->tag, c->priv,
                     MPI_STATUS_IGNORE);
      if (sampling != NULL && rc == MPI_SUCCESS)
        pat_state_transfer_sample(sampling, q->count * elem, PMPI_Wtime() - t0);
      break;
    case PAT_SCHED_COMBINE:
      t0 = sampling != NULL ? PMPI_Wtime() : 0;
      rc = pat_local_combine(q->from, q->to, q->count, c->datatype, c->op);
      if (sampling != NULL && rc == MPI_SUCCESS && q->count > 0)
        pat_state_combine_sample(sampling, q->count * elem, PMPI_Wtime() - t0);
      break;
    default:
      rc = pat_local_copy_info(q->from, q->to, q->count, c->datatype, &c->type);
    }
  }
  if (block != NULL)
    pat_comm_state_scratch_give(c->state, PAT_SCRATCH_DATA, block);
  return rc;
}

int pat_exec_run(const pat_schedule *sched, const pat_call *call,
                 const pat_deps *deps) {
  pat_exec *x = NULL;
  int rc;
  if (in_order_run(sched, call, deps))
    return run_in_order(sched, call, deps);
  rc = exec_start(sched, call, deps, 1, &x);
  if (rc == MPI_SUCCESS)
    rc = pat_exec_wait(x);
  return rc;
}
