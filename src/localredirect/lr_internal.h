/*
 * What localredirect's protocols share (localredirect.c: the handshake
 * protocol and the row; eager.c: the line's small-message protocol;
 * tree.c: the tree protocol for commutative ops):
 * the line of positions, the control messages' outbox, receives that
 * tell the trace when their message was there first, and the patience.
 */
#ifndef PAT_LR_INTERNAL_H
#define PAT_LR_INTERNAL_H

#include "core/pat_internal.h"

/* The rank at position pos of the line, and the position of rank: the
 * line is rotated so that a commutative op's root is position P - 1; a
 * non-commutative op keeps rank order (position = rank). */
int pat_lr_rank_of(const pat_call *c, int pos);
int pat_lr_pos_of(const pat_call *c, int rank);

/* Positions position pos gathers before it sends, balanced: the in-order
 * binomial tree rooted at last = P - 1. */
int pat_lr_plan_size(int pos, int last);

/* Control messages (two ints) in flight, completed at the end of the
 * call. */
typedef struct pat_lr_out {
  MPI_Request req;
  int msg[2];
} pat_lr_out;
typedef struct pat_lr_outbox {
  pat_lr_out **out;
  int n, cap;
} pat_lr_outbox;

/* Sends (kind, value) to position pos on tag.  Returns an MPI code. */
int pat_lr_send_ctl(pat_lr_outbox *box, const pat_call *c, int pos, int tag,
                    int kind, int value);
/* Waits for every message of the box and frees it (wait = 0, after an
 * error: messages still on their way are let go, their two ints kept).
 * Returns an MPI code. */
int pat_lr_outbox_close(pat_lr_outbox *box, int wait);

/* PMPI_Irecv from position pos; while the communicator is traced, a
 * message that was there before its receive is noted as
 * PAT_TRACE_UNEXPECTED (the stress test bounds them). */
int pat_lr_irecv(const pat_call *c, void *buf, int count, MPI_Datatype datatype,
                 int pos, int tag, MPI_Request *req);
/* The same from a rank. */
int pat_lr_irecv_rank(const pat_call *c, void *buf, int count,
                      MPI_Datatype datatype, int rank, int tag,
                      MPI_Request *req);
/* For a traced call, before a receive from rank with tag is posted:
 * notes PAT_TRACE_UNEXPECTED if such a message is there already. */
int pat_lr_note_early(const pat_call *c, int rank, int tag);

/* Waits until one of n requests completes (*got, *idx: which one, *st
 * its status) or PMPI_Wtime() reaches deadline (*got = 0).  Every request
 * is tested in turn, not by MPI_Testany: SimGrid's Testany charges a failed
 * call a time that grows with every failed Testany of every simulated rank
 * (one shared counter), so with hundreds of ranks polling a message was
 * seen microseconds late (MPI_Test's charge is flat with the simulation's
 * smpi/grow-injected-times:no, bench/platforms/smpirun.flags); and on
 * Open MPI, 8 ranks on 2 cores, back-to-back 4 B calls of the tree
 * protocol took 1.40x native's time this way against 1.76x with Testany.
 * Between rounds the SMPI build sleeps step seconds of simulated time
 * (fewer simulated events; a message is seen at most step late).  With
 * every request null: *got = 1, *idx = MPI_UNDEFINED, as MPI_Testany. */
int pat_lr_poll(int n, MPI_Request *rq, double deadline, double step, int *idx,
                int *got, MPI_Status *st);

/* PAT_REDUCE_LR_PATIENCE in seconds, or for auto this rank's measured
 * time of one transfer of the message on the communicator (0 until one
 * was measured). */
double pat_lr_patience(const pat_call *c);
/* One call's transfer time, for auto patience. */
void pat_lr_observe(const pat_call *c, double seconds);

/* The tree protocol's slack (tree.c): PAT_REDUCE_LR_PATIENCE, or for
 * auto what this communicator learned, at least unit (one round of the
 * message under the configured model); learn tells the slack the call
 * used (slack's) and whether a give-up of it was premature. */
double pat_lr_tree_slack(const pat_call *c, double unit);
void pat_lr_tree_learn(const pat_call *c, double unit, double slack,
                       int premature);
/* Whether this rank's last call as the tree's root on the communicator
 * read a list naming a given-up rank (root_learn records it). */
int pat_lr_tree_unrest(const pat_call *c);
void pat_lr_tree_root_learn(const pat_call *c, int unrest);

/* The tree protocol's completion under params' arrivals, a commutative
 * op (seconds after the earliest arrival; auto's estimate), with the due
 * times' unit and slack (tree.c). */
double pat_lr_tree_estimate(const pat_sched_params *p, double unit,
                            double slack);

/* The line's small-message protocol (eager.c) and the tree protocol for
 * commutative ops (tree.c). */
int pat_lr_eager_run(const pat_call *c);
int pat_lr_tree_run(const pat_call *c);

#endif /* PAT_LR_INTERNAL_H */
