/*
 * localredirect's tree protocol (issue 16).  The line protocols
 * (localredirect.c, eager.c) pay about three latencies per level of the
 * tree even balanced: a holder's first target has usually just gone and
 * redirects it.  Here the data follows the binomial tree and a late rank
 * is skipped instead of waited for; with a commutative op merges happen
 * in any order, with any other in rank order ("In order" below).
 *
 * Idea.  Virtual ranks v = rank - root mod P; the binomial tree rooted at
 * v = 0, parent(v) = v without its lowest set bit, children v + 2^j below
 * that bit.  Every rank merges its children's partials as they come, then
 * sends its own (PART) to its parent, as binomial does, with no control
 * message while nobody is late.  A rank other than the root that has waited for
 * child j past its due time (below) gives it up: it sends its PART without it,
 * naming the child in the PART's list, and becomes a forwarder: it waits for
 * the child's PART after all and sends it on (FWD), combined with whatever else
 * late reaches it.  Where a FWD goes: to the forwarder's parent if that one
 * forwards too (it is still in the call and combines it), else to the root.  A
 * parent tells each child that forwards (its PART lists a child of its own)
 * which it is (ROUTE: 1 to me, 0 to the root), once its own PART has gone or,
 * for a child it gave up, when the child's PART comes; a child of the root
 * needs no ROUTE.  So one late rank's data reaches the root two hops after it
 * arrives, and many late ranks' data is combined in the tree of forwarders on
 * its way (every odd rank late: binomial's time, where FWDs all sent to the
 * root queued there: 3.6x at 64 KiB).  The root never gives up.  From every
 * list it merges it learns forwarders (the parents of the ranks named) and
 * waits for one FWD from each top forwarder (whose parent is the root or
 * forwards nothing); a FWD's list names the forwarder's own given-up children
 * besides the lists it merged, so a forwarder's parent is known to forward no
 * later than the forwarder is (root_absorb checks it).
 *
 * Messages ([n, r, r pairs lo hi, n virtual ranks, r partials]: r is 1
 * but for a FWD in order, whose partials hold the ranks [lo, hi), else
 * lo = hi = 0; ROUTE one int):
 *   PART   child -> parent, the call's first tag, one per child
 *   ROUTE  parent -> a child that forwards, the second tag (not from the
 *          root): 1 forward to me, 0 to the root
 *   FWD    forwarder -> its parent (ROUTE said 1) or the root (a child of
 *          the root, or ROUTE said 0), the second tag
 * A contiguous datatype's message is raw bytes (MPI_BYTE): the ints in a
 * header of 16-byte units, then the partial, combined where it arrived; any
 * other datatype's is MPI_Pack'ed (MPI_PACKED) and unpacked into a temporary.
 * Every receive names its source and every rank knows how many messages each
 * source owes it in the call, so nothing is left in a queue and no message of
 * one call can match a receive of another. Model-checked with SPIN
 * (tests/spin/localredirect_tree.pml: no deadlock, every contribution exactly
 * once at the root, each message received in its own call, nothing left over; P
 * = 3..5 with two calls back to back, and P = 8 with one call, the first tree
 * where a forwarder's parent forwards too: ROUTEs, FWDs combined on the way,
 * nested lists).  The model's root takes PARTs as they come; receiving
 * them in turn (kids_in_turn, below) is one of those orders, and no
 * child's PART waits on the root, so it adds no wait (not modelled).
 *
 * Due times.  Child j's subtree (2^j ranks at most) completes j rounds
 * after it starts and its PART takes one more, so it is due at
 * t0 + (j + 1) (u + s): t0 this rank's arrival, u one round under the
 * configured model (alpha + m beta + m gamma), s the slack:
 * PAT_REDUCE_LR_PATIENCE, or auto: u, doubled on this communicator after
 * a call where a given-up PART came, after its due time, less than half
 * the time this rank had waited for it ((t_due - t0) / 2: it was nearly
 * on time, e.g. calls come back to back and the child is still in the
 * previous one, or the machine is slower than the model), and shrunk by
 * 1/8 toward u after a call with no premature give-up.  Two rules measured
 * worse: counted from our PART's departure, a rank whose PART waited for
 * other children took useful give-ups for premature ones (every odd rank
 * late: the slack grew toward the delay, and give-ups just before the
 * late data came doubled the traffic into the root, 2.4x binomial's time
 * at 64 KiB); with a threshold of two rounds plus the slack, the
 * threshold grew with the slack it raised (SMPI P = 128, 512 KiB, the
 * last rank late by 0.5, 1, then 2 ms: 1.10x faster than binomial at 2 ms,
 * now 1.23x, 1.46x without the earlier delays).  A child that
 * gives up on its own child sends its PART s before its parent's due time
 * for it.  While a due time is ahead a rank polls (pat_lr_poll), else it
 * blocks in MPI_Waitany (a root receiving in turn: in MPI_Recv).
 *
 * Cost.  Balanced: binomial's ceil(log2 P) (alpha + m beta + m gamma),
 * plus a header of 16 bytes.  One rank late by delta: max(ceil(log2 P)
 * rounds + its parent's wait, delta + 2 rounds) against binomial's
 * delta + (rounds above it).  Many ranks late at once: their data climbs
 * the tree of forwarders, about binomial's time when they are the odd
 * ranks; scattered ones (16 of 128 at random) mostly have forwarders whose
 * parents forward nothing, so their FWDs reach the root one by one, k
 * late ranks about k (alpha + m beta + m gamma) after they arrive
 * (measured: 1.2-1.3x binomial's time from 64 KiB, the handshake's
 * 1.04-1.07x; at 8 B 0.87x, the handshake's 2.2x).  Memory: a message per child
 * at once and its own; a forwarder also a FWD per child that forwards and its
 * own; the root up to ceil(log2 P) + 1 FWDs at once (it posts their receives
 * that many at a time, each buffer freed once merged; a FWD not posted yet
 * waits at its sender, or, below MPI's eager limit, in MPI's own buffer):
 * 2 ceil(log2 P) + 1 messages of the library's at the root, the most of
 * any rank (a forwarder: 2 per child and 2); a merged FWD's
 * request slot at the root is taken by the next, so its waits scan its
 * children and the window, whatever P.  Measured (SMPI, CURIE-like, median
 * of 7, `scripts/smpi-run P curie patbench -q -a binomial,localredirect
 * --sizes 8,4K,64K,1M --pattern none --pattern single --pattern odd
 * --imbalance 1x,2x --reps 8 --warmup 2`): in the README (Status).
 *
 * CPU per call.  On an oversubscribed node (8 ranks on 2 cores, calls
 * back to back) what a call costs in CPU on every rank is its time:
 * binomial made to spin about 120 ns more per call took 1.49x native's
 * time at 4 B instead of 0.97x (README, Status).  So a leaf builds its
 * PART on the stack (8 KiB at most) and sends it blocking, with no call
 * state (leaf_part), a rank that forwards nothing sends its PART blocking
 * (no request to wait for), and readiness takes the poll's clock (below).
 * The common call (commutative, a contiguous datatype, nobody late) runs
 * a lean path with no call state but the arena: a rank with children (at
 * most LRT_INLINE of them: P up to 512) merges plain PARTs (no list, one
 * partial) with one combine each and sends its PART from the buffer its
 * partial is in (lean_run); the root of a call of at most SMALL_BYTES (P
 * up to 256) receives its children's PARTs in turn with MPI_Recv, as
 * binomial does, unless its last call as the tree's root read a list
 * (lean_root; kids_in_turn for other calls).  At a passed due time or a
 * PART that is not plain the lean path hands over what it did (lrt_lean),
 * start adopts it, and the general loop goes on from there.  By callgrind
 * (P = 4, 4 B, patbench's OSU-style loop) localredirect runs about 3050
 * instructions a call at the root, 2410 at the rank with a child and 650
 * at a leaf (4000, 3140 and 790 before the lean path and the micro-cuts
 * since, on another machine: 2910, 2460, 710 with it), against 1690, 1430
 * and 510 in binomial's executor;
 * a bare loop that posts the same receives, polls them and combines (no
 * header, no due times, no give-up) took 1.35x native's time (README,
 * Status).
 *
 * Unexpected messages (thesis 5.4.2): a rank receives per call one PART
 * per child (at most ceil(log2 P)), a forwarder also a ROUTE and a FWD
 * per child that forwards, the root one FWD per top forwarder.  Every
 * PART's receive is posted at the call's start (the root receiving in
 * turn: one after the other, kids_in_turn), a ROUTE's before the PART
 * that it answers is sent, a forwarder's FWD's before the ROUTE that
 * calls for it, and the root's once a list names its sender and fewer
 * than ceil(log2 P) + 1 FWD receives are posted.  So a rank holds at most
 * its children's PARTs that came before it did (the root receiving in
 * turn: before their turn; ceil(log2 P)) unexpected, the root also FWDs
 * (receiving in turn, a list read behind a late child posts its FWDs'
 * receives later): at most P - 1 messages in one call (every message it
 * receives carries contributions no other does); in order the root other
 * than rank 0 also the result, by a hair (its receive is posted right
 * after its own PART, on which the result waits).  A bound the stress test
 * checks (mpi_stress_localredirect_tree_*: merges + ceil(log2 P) per call
 * on every rank, one more in order).
 *
 * In order (a non-commutative op, a contiguous datatype: localredirect.c).
 * The same messages and rules over the ranks themselves (v = rank: the
 * tree rooted at rank 0, whose subtrees are runs of ranks).  A rank's own
 * partial is the run [v, e): its children's PARTs merged in order ("mine
 * (op) the child's", into the child's message) while each starts at e;
 * the first child past its due time, or one whose PART is cut short
 * (ends before its subtree does: it, or a forwarder below it, forwards the
 * rest) closes it, and every later child is given up too, without a
 * premature mark, also one whose PART came already (held in its slot:
 * given up when ours goes, with no wait).  So a PART is one run, [v, e).
 * What a forwarder gathers (given-up PARTs,
 * routed FWDs) and what rank 0 gathers are runs kept sorted, merged with
 * a neighbour as soon as they touch ("left (op) right", hold), and a FWD
 * carries its runs, usually one: a PART cut short by a forwarder further
 * down whose parent forwards nothing (that forwarder sends the gap to the
 * root, as in the commutative protocol) leaves a gap in what the
 * forwarder above gathers (from P = 16 its run ends short, from P = 32 it
 * may have several; mpi_stress_localredirect_tree_late_p16/_p32 fail if
 * the code asks for one run reaching the end).  Rank 0 ends with [0, P)
 * (its own run first, in its receive buffer if it is the root, else in a
 * temporary that it then sends to the root: one more message, the root's
 * receive posted once its own PART has gone).  The SPIN model checks this
 * too (-DINORDER=1: every PART one run from its sender on, what a rank
 * forwards in its subtree outside its PART; N = 3..5 over two calls and N
 * = 8 over one; two seeded bugs, a PART taken out of order and merges
 * after a give-up); the gaps need N >= 16, beyond it: the stress tests
 * above.  Cost: as above, plus one alpha + m beta when the root is not
 * rank 0; a late rank also delays its later siblings' data, which its
 * parent forwards with it (two hops after it arrives, as its own); a late
 * root other than rank 0 waits for three hops (its PART to a forwarder,
 * the FWD, the result).  Memory: a FWD's receive has room for a run per
 * two ranks of its sender's subtree, and rank 0 keeps every FWD until the
 * call ends (up to one per late rank).  Raw messages only (packed ones
 * unpack into the two temporaries, which a held run would need to keep).
 *
 * Root: commutative, the tree is rooted at it (MPI_IN_PLACE: its receive
 * buffer is its contribution); in order, at rank 0 (above).
 *
 * Tunables: PAT_REDUCE_LR_TREE (localredirect.c) chooses the protocol;
 * PAT_REDUCE_LR_PATIENCE the slack.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "localredirect/lr_internal.h"

enum { TAG_PART, TAG_FWD };

/* What a request of the call is (R_RESULT: the root's receive of the
 * result from rank 0, in order). */
enum { R_KID, R_SEND, R_FWD_OUT, R_FWD_IN, R_ROUTE_IN, R_ROUTE_OUT, R_RESULT };

/* A message: n (the ranks its list names) and r (its partials), then r
 * pairs lo, hi (in order: the partial holds the ranks [lo, hi); else 0 0),
 * then the n ranks, then the r partials. */
enum { HDR_INTS = 2 };

/* The root's flags per virtual rank: a forwarder (it gave up a child),
 * a top forwarder whose FWD the root waits for or has merged. */
enum { S_FWDER = 1, S_TOP = 2 };

/* Requests held in the call's own arrays before add_request moves them
 * to the heap.  A rank needs a PART per child, a ROUTE and a FWD per child
 * that forwards, and its own PART, ROUTE and FWD; the root its children's
 * PARTs and a window of FWDs.  8: balanced calls fit up to P = 256 (a PART
 * per child); where ranks forward the arrays grow, as
 * mpi_stress_localredirect_tree_late_p16 and _p32 make them grow on roots
 * and forwarders, in both orders (under the sanitizers too).  It was 96
 * per array, 3.75 KiB of stack a call. */
enum { LRT_INLINE = 8 };

/* A small call: a leaf's PART (header and partial) of at most this many
 * bytes is built on the stack (leaf_part); the root receives in turn
 * (kids_in_turn) for a partial of at most this many bytes. */
enum { SMALL_BYTES = 8192 };

/* How many ranks the subtree of v holds (its list names fewer). */
static int subtree(int v, int P) {
  int low = v == 0 ? P : (v & -v);
  return v + low > P ? P - v : low;
}

static int parent_of(int v) { return v & (v - 1); }

/* Whether v has a child: its first one, v + 1, is below v's lowest set
 * bit (v even; v = 0: any) and in the tree (start's loop finds them). */
static int has_children(int v, int P) { return (v & 1) == 0 && v + 1 < P; }

typedef struct lrt_kid {
  int v;        /* its virtual rank */
  double due;   /* give it up after this */
  int state;    /* K_WAIT, K_ARRIVED (in order), K_MERGED, K_GIVEN, K_DONE */
  int fwds;     /* its PART lists a child of its own: it forwards */
  char *buf;    /* where its PART arrives (the arena) */
  int len;      /* its length, once K_ARRIVED */
  int due_gone; /* given up because its due time had passed (in order a
                 * later child is given up with an earlier one) */
} lrt_kid;
enum { K_WAIT, K_ARRIVED, K_MERGED, K_GIVEN, K_DONE };

/* A partial of the ranks [lo, hi) (in order: held, merged with its
 * neighbours as they come; its buffer is the arena or a FWD's, kept until
 * the call ends). */
typedef struct lrt_piece {
  int lo, hi;
  char *data;
} lrt_piece;

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
  /* list[0] = n, then n ranks: the given-up ones our PART names, then
   * (a forwarder) our FWD's, or (the root) those of the message it opens */
  int *list;
  /* raw: a contiguous datatype's message is its bytes behind a header of
   * ints (MPI_BYTE, no packing); else MPI_Pack's */
  int raw;
  MPI_Datatype wire; /* MPI_BYTE or MPI_PACKED */
  int datasize;      /* the partial's bytes on the wire (at most) */
  double t0, slack, unit;
  int premature; /* a given-up PART came, after due, within half the wait */
  int in_turn;   /* the root of a small call: kids_in_turn */
  int expired;   /* the last poll returned at its deadline, next_due */
  /* a forwarder (a rank other than the root that gave up a child): what
   * it still waits for (given-up PARTs, routed FWDs), where its FWD goes
   * (-1 until its parent's ROUTE came), its FWD's buffer */
  int fwding, owed, route, fwd_sent, acc_empty;
  char *fwdbuf;
  /* the ROUTE ints in the arena: [0] ours, [1 + j] to child j */
  int *routes;
  /* in order (a non-commutative op): the tree is over the ranks
   * themselves (base 0; else base is the root); our partial holds the
   * ranks [v, e): children merge in order from next while the next one
   * starts at e (taking_next); what we forward, and rank 0 everything, is
   * held as runs of ranks sorted by lo, neighbours merged (held) */
  int base, inorder, e, next;
  lrt_piece *held, *runs; /* runs: a message's, (P + 1) / 2 at most */
  int nheld, capheld;
  int stride; /* a raw partial's room in a message: datasize, aligned */
  /* a forwarder: the names in its list, by v - s->v; the root: S_ flags
   * by virtual rank (heap, once a list names somebody) */
  unsigned char *seen;
  /* not cleared per call (4 KiB): written before they are read */
  lrt_kid kid[32];
  MPI_Request rq_inline[LRT_INLINE];
  lrt_req meta_inline[LRT_INLINE];
} lrt;

/* What lean_run or lean_root did before it handed its call over to the
 * general loop, for start to adopt: the arena (as start lays it out), the
 * children's receives (lean_run's, posted in child order), which of their
 * PARTs are merged and where the partial is, a PART that is not plain
 * (its child, -1: none) and whether the due times had passed. */
typedef struct lrt_lean {
  int done; /* the lean path ended the call: nothing to hand over */
  char *arena;
  int arena_heap;
  char *acc;
  unsigned merged; /* bit j: child j's PART */
  int came, came_len, expired;
  double t0, unit, slack;
  MPI_Request rq[LRT_INLINE];
} lrt_lean;

/* The rank of virtual rank v (the tree rooted at base, P ranks). */
static int rank_at(int v, int base, int P) { return (v + base) % P; }

static int rank_of(const lrt *s, int v) { return rank_at(v, s->base, s->P); }

/* A raw message's header: HDR_INTS, r runs and the n ranks, in 16-byte
 * units so that the data behind it is aligned. */
static int raw_header(int n, int r) {
  return (int)((sizeof(int) * (size_t)(HDR_INTS + 2 * r + n) + 15) / 16 * 16);
}

/* Writes a raw message's header into buf: n and r, the r pairs lo, hi
 * of run (in order; else 0 0), the n ranks of list, zeroed up to
 * raw_header(n, r) bytes, which it returns (the partials go there). */
static int put_raw_header(char *buf, int n, int r, const lrt_piece *run,
                          int inorder, const int *list) {
  int hdr[HDR_INTS] = {n, r}, size = raw_header(n, r);
  memset(buf, 0, (size_t)size);
  memcpy(buf, hdr, sizeof hdr);
  for (int i = 0; i < r; i++) {
    int lohi[2] = {inorder ? run[i].lo : 0, inorder ? run[i].hi : 0};
    memcpy(buf + sizeof hdr + i * sizeof lohi, lohi, sizeof lohi);
  }
  if (n > 0)
    memcpy(buf + sizeof hdr + r * 2 * sizeof(int), list,
           sizeof(int) * (size_t)n);
  return size;
}

/* Room for a message with a list of up to n ranks and up to r partials. */
static int packed_size(const lrt *s, int n, int r, int *size) {
  int rc = MPI_SUCCESS;
  if (s->raw) {
    *size = raw_header(n, r) + r * s->stride;
    return rc;
  }
  rc = PMPI_Pack_size(HDR_INTS + 2 * r + n, MPI_INT, s->call->priv, size);
  *size += r * s->datasize;
  return rc;
}

/* How many partials a FWD from x may carry: one, or in order one per run
 * of its subtree (runs apart by at least one rank whose data another
 * forwarder sends to the root). */
static int fwd_runs(const lrt *s, int x) {
  return s->inorder ? (subtree(x, s->P) + 1) / 2 : 1;
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

/* A receive, a traced call's noting a message there before it (as
 * pat_lr_irecv_rank, with the call's tracing looked up once). */
static int irecv_noted(const pat_call *c, void *buf, int size,
                       MPI_Datatype wire, int rank, int tag, int tracing,
                       MPI_Request *rq) {
  int rc = tracing ? pat_lr_note_early(c, rank, tag) : MPI_SUCCESS;
  return rc == MPI_SUCCESS ? PMPI_Irecv(buf, size, wire, rank, tag, c->priv, rq)
                           : rc;
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
  return irecv_noted(s->call, buf, size, s->wire, rank_of(s, from),
                     s->call->tag + tag, s->tracing, &s->rq[slot]);
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
    rc = packed_size(s, subtree(x, s->P), fwd_runs(s, x), &size);
    if (rc == MPI_SUCCESS && (buf = malloc((size_t)size)) == NULL)
      rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
      rc = post_recv(s, R_FWD_IN, x, x, buf, 1, size, TAG_FWD);
    s->fwd_live += rc == MPI_SUCCESS;
  }
  return rc;
}

/* arr (*cap elements of size bytes, full) grown to twice as many (8 at
 * first): the new block, *cap updated; NULL (arr and *cap as they were)
 * without memory. */
static void *grown(void *arr, int *cap, size_t size) {
  int n = *cap ? 2 * *cap : 8;
  void *p = realloc(arr, (size_t)n * size);
  if (p != NULL)
    *cap = n;
  return p;
}

/* The root owes a receive to a FWD from x. */
static int expect_fwd(lrt *s, int x) {
  if (s->nfwdq == s->capfwdq) {
    int *q = grown(s->fwdq, &s->capfwdq, sizeof *q);
    if (q == NULL)
      return MPI_ERR_NO_MEM;
    s->fwdq = q;
  }
  /* a stack: the order among FWDs does not matter (the op commutes, or
   * in order the runs are sorted where they are held) */
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

/* The list entry e of a message from child kid (-1: a FWD), kept in our
 * list (a forwarder's once: a rank can be named by a given-up PART and by
 * a FWD); a child whose list names a child of its own forwards.  The root
 * reads its list once the message's entries are in (root_absorb). */
static int take_entry(lrt *s, int e, int kid) {
  int low = subtree(s->v, s->P);
  if (e <= s->v || e >= s->v + low)
    return MPI_ERR_INTERN; /* not in the protocol: outside our subtree */
  if (kid >= 0 && parent_of(e) == s->kid[kid].v)
    s->kid[kid].fwds = 1;
  if (s->fwding) {
    if (s->seen[e - s->v])
      return MPI_SUCCESS;
    s->seen[e - s->v] = 1;
  }
  s->list[1 + s->list[0]++] = e;
  return MPI_SUCCESS;
}

/* The root reads a list: the parent of every rank named is a forwarder;
 * it waits for one FWD from each top forwarder (one whose parent is the
 * root or no forwarder: the forwarders below it forward to it), except
 * from, the top forwarder whose FWD carried the list.  A forwarder is
 * known no later than any forwarder below it (its own given-up children
 * travel with their lists): checked, as the protocol's invariant. */
static int root_absorb(lrt *s, int from) {
  int n = s->list[0], rc = MPI_SUCCESS;
  s->list[0] = 0;
  if (n == 0)
    return MPI_SUCCESS;
  if (s->seen == NULL && (s->seen = calloc((size_t)s->P, 1)) == NULL)
    return MPI_ERR_NO_MEM;
  for (int i = 1; i <= n; i++) {
    int q = parent_of(s->list[i]);
    if (q == 0)
      return MPI_ERR_INTERN; /* the root gives nobody up */
    if (s->seen[q] & S_FWDER)
      continue;
    for (int c = 1; c < (q & -q) && q + c < s->P; c *= 2)
      if (s->seen[q + c] & S_TOP)
        return MPI_ERR_INTERN; /* a top forwarder's parent forwards */
    s->seen[q] |= S_FWDER;
  }
  for (int i = 1; rc == MPI_SUCCESS && i <= n; i++) {
    int t = parent_of(s->list[i]);
    while (parent_of(t) != 0 && (s->seen[parent_of(t)] & S_FWDER))
      t = parent_of(t);
    if (t != from && !(s->seen[t] & S_TOP)) {
      s->seen[t] |= S_TOP;
      rc = expect_fwd(s, t);
    }
  }
  return rc;
}

/* Opens a received message from child kid (-1: a FWD; from: the root's
 * top forwarder that sent it, -1 for a PART): its list taken, *r its
 * partials, run[0..*r) (raw: in the message; packed: the one partial
 * unpacked into a temporary), in order each the ranks [lo, hi). */
static int open_part(lrt *s, char *buf, int len, int kid, int from, int *r,
                     lrt_piece *run) {
  const pat_call *c = s->call;
  int pos = 0, hdr[HDR_INTS] = {0}, rc = MPI_SUCCESS, maxr;
  maxr = s->inorder ? (s->P + 1) / 2 : 1;
  if (s->raw) {
    if (len < raw_header(0, 0))
      return MPI_ERR_INTERN;
    memcpy(hdr, buf, sizeof hdr);
  } else {
    rc = PMPI_Unpack(buf, len, &pos, hdr, HDR_INTS, MPI_INT, c->priv);
  }
  if (rc == MPI_SUCCESS &&
      (hdr[0] < 0 || hdr[0] > s->P || hdr[1] < 1 || hdr[1] > maxr ||
       (s->raw && len < raw_header(hdr[0], hdr[1]) + (hdr[1] - 1) * s->stride +
                            s->datasize)))
    rc = MPI_ERR_INTERN; /* not in the protocol */
  *r = rc == MPI_SUCCESS ? hdr[1] : 0;
  if (s->raw) { /* the ints in place: r pairs lo, hi, then the list */
    const char *at = buf + sizeof hdr;
    for (int i = 0; i < *r; i++, at += 2 * sizeof(int)) {
      memcpy(&run[i].lo, at, sizeof(int));
      memcpy(&run[i].hi, at + sizeof(int), sizeof(int));
    }
    for (int i = 0; rc == MPI_SUCCESS && i < hdr[0]; i++, at += sizeof(int)) {
      int e;
      memcpy(&e, at, sizeof e);
      rc = take_entry(s, e, kid);
    }
  } else {
    for (int i = 0; rc == MPI_SUCCESS && i < 2 * *r + hdr[0]; i++) {
      int e = -1;
      rc = PMPI_Unpack(buf, len, &pos, &e, 1, MPI_INT, c->priv);
      if (rc == MPI_SUCCESS && i < 2 * *r && i % 2 == 0)
        run[i / 2].lo = e;
      else if (rc == MPI_SUCCESS && i < 2 * *r)
        run[i / 2].hi = e;
      else if (rc == MPI_SUCCESS)
        rc = take_entry(s, e, kid);
    }
  }
  for (int i = 0; rc == MPI_SUCCESS && s->inorder && i < *r; i++)
    if (run[i].lo < 1 || run[i].lo >= run[i].hi || run[i].hi > s->P)
      rc = MPI_ERR_INTERN;
  if (rc == MPI_SUCCESS && s->v == 0)
    rc = root_absorb(s, from);
  if (rc != MPI_SUCCESS || s->raw) {
    for (int i = 0; i < *r; i++)
      run[i].data = buf + raw_header(hdr[0], *r) + i * s->stride;
    return rc;
  }
  rc = temporaries(s);
  if (rc != MPI_SUCCESS)
    return rc;
  run[0].data = s->acc == s->tmp[0].base ? s->tmp[1].base : s->tmp[0].base;
  return PMPI_Unpack(buf, len, &pos, run[0].data, c->count, c->datatype,
                     c->priv);
}

/* In order: holds the run p, merged with its neighbours where they
 * touch, "left (op) right" into the right one's buffer (its messages stay
 * until the call ends; rank 0's own run, first, is its result buffer). */
static int hold(lrt *s, lrt_piece p) {
  const pat_call *c = s->call;
  int i, rc = MPI_SUCCESS;
  if (s->nheld == s->capheld) {
    lrt_piece *h = grown(s->held, &s->capheld, sizeof *h);
    if (h == NULL)
      return MPI_ERR_NO_MEM;
    s->held = h;
  }
  for (i = s->nheld; i > 0 && s->held[i - 1].lo > p.lo; i--)
    s->held[i] = s->held[i - 1];
  if ((i > 0 && s->held[i - 1].hi > p.lo) ||
      (i < s->nheld && p.hi > s->held[i + 1].lo))
    return MPI_ERR_INTERN; /* overlaps: somebody's data twice */
  s->held[i] = p;
  s->nheld++;
  if (i + 1 < s->nheld && s->held[i].hi == s->held[i + 1].lo) {
    rc = pat_local_combine(s->held[i].data, s->held[i + 1].data, c->count,
                           c->datatype, c->op);
    s->held[i + 1].lo = s->held[i].lo;
    memmove(&s->held[i], &s->held[i + 1],
            (size_t)(--s->nheld - i) * sizeof *s->held);
  }
  if (rc == MPI_SUCCESS && i > 0 && s->held[i - 1].hi == s->held[i].lo) {
    rc = pat_local_combine(s->held[i - 1].data, s->held[i].data, c->count,
                           c->datatype, c->op);
    s->held[i].lo = s->held[i - 1].lo;
    memmove(&s->held[i - 1], &s->held[i],
            (size_t)(--s->nheld - i + 1) * sizeof *s->held);
  }
  return rc;
}

/* Combines the partial in (a child's, or a late one's) into *acc, a
 * commutative merge: the first merge off the root combines into the
 * message's own partial, which becomes acc (merge, the lean paths). */
static int merge_into(const pat_call *c, int v, char **acc, char *in,
                      int tracing) {
  double t0 = tracing ? PMPI_Wtime() : 0.0;
  int rc;
  if (*acc == (const char *)c->sendbuf && v != 0) {
    rc = pat_local_combine(c->sendbuf, in, c->count, c->datatype, c->op);
    *acc = in;
  } else {
    rc = pat_local_combine(in, *acc, c->count, c->datatype, c->op);
  }
  if (rc == MPI_SUCCESS && tracing)
    pat_trace_note(c, PAT_TRACE_COMBINE, -1, c->count, t0, PMPI_Wtime());
  return rc;
}

/* Merges a received message into acc; kid: the child it came from (-1:
 * a FWD), from: its sender if a FWD to the root.  Commutative: the first
 * merge off the root combines into the message's own partial, which
 * becomes acc; a forwarder's first late partial becomes acc as it is.  In
 * order: a child's PART before ours went (merge_next) is merged "acc (op)
 * its partial" into its message, which becomes acc; anything else (rank
 * 0's, a forwarder's) is held, run by run. */
static int merge(lrt *s, char *buf, int len, int kid, int from) {
  const pat_call *c = s->call;
  lrt_piece run[16], *runs = run;
  double t0 = s->tracing ? PMPI_Wtime() : 0.0;
  int r = 0, rc, trace = s->tracing;
  char *in;
  if (s->inorder && (s->P + 1) / 2 > 16 && s->runs == NULL &&
      (s->runs = malloc((size_t)(s->P + 1) / 2 * sizeof *s->runs)) == NULL)
    return MPI_ERR_NO_MEM;
  if (s->inorder && (s->P + 1) / 2 > 16)
    runs = s->runs;
  rc = open_part(s, buf, len, kid, from, &r, runs);
  in = rc == MPI_SUCCESS ? runs[0].data : NULL;
  if (rc != MPI_SUCCESS) {
  } else if (s->inorder && (s->v == 0 || s->sent)) {
    for (int i = 0; rc == MPI_SUCCESS && i < r; i++)
      rc = hold(s, runs[i]);
  } else if (s->inorder && (r != 1 || runs[0].lo != s->e || kid != s->next)) {
    rc = MPI_ERR_INTERN; /* merge_next takes the next one only */
  } else if (s->inorder) {
    rc = pat_local_combine(s->acc, in, c->count, c->datatype, c->op);
    s->acc = in;
    s->e = runs[0].hi;
  } else if (s->acc_empty) {
    s->acc_empty = 0;
    s->acc = in;
    trace = 0;
  } else {
    rc = merge_into(c, s->v, &s->acc, in, 0); /* traced below */
  }
  if (rc == MPI_SUCCESS && trace)
    pat_trace_note(c, PAT_TRACE_COMBINE, -1, c->count, t0, PMPI_Wtime());
  return rc;
}

/* In order, before our PART goes: whether the next child may still be
 * merged, i.e. it starts where our partial ends (the children's subtrees
 * follow one another; a child's PART cut short, ending before its subtree
 * does because it or a forwarder below it forwards the rest, leaves a gap
 * before the next: the partial is closed, every later child given up). */
static int taking_next(const lrt *s) {
  return s->next < s->nkids && s->kid[s->next].v == s->e;
}

/* In order, before our PART goes: the children that came are merged in
 * order while the partial is [v, e) with nothing missing. */
static int merge_next(lrt *s) {
  int rc = MPI_SUCCESS;
  while (rc == MPI_SUCCESS && taking_next(s) &&
         s->kid[s->next].state == K_ARRIVED) {
    s->kid[s->next].state = K_MERGED;
    rc = merge(s, s->kid[s->next].buf, s->kid[s->next].len, s->next, -1);
    s->next++;
  }
  return rc;
}

/* Writes our list and the r partials run into buf (cap bytes) as a
 * message; *pos its length. */
static int write_message(lrt *s, char *buf, int cap, int r,
                         const lrt_piece *run, int *pos) {
  const pat_call *c = s->call;
  int hdr[HDR_INTS] = {s->list[0], r}, rc;
  *pos = 0;
  if (s->raw) { /* partials at stride, the padding between them zeroed */
    *pos = put_raw_header(buf, s->list[0], r, run, s->inorder, s->list + 1);
    for (int i = 0; i < r; i++) {
      memcpy(buf + *pos + i * s->stride, run[i].data, (size_t)s->datasize);
      if (i + 1 < r)
        memset(buf + *pos + i * s->stride + s->datasize, 0,
               (size_t)(s->stride - s->datasize));
    }
    *pos += (r - 1) * s->stride + s->datasize;
    return MPI_SUCCESS;
  }
  rc = PMPI_Pack(hdr, HDR_INTS, MPI_INT, buf, cap, pos, c->priv);
  for (int i = 0; rc == MPI_SUCCESS && i < r; i++) {
    int lohi[2] = {s->inorder ? run[i].lo : 0, s->inorder ? run[i].hi : 0};
    rc = PMPI_Pack(lohi, 2, MPI_INT, buf, cap, pos, c->priv);
  }
  if (rc == MPI_SUCCESS)
    rc = PMPI_Pack(s->list + 1, s->list[0], MPI_INT, buf, cap, pos, c->priv);
  for (int i = 0; rc == MPI_SUCCESS && i < r; i++)
    rc = PMPI_Pack(run[i].data, c->count, c->datatype, buf, cap, pos, c->priv);
  return rc;
}

/* ROUTE(to_us) to child j, from its int in the arena. */
static int send_route(lrt *s, int j, int to_us) {
  int slot, rc = add_request(s, R_ROUTE_OUT, j, NULL, 0, &slot);
  s->routes[1 + j] = to_us;
  if (rc == MPI_SUCCESS)
    rc = PMPI_Isend(&s->routes[1 + j], 1, MPI_INT, rank_of(s, s->kid[j].v),
                    s->call->tag + TAG_FWD, s->call->priv, &s->rq[slot]);
  return rc;
}

/* A receive of the FWD child j owes us, then the ROUTE that tells it to
 * send it to us (the receive first: the FWD never waits unexpected). */
static int route_here(lrt *s, int j) {
  int size, rc = packed_size(s, subtree(s->kid[j].v, s->P),
                             fwd_runs(s, s->kid[j].v), &size);
  char *buf = NULL;
  if (rc == MPI_SUCCESS && (buf = malloc((size_t)size)) == NULL)
    rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS)
    rc = post_recv(s, R_FWD_IN, j, s->kid[j].v, buf, 1, size, TAG_FWD);
  s->owed += rc == MPI_SUCCESS;
  return rc == MPI_SUCCESS ? send_route(s, j, 1) : rc;
}

/* Child j's PART came after we gave it up (late: we gave it up as its due
 * time had passed; else in order with an earlier child, or it had come
 * already): merged into what we forward; if it forwards too, it forwards
 * to us.  Premature if late, after its due time, by less than half the
 * time we had waited for it (it was nearly on time: calls back to back, a
 * slow node). */
static int given_came(lrt *s, int j, int late) {
  lrt_kid *k = &s->kid[j];
  int rc;
  if (late && PMPI_Wtime() - k->due < (k->due - s->t0) / 2)
    s->premature = 1;
  k->state = K_DONE;
  s->owed--;
  rc = merge(s, k->buf, k->len, j, -1);
  if (rc == MPI_SUCCESS && k->fwds)
    rc = route_here(s, j);
  return rc;
}

/* Our PART to the parent: the children not merged yet are given up, and
 * we forward (the ROUTE our parent sends us is received first: it never
 * waits unexpected).  Then each child merged that forwards is told where
 * to: to us if we forward, else to the root. */
static int send_part(lrt *s) {
  const pat_call *c = s->call;
  int slot = -1, pos = 0, rc = MPI_SUCCESS;
  for (int j = 0; j < s->nkids; j++)
    if (s->kid[j].state == K_WAIT || s->kid[j].state == K_ARRIVED) {
      if (s->kid[j].state == K_WAIT) /* K_ARRIVED: given_came below */
        s->kid[j].state = K_GIVEN;
      s->kid[j].due_gone = PMPI_Wtime() >= s->kid[j].due;
      s->list[1 + s->list[0]++] = s->kid[j].v;
      s->owed++;
      s->fwding = 1;
    }
  if (s->fwding) {
    s->route = parent_of(s->v) == 0 ? 0 : -1;
    if ((s->seen = calloc((size_t)subtree(s->v, s->P), 1)) == NULL)
      rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && s->route < 0)
      rc = add_request(s, R_ROUTE_IN, -1, NULL, 0, &slot);
    if (rc == MPI_SUCCESS && s->route < 0)
      rc = pat_lr_irecv_rank(c, &s->routes[0], 1, MPI_INT,
                             rank_of(s, parent_of(s->v)), c->tag + TAG_FWD,
                             &s->rq[slot]);
  }
  /* a rank that forwards nothing has nothing to do meanwhile (its
   * parent's receive is posted from the start of its call): a blocking
   * send */
  if (rc == MPI_SUCCESS && s->fwding)
    rc = add_request(s, R_SEND, -1, s->sendbuf, 0, &slot);
  if (rc == MPI_SUCCESS)
    rc = write_message(s, s->sendbuf, s->sendcap, 1,
                       &(lrt_piece){s->v, s->e, s->acc}, &pos);
  if (rc == MPI_SUCCESS && s->fwding)
    rc = PMPI_Isend(s->sendbuf, pos, s->wire, rank_of(s, parent_of(s->v)),
                    c->tag + TAG_PART, c->priv, &s->rq[slot]);
  else if (rc == MPI_SUCCESS)
    rc = PMPI_Send(s->sendbuf, pos, s->wire, rank_of(s, parent_of(s->v)),
                   c->tag + TAG_PART, c->priv);
  s->sent = 1;
  if (rc == MPI_SUCCESS &&
      s->fwding) { /* the list and acc start again: what we forward */
    s->list[0] = 0;
    s->acc_empty = 1; /* not acc = NULL: that is MPI_BOTTOM */
    for (int j = 0; j < s->nkids; j++)
      if (s->kid[j].state == K_GIVEN || s->kid[j].state == K_ARRIVED) {
        s->seen[s->kid[j].v - s->v] = 1;
        s->list[1 + s->list[0]++] = s->kid[j].v;
      }
  }
  for (int j = 0; rc == MPI_SUCCESS && j < s->nkids; j++)
    if (s->kid[j].state == K_MERGED && s->kid[j].fwds)
      rc = s->fwding ? route_here(s, j) : send_route(s, j, 0);
  /* in order: the children given up after their PART came (held) */
  for (int j = 0; rc == MPI_SUCCESS && j < s->nkids; j++)
    if (s->kid[j].state == K_ARRIVED)
      rc = given_came(s, j, 0);
  /* in order, the root other than rank 0: the result comes from rank 0
   * (posted once our contribution has gone: it may be the receive
   * buffer) */
  if (rc == MPI_SUCCESS && s->inorder && c->rank == c->root)
    rc = add_request(s, R_RESULT, -1, NULL, 0, &slot);
  if (rc == MPI_SUCCESS && s->inorder && c->rank == c->root)
    rc = pat_lr_irecv_rank(c, c->recvbuf, s->datasize, MPI_BYTE, 0,
                           c->tag + TAG_FWD, &s->rq[slot]);
  return rc;
}

/* Our FWD, once everything we forward is merged and we know where to. */
static int send_fwd(lrt *s) {
  int slot, pos = 0, cap, rc;
  rc = packed_size(s, subtree(s->v, s->P), fwd_runs(s, s->v), &cap);
  if (rc == MPI_SUCCESS && (s->fwdbuf = malloc((size_t)cap)) == NULL)
    rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS && s->inorder &&
      (s->nheld < 1 || s->nheld > fwd_runs(s, s->v)))
    rc = MPI_ERR_INTERN; /* a forwarder has at least a given-up child's */
  if (rc == MPI_SUCCESS && s->inorder)
    rc = write_message(s, s->fwdbuf, cap, s->nheld, s->held, &pos);
  else if (rc == MPI_SUCCESS)
    rc = write_message(s, s->fwdbuf, cap, 1, &(lrt_piece){0, 0, s->acc}, &pos);
  if (rc == MPI_SUCCESS)
    rc = add_request(s, R_FWD_OUT, -1, NULL, 0, &slot);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Isend(s->fwdbuf, pos, s->wire, rank_of(s, s->route),
                    s->call->tag + TAG_FWD, s->call->priv, &s->rq[slot]);
  s->fwd_sent = 1;
  return rc;
}

/* Ready to send: every child merged or past its due time; in order,
 * the partial closed or the next child past its due time.  The clock is
 * the poll's: a poll returns empty-handed only at its deadline, next_due
 * (expired), and any completion clears expired, so the test runs against
 * the due times as they are after every merge, with no clock read here. */
static int ready(const lrt *s) {
  if (s->inorder)
    return !taking_next(s) || s->expired;
  for (int j = 0; j < s->nkids; j++)
    if (s->kid[j].state == K_WAIT)
      return s->expired;
  return 1;
}

/* When ready() turns true with no message: the latest due time of the
 * children still waited for. */
static double next_due(const lrt *s) {
  double d = -1.0 / 0.0;
  if (s->inorder)
    return !taking_next(s) ? d : s->kid[s->next].due;
  for (int j = 0; j < s->nkids; j++)
    if (s->kid[j].state == K_WAIT && s->kid[j].due > d)
      d = s->kid[j].due;
  return d;
}

/* Child j's PART came, len bytes in its buffer. */
static int kid_came(lrt *s, int j, int len) {
  lrt_kid *k = &s->kid[j];
  k->len = len;
  if (k->state == K_WAIT && s->inorder && s->v != 0) {
    k->state = K_ARRIVED; /* merged in order (merge_next) */
    return merge_next(s);
  }
  if (k->state == K_WAIT) {
    k->state = K_MERGED;
    return merge(s, k->buf, len, j, -1);
  }
  return given_came(s, j, k->due_gone);
}

/* Request slot i completed. */
static int on_done(lrt *s, int i, const MPI_Status *st) {
  int rc = MPI_SUCCESS, len = 0, j = s->meta[i].who;
  lrt_req *m = &s->meta[i];
  if (m->what == R_SEND || m->what == R_FWD_OUT || m->what == R_ROUTE_OUT ||
      m->what == R_RESULT)
    return MPI_SUCCESS;        /* a send of ours, or the result, completed */
  if (m->what == R_ROUTE_IN) { /* 1: to our parent, 0: to the root */
    if (s->routes[0] != 0 && s->routes[0] != 1)
      return MPI_ERR_INTERN;
    s->route = s->routes[0] ? parent_of(s->v) : 0;
    return MPI_SUCCESS;
  }
  rc = PMPI_Get_count(st, s->wire, &len);
  if (s->tracing)
    pat_trace_note(s->call, PAT_TRACE_RECV, st->MPI_SOURCE, s->call->count,
                   m->posted, PMPI_Wtime());
  if (rc != MPI_SUCCESS)
    return rc;
  if (m->what == R_FWD_IN && s->v == 0) {
    char *buf = m->buf;
    rc = merge(s, buf, len, -1, j); /* may post receives: m may move */
    if (!s->inorder) { /* in order its runs are held: kept to the end */
      free(buf);
      s->meta[i].buf = NULL;
      s->meta[i].heap = 0;
    }
    s->fwd_live--;
    return rc == MPI_SUCCESS ? post_fwds(s) : rc;
  }
  if (m->what == R_FWD_IN) { /* a routed FWD: its buffer may become acc */
    s->owed--;
    return merge(s, m->buf, len, -1, -1);
  }
  return kid_came(s, j, len);
}

/* Done: our PART out (the root sends none), our FWD if we forward, and
 * nothing pending. */
static int finished(const lrt *s) {
  if ((s->v != 0 && !s->sent) || s->nfwdq > 0 || (s->fwding && !s->fwd_sent))
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
    s->expired = rc == MPI_SUCCESS && !got;
    if (rc != MPI_SUCCESS || !got)
      return rc; /* the due time: the loop gives the child up */
  } else {
    rc = PMPI_Waitany(s->nrq, s->rq, &idx, &st);
  }
  if (rc != MPI_SUCCESS || idx == MPI_UNDEFINED)
    return rc != MPI_SUCCESS ? rc : MPI_ERR_INTERN; /* nothing to wait for */
  return on_done(s, idx, &st);
}

/* Whether a raw message of len bytes at buf is a plain PART of a
 * commutative call: it names nobody and holds one partial (datasize
 * bytes), so merging it is one combine (merge's commutative case, with
 * open_part's checks).  len < 0: not counted; the lean paths count only
 * what they hand over, since every rank writes a PART that names nobody
 * and holds one partial with exactly that length (write_message,
 * leaf_part, lean_run).  That holds where every rank passes the same
 * count and datatype, as MPI requires of a reduction.  A child that
 * passed fewer elements is combined with what its slot held before, one
 * that passed more with its first datasize bytes (within the slot's
 * padding) or fails with MPI_ERR_TRUNCATE; the other rows do not count
 * what they receive either (README, Known limitations). */
static int plain(const char *buf, int len, int datasize) {
  int hdr[HDR_INTS];
  if (len >= 0 && len != raw_header(0, 1) + datasize)
    return 0;
  memcpy(hdr, buf, sizeof hdr);
  return hdr[0] == 0 && hdr[1] == 1;
}

/* A blocking receive in turn of a child's PART from rank into buf (cap
 * bytes of wire), *st its status, traced as the loop's receives are: a
 * message there before its receive, and its arrival. */
static int recv_in_turn(const pat_call *c, char *buf, int cap,
                        MPI_Datatype wire, int rank, int tracing,
                        MPI_Status *st) {
  double posted = tracing ? PMPI_Wtime() : 0.0;
  int rc =
      tracing ? pat_lr_note_early(c, rank, c->tag + TAG_PART) : MPI_SUCCESS;
  if (rc == MPI_SUCCESS)
    rc = PMPI_Recv(buf, cap, wire, rank, c->tag + TAG_PART, c->priv, st);
  if (rc == MPI_SUCCESS && tracing)
    pat_trace_note(c, PAT_TRACE_RECV, rank, c->count, posted, PMPI_Wtime());
  return rc;
}

/* The root of a call of at most SMALL_BYTES a partial receives its
 * children's PARTs in turn, blocking, as binomial does:
 * MPI_Recv costs a rank less CPU than MPI_Irecv and MPI_Waitany ("CPU
 * per call" above; callgrind, P = 4, 4 B: 790 instructions a child
 * against 1075).  The root gives nobody up, so the order costs only
 * where a child is late and a later one's partial waits behind it: m
 * gamma.  Every other receive (the FWDs) is posted as before, and
 * progresses while the root blocks: nothing a child's PART waits for is
 * the root's.  But the FWDs a later child's list announces are posted
 * only once that child's PART is received, behind the late one, and a
 * message moves only once its receive is posted (SMPI by default, or a
 * real network above its eager limit): with every odd rank late (SMPI, P
 * = 128, 8 B) the tree took 1.08x binomial's time receiving in turn,
 * against 1.01x.  So the root receives in turn only while its last call
 * on the communicator read no list (pat_lr_tree_unrest): calls back to
 * back with nobody given up. */
static int kids_in_turn(lrt *s, int from) {
  const pat_call *c = s->call;
  int rc = MPI_SUCCESS;
  for (int j = from; rc == MPI_SUCCESS && j < s->nkids; j++) {
    int len = 0;
    MPI_Status st;
    rc = recv_in_turn(c, s->kid[j].buf, s->sendcap, s->wire,
                      rank_of(s, s->kid[j].v), s->tracing, &st);
    if (rc == MPI_SUCCESS)
      rc = PMPI_Get_count(&st, s->wire, &len);
    if (rc == MPI_SUCCESS && !s->inorder && s->raw &&
        plain(s->kid[j].buf, len, s->datasize)) {
      s->kid[j].state = K_MERGED;
      s->kid[j].len = len;
      rc = merge_into(c, 0, &s->acc, s->kid[j].buf + raw_header(0, 1),
                      s->tracing);
    } else if (rc == MPI_SUCCESS) {
      rc = kid_came(s, j, len);
    }
  }
  return rc;
}

/* How many children v has (its lowest set bit's powers below it, in the
 * tree). */
static int kids_of(int v, int P) {
  int low = v == 0 ? P : (v & -v), n = 0;
  while ((1 << n) < low && v + (1 << n) < P)
    n++;
  return n;
}

/* A raw message's slot in the arena: a list up to v's subtree, one
 * partial of stride bytes, 16-byte aligned. */
static int raw_slot(int v, int P, int stride) {
  return (raw_header(subtree(v, P) - 1, 1) + stride + 15) / 16 * 16;
}

/* The arena's bytes: a slot per child and (not the root) our own, then at
 * *at the list and the ROUTE ints. */
static size_t arena_bytes(int v, int P, int nkids, int slot, size_t *at) {
  *at = (size_t)slot * (size_t)(nkids + (v != 0));
  return *at + (size_t)(subtree(v, P) + 1 + 1 + nkids) * sizeof(int);
}

/* The arena: the communicator's scratch, else the heap (*heap). */
static char *take_arena(const pat_call *c, size_t total, int *heap) {
  char *a = c->state != NULL
                ? pat_comm_state_scratch_take(c->state, PAT_SCRATCH_EXEC, total)
                : NULL;
  *heap = a == NULL;
  return a != NULL ? a : malloc(total);
}

static void give_arena(const pat_call *c, char *arena, int heap) {
  if (heap)
    free(arena);
  else if (arena != NULL)
    pat_comm_state_scratch_give(c->state, PAT_SCRATCH_EXEC, arena);
}

/* The arena (the communicator's scratch, else the heap: never this
 * call's stack, as after an error a send may still read it): each child's
 * PART and our own (a list up to our subtree; the root sends none), our
 * list.  The children's receives are posted here, but at a root that
 * receives in turn (kids_in_turn).  With l, what the lean path did is
 * adopted instead: its arena, its receives, the PARTs it merged and where
 * the partial is. */
static int start(lrt *s, const lrt_lean *l) {
  const pat_call *c = s->call;
  int rc = MPI_SUCCESS;
  size_t total, at;
  s->raw = c->type.contiguous;
  s->wire = s->raw ? MPI_BYTE : MPI_PACKED;
  if (s->raw)
    s->datasize = (int)(c->type.size * c->count);
  else
    rc = PMPI_Pack_size(c->count, c->datatype, c->priv, &s->datasize);
  s->stride = s->raw ? (s->datasize + 15) / 16 * 16 : s->datasize;
  /* room for the longest list below us in every message (one query) */
  if (rc == MPI_SUCCESS && s->raw)
    s->sendcap = raw_slot(s->v, s->P, s->stride);
  else if (rc == MPI_SUCCESS)
    rc = packed_size(s, subtree(s->v, s->P) - 1, 1, &s->sendcap);
  if (rc != MPI_SUCCESS)
    return rc;
  s->sendcap = (s->sendcap + 15) / 16 * 16; /* aligned slots */
  s->nkids = kids_of(s->v, s->P);
  for (int j = 0; j < s->nkids; j++) {
    lrt_kid *k = &s->kid[j];
    k->v = s->v + (1 << j);
    k->due = s->t0 + (j + 1) * (s->unit + s->slack);
    k->state = K_WAIT;
    k->fwds = 0;
    k->buf = NULL;
    k->len = 0;
  }
  total = arena_bytes(s->v, s->P, s->nkids, s->sendcap, &at);
  s->window = s->nkids + 1;
  if (l != NULL) { /* the lean path's, laid out alike */
    s->arena = l->arena;
    s->arena_heap = l->arena_heap;
  } else if ((s->arena = take_arena(c, total, &s->arena_heap)) == NULL) {
    return MPI_ERR_NO_MEM;
  }
  s->list = (int *)(void *)(s->arena + at);
  s->list[0] = 0;
  s->routes = s->list + subtree(s->v, s->P) + 1;
  s->acc = (char *)c->sendbuf;
  if (l != NULL) {
    s->acc = l->acc; /* the lean path's partial (the root's: recvbuf) */
  } else if (s->v == 0 && c->rank == c->root) {
    s->acc = c->recvbuf;
    if (c->sendbuf != c->recvbuf)
      rc = pat_local_copy_info(c->sendbuf, c->recvbuf, c->count, c->datatype,
                               &c->type);
  } else if (s->v == 0) { /* in order, rank 0: the result goes to the root */
    rc = pat_tmpbuf_alloc(&s->tmp[0], c->count, c->datatype);
    s->acc = s->tmp[0].base;
    if (rc == MPI_SUCCESS)
      memcpy(s->acc, c->sendbuf, (size_t)s->datasize);
  }
  if (rc == MPI_SUCCESS && s->inorder && s->v == 0) /* rank 0's own run */
    rc = hold(s, (lrt_piece){0, 1, s->acc});
  for (int j = 0; rc == MPI_SUCCESS && j < s->nkids; j++) {
    int slot;
    s->kid[j].buf = s->arena + (size_t)j * (size_t)s->sendcap;
    if (l != NULL) { /* its receive if posted (at most LRT_INLINE: they
                      * fit the inline slots); its PART, maybe merged */
      if (l->rq[j] != MPI_REQUEST_NULL &&
          (rc = add_request(s, R_KID, j, s->kid[j].buf, 0, &slot)) ==
              MPI_SUCCESS)
        s->rq[slot] = l->rq[j];
      if (l->merged & 1u << j) {
        s->kid[j].state = K_MERGED;
        s->kid[j].len = raw_header(0, 1) + s->datasize;
      }
    } else if (!s->in_turn) {
      rc = post_recv(s, R_KID, j, s->kid[j].v, s->kid[j].buf, 0, s->sendcap,
                     TAG_PART);
    }
  }
  if (l != NULL)
    s->expired = l->expired;
  s->sendbuf =
      s->v != 0 ? s->arena + (size_t)s->nkids * (size_t)s->sendcap : NULL;
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
        (m->what == R_KID || m->what == R_FWD_IN || m->what == R_ROUTE_IN ||
         m->what == R_RESULT) &&
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
  free(s->seen);
  free(s->held);
  free(s->runs);
  if (!busy)
    free(s->fwdbuf);
  if (!busy)
    give_arena(s->call, s->arena, s->arena_heap);
  for (int k = 0; !busy && k < 2; k++)
    if (s->tmp[k].raw != NULL) /* owned (tmp[1] may be carved from tmp[0]) */
      pat_tmpbuf_free(&s->tmp[k]);
}

/* The lean path's arena for v's n children, laid out as start lays out a
 * raw call's, with no receive posted yet: its slot size, or 0 without
 * memory (l->done: nothing to hand over). */
static int lean_arena(const pat_call *c, int v, int n, int datasize,
                      lrt_lean *l) {
  int slot = raw_slot(v, c->nranks, (datasize + 15) / 16 * 16);
  size_t at, total = arena_bytes(v, c->nranks, n, slot, &at);
  for (int j = 0; j < n; j++)
    l->rq[j] = MPI_REQUEST_NULL;
  l->arena = take_arena(c, total, &l->arena_heap);
  l->done = l->arena == NULL;
  return l->arena != NULL ? slot : 0;
}

/* Whether a rank's call may run lean_run: one with children (not the
 * root), commutative, on a contiguous datatype, with at most LRT_INLINE
 * children (P up to 512). */
static int lean_fits(const pat_call *c, int v) {
  return v != 0 && has_children(v, c->nranks) && c->commutative &&
         c->type.contiguous && kids_of(v, c->nranks) <= LRT_INLINE;
}

/* The common call of a rank with children (lean_fits) while every child's
 * PART is plain and comes before the latest due time of those still
 * waited for (as in the loop: ready), with less CPU than the
 * general loop ("CPU per call" above): no call state but this, the
 * receives posted into the arena as start lays it out, a combine per
 * child, and our PART sent blocking from the buffer of the child merged
 * first, where the partial is (its header rewritten as ours: no list, one
 * partial).  A due time passed, a PART that is not plain or an MPI error:
 * l is handed over (start adopts it). */
static int lean_run(const pat_call *c, int v, int base, int tracing,
                    lrt_lean *l) {
  int P = c->nranks, n = kids_of(v, P), hdr = raw_header(0, 1);
  int datasize = (int)(c->type.size * c->count), rc = MPI_SUCCESS, left = n;
  int slot = lean_arena(c, v, n, datasize, l);
  if (slot == 0)
    return MPI_ERR_NO_MEM;
  l->t0 = PMPI_Wtime();
  l->unit = pat_model_round_cost(pat_config_model(pat_config_get()), c->bytes);
  l->slack = pat_lr_tree_slack(c, l->unit);
  l->acc = (char *)c->sendbuf;
  for (int j = 0; rc == MPI_SUCCESS && j < n; j++)
    rc = irecv_noted(c, l->arena + (size_t)j * (size_t)slot, slot, MPI_BYTE,
                     rank_at(v + (1 << j), base, P), c->tag + TAG_PART, tracing,
                     &l->rq[j]);
  while (rc == MPI_SUCCESS && left > 0) {
    int idx = MPI_UNDEFINED, got = 0, top = n - 1;
    MPI_Status st;
    while (l->rq[top] == MPI_REQUEST_NULL) /* the latest due waited for */
      top--;
    rc = pat_lr_poll(n, l->rq, l->t0 + (top + 1) * (l->unit + l->slack),
                     l->unit / 32, &idx, &got, &st);
    if (rc == MPI_SUCCESS && !got) {
      l->expired = 1; /* the loop gives the rest up */
      return rc;
    }
    if (rc == MPI_SUCCESS && idx == MPI_UNDEFINED)
      rc = MPI_ERR_INTERN; /* nothing to wait for */
    if (rc == MPI_SUCCESS && tracing)
      pat_trace_note(c, PAT_TRACE_RECV, st.MPI_SOURCE, c->count, l->t0,
                     PMPI_Wtime());
    if (rc == MPI_SUCCESS &&
        !plain(l->arena + (size_t)idx * (size_t)slot, -1, datasize)) {
      l->came = idx; /* the loop merges it */
      return PMPI_Get_count(&st, MPI_BYTE, &l->came_len);
    }
    if (rc == MPI_SUCCESS)
      rc = merge_into(c, v, &l->acc,
                      l->arena + (size_t)idx * (size_t)slot + hdr, tracing);
    l->merged |= rc == MPI_SUCCESS ? 1u << idx : 0u;
    left--;
  }
  if (rc != MPI_SUCCESS)
    return rc; /* the loop's finish cancels what is posted */
  put_raw_header(l->acc - hdr, 0, 1, &(lrt_piece){0, 0, NULL}, 0, NULL);
  rc = PMPI_Send(l->acc - hdr, hdr + datasize, MPI_BYTE,
                 rank_at(parent_of(v), base, P), c->tag + TAG_PART, c->priv);
  l->done = 1;
  give_arena(c, l->arena, l->arena_heap);
  if (rc == MPI_SUCCESS)
    pat_lr_tree_learn(c, l->unit, l->slack, 0);
  return rc;
}

/* Whether the root receives in turn (kids_in_turn): a partial of at most
 * SMALL_BYTES, and its last call as the tree's root on the communicator
 * read no list (not unrest: pat_lr_tree_unrest). */
static int in_turn(const pat_call *c, int v, int unrest) {
  return v == 0 && c->type.size * (double)c->count <= SMALL_BYTES && !unrest;
}

/* Whether the root's call may run lean_root: in turn, commutative, on a
 * contiguous datatype, with at most LRT_INLINE children (P up to 256). */
static int lean_root_fits(const pat_call *c, int v, int unrest) {
  return in_turn(c, v, unrest) && c->commutative && c->type.contiguous &&
         kids_of(0, c->nranks) <= LRT_INLINE;
}

/* The root's common call (lean_root_fits): its children's plain PARTs
 * received in turn into the arena (laid out as start does) and combined
 * into the receive buffer, with no call state but l.  A PART that is not
 * plain hands the call over at that child: start adopts l, the loop
 * merges that PART, and kids_in_turn goes on from the next.  An MPI error
 * ends the call (nothing is posted). */
static int lean_root(const pat_call *c, int tracing, lrt_lean *l) {
  int P = c->nranks, n = kids_of(0, P), hdr = raw_header(0, 1);
  int datasize = (int)(c->type.size * c->count), rc = MPI_SUCCESS;
  int slot = lean_arena(c, 0, n, datasize, l);
  if (slot == 0)
    return MPI_ERR_NO_MEM;
  l->acc = c->recvbuf;
  if (c->sendbuf != c->recvbuf)
    rc = pat_local_copy_info(c->sendbuf, c->recvbuf, c->count, c->datatype,
                             &c->type);
  for (int j = 0; rc == MPI_SUCCESS && j < n; j++) {
    char *buf = l->arena + (size_t)j * (size_t)slot;
    MPI_Status st;
    rc = recv_in_turn(c, buf, slot, MPI_BYTE, rank_at(1 << j, c->root, P),
                      tracing, &st);
    if (rc == MPI_SUCCESS && !plain(buf, -1, datasize)) {
      l->came = j; /* the loop merges it */
      return PMPI_Get_count(&st, MPI_BYTE, &l->came_len);
    }
    if (rc == MPI_SUCCESS)
      rc = merge_into(c, 0, &l->acc, buf + hdr, tracing);
    l->merged |= rc == MPI_SUCCESS ? 1u << j : 0u;
  }
  l->done = 1; /* also after an error: nothing is posted */
  give_arena(c, l->arena, l->arena_heap);
  return rc;
}

/* A leaf's PART of a small contiguous partial, its header written as
 * write_message's (put_raw_header: no list, one partial, in order its run
 * [v, v + 1)), built on the stack and sent blocking: a leaf waits for
 * nothing and learns nothing, so it needs no call state, arena or request
 * ("CPU per call" above). */
static int leaf_part(const pat_call *c, int v, int base) {
  int size = (int)(c->type.size * c->count), hdr;
  _Alignas(16) char buf[SMALL_BYTES];
  hdr = put_raw_header(buf, 0, 1, &(lrt_piece){v, v + 1, NULL}, !c->commutative,
                       NULL);
  memcpy(buf + hdr, c->sendbuf, (size_t)size);
  return PMPI_Send(buf, hdr + size, MPI_BYTE,
                   rank_at(parent_of(v), base, c->nranks), c->tag + TAG_PART,
                   c->priv);
}

/* Whether this rank is a leaf (no children; not the root, which in order
 * also waits for the result) whose PART fits leaf_part's buffer. */
static int small_leaf(const pat_call *c, int v) {
  return v != 0 && !has_children(v, c->nranks) && c->rank != c->root &&
         c->type.contiguous &&
         raw_header(0, 1) + c->type.size * (double)c->count <= SMALL_BYTES;
}

/* A call of a rank that is not a small leaf: a lean path, then the
 * general loop from where it stopped. */
static int tree_call(const pat_call *c, int v, int base) {
  lrt s;
  lrt_lean l = {.came = -1};
  int rc = MPI_SUCCESS, tracing, unrest;
  tracing = pat_trace_on(c);
  unrest = v == 0 && pat_lr_tree_unrest(c);
  if (lean_fits(c, v)) {
    rc = lean_run(c, v, base, tracing, &l);
    if (l.done)
      return rc;
  } else if (lean_root_fits(c, v, unrest)) {
    rc = lean_root(c, tracing, &l);
    if (l.done)
      return rc;
  }
  memset(&s, 0, offsetof(lrt, kid));
  s.call = c;
  s.P = c->nranks;
  s.inorder = !c->commutative;
  s.base = base;
  s.v = v;
  s.e = s.v + 1;
  s.tracing = tracing;
  s.rq = s.rq_inline;
  s.meta = s.meta_inline;
  s.caprq = LRT_INLINE;
  s.route = -1;
  if (l.arena != NULL && v != 0) { /* lean_run's due times */
    s.t0 = l.t0;
    s.unit = l.unit;
    s.slack = l.slack;
  } else if (s.v != 0 && has_children(s.v, s.P)) {
    s.t0 = PMPI_Wtime();
    s.unit = pat_model_round_cost(pat_config_model(pat_config_get()), c->bytes);
    s.slack = pat_lr_tree_slack(c, s.unit);
  }
  s.in_turn = in_turn(c, v, unrest); /* as lean_root_fits saw it */
  {
    int lrc = start(&s, l.arena != NULL ? &l : NULL);
    rc = rc != MPI_SUCCESS ? rc : lrc;
  }
  if (rc == MPI_SUCCESS && l.came >= 0)
    rc = kid_came(&s, l.came, l.came_len);
  if (rc == MPI_SUCCESS && s.in_turn)
    rc = kids_in_turn(&s, l.came + 1);
  while (rc == MPI_SUCCESS) {
    if (s.v != 0 && !s.sent && ready(&s))
      rc = send_part(&s);
    if (rc == MPI_SUCCESS && s.fwding && !s.fwd_sent && s.owed == 0 &&
        s.route >= 0)
      rc = send_fwd(&s);
    if (rc != MPI_SUCCESS || finished(&s))
      break;
    rc = next_event(&s);
  }
  /* in order, rank 0: everything combined; the result to the root */
  if (rc == MPI_SUCCESS && s.inorder && s.v == 0 &&
      (s.nheld != 1 || s.held[0].lo != 0 || s.held[0].hi != s.P))
    rc = MPI_ERR_INTERN;
  if (rc == MPI_SUCCESS && s.inorder && s.v == 0 && s.held[0].data != s.acc)
    memcpy(s.acc, s.held[0].data, (size_t)s.datasize);
  if (rc == MPI_SUCCESS && s.inorder && s.v == 0 && c->rank != c->root)
    rc = PMPI_Send(s.acc, s.datasize, MPI_BYTE, c->root, c->tag + TAG_FWD,
                   c->priv);
  if (rc == MPI_SUCCESS && s.nkids > 0 && s.v != 0)
    pat_lr_tree_learn(c, s.unit, s.slack, s.premature);
  if (rc == MPI_SUCCESS && s.v == 0 && (s.seen != NULL) != unrest)
    pat_lr_tree_root_learn(c, s.seen != NULL);
  finish(&s);
  return rc;
}

int pat_lr_tree_run(const pat_call *c) {
  int base = c->commutative ? c->root : 0;
  int v = (c->rank - base + c->nranks) % c->nranks;
  return small_leaf(c, v) ? leaf_part(c, v, base) : tree_call(c, v, base);
}

static int by_time(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* For auto (localredirect.c's estimate; commutative ops): the protocol
 * walked under the arrivals as binomial's estimate walks its tree (each
 * rank takes its children's PARTs in round order, one message at a time,
 * and combines each while the next one flows), with the due times above:
 * unit and slack as a call starts them (what a communicator learned of
 * its slack is one rank's and is not weighed: every rank must weigh the
 * same).  A child whose PART would come after its due time is given up:
 * its parent's PART leaves at that due time at the latest, and the
 * child's data goes on as a FWD, combined at the forwarder once its PART
 * came, then sent to the forwarder's parent if that forwards too (gave a
 * child up), else to the root.  The root gives nobody up and merges the
 * FWDs as they come, one combine each, after its own children (at most
 * a combine per FWD too late).  Balanced nobody is given up (a child's
 * PART comes a round after its subtree is done, due a round and the
 * slack later) and the walk is binomial's.  One rank late by delta:
 * about max(ceil(log2 P) + 1 rounds, delta + 2 rounds) after the
 * earliest arrival; binomial's walk takes delta + the rounds above it.
 * O(P), and O(F log F) for the F FWDs that reach the root. */
double pat_lr_tree_estimate(const pat_sched_params *p, double unit,
                            double slack) {
  int P = p->nranks, nroot = 0;
  double m = (double)p->count * p->elem_size;
  double wire = p->model.alpha + m * p->model.beta, work = m * p->model.gamma;
  double *ready = malloc(3 * (size_t)(P > 0 ? P : 1) * sizeof *ready);
  double *fwd = ready + P, *at_root = fwd + P, t;
  if (ready == NULL)
    return INFINITY;
  for (int v = P - 1; v >= 0; v--) {
    double own = p->arrivals != NULL ? p->arrivals[(p->root + v) % P] : 0;
    double port = own, done = own, out;
    unsigned long long gave = 0; /* bit j: child v + 2^j given up */
    for (int j = 0, mask = 1; mask < P && !(v & mask); mask <<= 1, j++) {
      double come, due = own + (j + 1) * (unit + slack);
      if (v + mask >= P)
        continue;
      come = (ready[v + mask] > port ? ready[v + mask] : port) + wire;
      if (v != 0 && come > due) {
        gave |= 1ull << j;
        done = done > due ? done : due;
      } else {
        port = come;
        done = (port > done ? port : done) + work;
      }
    }
    ready[v] = done;
    /* what it forwards: its given-up children's PARTs, then the FWDs of
     * its children that forward (to the root where it forwards nothing,
     * and at the root) */
    out = done;
    for (int j = 0, mask = 1; gave && mask < P && !(v & mask); mask <<= 1, j++)
      if (gave & (1ull << j))
        out = fmax(out, ready[v + mask] + wire) + work;
    for (int mask = 1; mask < P && !(v & mask); mask <<= 1)
      if (v + mask < P && fwd[v + mask] > -INFINITY) {
        if (gave && v != 0)
          out = fmax(out, fwd[v + mask] + wire) + work;
        else
          at_root[nroot++] = fwd[v + mask] + wire;
      }
    fwd[v] = gave ? out : -INFINITY;
  }
  t = P > 0 ? ready[0] : 0;
  qsort(at_root, (size_t)nroot, sizeof *at_root, by_time);
  for (int i = 0; i < nroot; i++)
    t = fmax(t, at_root[i]) + work;
  free(ready);
  return t - pat_sched_first_arrival(p);
}
