/*
 * Schedules: a reduction written down as data.
 *
 * A schedule holds, for each rank of a communicator of nranks processes, a
 * program: a list of operations on (slot, element range).  Its meaning is
 * program order: the result is what running each program's operations one
 * after the other gives, a receive taking what the matching send read.
 * The executor runs it as a dataflow: an operation starts as soon as every
 * earlier operation of the same program that touches an overlapping range
 * of the same slot (where one of the two writes it) has finished, so a late
 * peer delays only what depends on it.  Sends to one peer are posted in
 * program order, and so are receives from one peer: the k-th send from a to
 * b matches b's k-th receive from a (one tag per call is enough).
 *
 * Rounds (non-decreasing along a program) are the matching key: a send and
 * its receive carry the same round, which the validator checks.  A schedule
 * that the validator accepts cannot deadlock: it checks that the dataflow
 * completes even when every send waits for its receive (rendezvous) and an
 * operation may start only once every operation of an earlier round of its
 * program has finished, the least the executor ever allows.
 *
 * Operations name buffers by slot: PAT_SLOT_SEND is the user's send buffer
 * (read only; it is the receive buffer when the root passes MPI_IN_PLACE),
 * PAT_SLOT_RECV the user's receive buffer (root only), and PAT_SLOT_TMP0 + k
 * temporary buffers of the executor.  Element ranges count datatype
 * elements, so a schedule for count elements covers [0, count).
 *
 * COMBINE computes dst = src (op) dst, exactly MPI_Reduce_local(src, dst):
 * src is the left operand, dst the right one.
 */
#ifndef PAT_SCHEDULE_H
#define PAT_SCHEDULE_H

#include <stdio.h>

#include <mpi.h>

#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pat_sched_kind {
  PAT_SCHED_SEND = 0, /* send slot src [offset, offset+count) to peer */
  PAT_SCHED_RECV,     /* receive from peer into slot dst [offset, ...) */
  PAT_SCHED_COMBINE,  /* dst = src (op) dst over [offset, offset+count) */
  PAT_SCHED_COPY      /* dst = src over [offset, offset+count) */
} pat_sched_kind;

/* Slots: the user's buffers, then temporaries PAT_SLOT_TMP0 .. up to (not
 * including) PAT_SLOT_MAX, each able to hold count elements. */
enum {
  PAT_SLOT_SEND = 0,
  PAT_SLOT_RECV = 1,
  PAT_SLOT_TMP0 = 2,
  PAT_SLOT_MAX = PAT_SLOT_TMP0 + 16
};

typedef struct pat_sched_op {
  pat_sched_kind kind;
  int round;  /* rounds are non-decreasing along a rank's program */
  int peer;   /* SEND, RECV: the other rank; -1 otherwise */
  int src;    /* slot read (SEND, COMBINE, COPY); -1 for RECV */
  int dst;    /* slot written (RECV, COMBINE, COPY); -1 for SEND */
  int offset; /* first element */
  int count;  /* number of elements */
} pat_sched_op;

/* What a builder needs to know about a call. */
typedef struct pat_sched_params {
  int nranks;      /* communicator size, >= 1 */
  int root;        /* 0 <= root < nranks */
  int count;       /* elements per rank, >= 0 */
  int commutative; /* nonzero if the op is commutative */
  int in_place;    /* nonzero if the root passes MPI_IN_PLACE */
  /* The cost model: alpha + bytes beta per message, bytes gamma per
   * combine, with elem_size bytes per element (the datatype's size).
   * Builders that plan by time (clairvoyant) need alpha + count elem_size
   * (beta + gamma) > 0; others ignore the model. */
  pat_model model;
  double elem_size;
  /* For clairvoyant builders (others ignore them): when each rank arrives
   * (nranks entries, seconds, any common origin). */
  const double *arrivals;
} pat_sched_params;

/* The cost of one round of an atomic algorithm under params' model:
 * receive + combine of count elements. */
double pat_sched_round_cost(const pat_sched_params *params);

typedef struct pat_schedule pat_schedule;

/* An empty schedule for params (no rank has a program yet). */
int pat_schedule_alloc(const pat_sched_params *params, pat_schedule **out);
void pat_schedule_free(pat_schedule *sched); /* accepts NULL */

/* Appends one operation to rank's program. */
int pat_schedule_add(pat_schedule *sched, int rank, const pat_sched_op *op);

/* Marks rank's program as present (also when it has no operation). */
int pat_schedule_mark_built(pat_schedule *sched, int rank);

const pat_sched_params *pat_schedule_params(const pat_schedule *sched);
int pat_schedule_has_rank(const pat_schedule *sched, int rank);
int pat_schedule_nops(const pat_schedule *sched, int rank);
const pat_sched_op *pat_schedule_ops(const pat_schedule *sched, int rank);
int pat_schedule_nrounds(const pat_schedule *sched, int rank);
/* Number of temporary slots a rank's program uses. */
int pat_schedule_ntmp(const pat_schedule *sched, int rank);

/* Builds the schedule of an algorithm for one rank (rank >= 0: it holds
 * that rank's program only, O(its operations) of memory) or for all ranks
 * (rank == -1).  PAT_ERR_NOT_A_SCHEDULE for algorithms without one. */
int pat_schedule_build(pat_reduce_alg alg, const pat_sched_params *params,
                       int rank, pat_schedule **out);

/* Checks a schedule holding every rank's program: slots and peers valid,
 * rounds ordered; the k-th send from a to b and b's k-th receive from a
 * carry the same round and range; the dataflow completes (no deadlock) even
 * with rendezvous sends and round-by-round execution; nothing is read or
 * combined into before it is written, no contribution is combined twice, no
 * receive or copy overwrites data that nothing read since it was written;
 * and the root's receive buffer ends with every rank's contribution exactly
 * once (in rank order for non-commutative ops).  Works on element ranges:
 * its cost does not depend on count.  Returns PAT_SUCCESS or
 * PAT_ERR_INVALID_SCHEDULE; on failure writes a reason to why (if not NULL,
 * at most whylen bytes). */
int pat_schedule_validate(const pat_schedule *sched, char *why, size_t whylen);

/* pat_schedule_validate plus the tree property: no rank receives an
 * element in or after the round in which it first sent that element. */
int pat_schedule_validate_tree(const pat_schedule *sched, char *why,
                               size_t whylen);

/* Completion time of the schedule under a byte model (NULL: the
 * schedule's params.model) as the dataflow executor runs it: a rank can act
 * from its arrival time on (arrivals NULL: all 0); a message of b bytes
 * starts once its send and its receive are posted, arrives alpha later
 * whatever else is in flight (latencies overlap), then its bytes flow
 * through the sender's send port and the receiver's receive port, each
 * carrying 1 / beta bytes per second shared max-min fairly among the
 * messages flowing through it (alone: alpha + b beta in all), as SimGrid
 * SMPI prices concurrent messages; a combine of b bytes holds the
 * rank's processor for b gamma; copies cost nothing.  Writes the time at
 * which the root holds the result, on the clock of arrivals.  The
 * schedule must hold every rank's program and be valid. */
int pat_schedule_simulate(const pat_schedule *sched, const double *arrivals,
                          const pat_model *model, double *completion);

/* What the builder predicted for its own inputs (clairvoyant builders:
 * the completion time under params' arrivals and round cost; NaN when the
 * builder predicts nothing), and a hash of the whole tree it built (equal
 * on every rank that built from the same inputs; 0 when not set). */
double pat_schedule_predicted_time(const pat_schedule *sched);
unsigned long long pat_schedule_hash(const pat_schedule *sched);

/* The schedule that served the last scheduled reduction on comm on this
 * rank (owned by the library, valid until the next call on comm); for
 * clairvoyant calls its predicted time and hash tell what was planned.
 * Returns PAT_SUCCESS or PAT_ERR_NO_CALL_YET. */
int pat_reduce_last_schedule(MPI_Comm comm, const pat_schedule **sched);

/* Writes a readable listing of the schedule, one line per operation. */
int pat_schedule_dump(const pat_schedule *sched, FILE *out);

/* Runs this rank's program of sched on comm (which must have nranks
 * processes) over a private communicator.  Same buffer contract as
 * MPI_Reduce; returns an MPI error code.  Collective: every rank calls it
 * with its program of the same schedule.  This rank's program is checked
 * (slots, peers, element ranges: MPI_ERR_ARG); that sends and receives
 * pair up across ranks is not, so run pat_schedule_validate on the whole
 * schedule first: a schedule that fails it may deadlock. */
int pat_schedule_execute(const pat_schedule *sched, const void *sendbuf,
                         void *recvbuf, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif /* PAT_SCHEDULE_H */
