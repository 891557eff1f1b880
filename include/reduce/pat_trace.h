/*
 * Tracing the reductions on a communicator: this process's send, receive
 * and combine intervals, for timelines such as patbench --trace (Chrome
 * trace-event JSON, viewable in Perfetto).  Times are this process's
 * MPI_Wtime().  Dynamic protocols (localredirect) trace their data
 * transfers, not their small control messages.  Tracing costs two clock
 * reads per operation while on, one branch while off.
 */
#ifndef PAT_TRACE_H
#define PAT_TRACE_H

#include <stddef.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pat_trace_kind {
  PAT_TRACE_SEND,    /* from posting the send to its completion */
  PAT_TRACE_RECV,    /* from posting the receive to its completion */
  PAT_TRACE_COMBINE, /* one local combine */
  /* a message that was there before its receive was posted (an instant;
   * localredirect probes for it while tracing: its queue bound) */
  PAT_TRACE_UNEXPECTED,
  PAT_TRACE_KIND_COUNT
} pat_trace_kind;

typedef struct pat_trace_event {
  double t0, t1; /* MPI_Wtime() at start and end */
  pat_trace_kind kind;
  int peer;  /* rank in the communicator; -1 for a combine */
  int count; /* elements moved or combined */
} pat_trace_event;

/* Starts recording the reductions on comm into events[0..capacity-1]
 * (the caller's memory, untouched after pat_trace_stop); events past the
 * capacity are counted, not stored.  Returns an MPI error code. */
int pat_trace_start(MPI_Comm comm, pat_trace_event *events, size_t capacity);

/* Stops recording; *stored = events written, *dropped = events that did
 * not fit.  Returns an MPI error code (MPI_ERR_OTHER if not started). */
int pat_trace_stop(MPI_Comm comm, size_t *stored, size_t *dropped);

/* "send", "recv", "combine", "unexpected". */
const char *pat_trace_kind_name(pat_trace_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* PAT_TRACE_H */
