/*
 * What localredirect's two protocols share (localredirect.c: the
 * handshake protocol and the row; eager.c: the small-message protocol):
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

/* PAT_REDUCE_LR_PATIENCE in seconds, or for auto this rank's measured
 * time of one transfer of the message on the communicator (0 until one
 * was measured). */
double pat_lr_patience(const pat_call *c);
/* One call's transfer time, for auto patience. */
void pat_lr_observe(const pat_call *c, double seconds);

/* The small-message protocol (eager.c). */
int pat_lr_eager_run(const pat_call *c);

#endif /* PAT_LR_INTERNAL_H */
