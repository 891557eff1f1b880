/*
 * The executor: runs one rank's program of a schedule, round by round.
 * In each round it posts every receive and send of the round with
 * PMPI_Irecv / PMPI_Isend, waits for all of them, then runs the round's
 * combines and copies in program order.  All traffic goes over the private
 * communicator with the call's tag.
 */
#include <stdlib.h>

#include "pat_internal.h"
#include "pat/pat_layer.h"

typedef struct slots {
  int n;
  const char **rd; /* readable address of element 0 of each slot */
  char **wr;       /* writable address, NULL for the user's send buffer */
  pat_tmpbuf *tmp;
  int ntmp;
} slots;

static void slots_free(slots *s) {
  for (int i = 0; i < s->ntmp; i++)
    pat_tmpbuf_free(&s->tmp[i]);
  free(s->tmp);
  free(s->rd);
  free(s->wr);
}

static int slots_alloc(slots *s, const pat_schedule *sched,
                       const pat_call *call) {
  int rc = MPI_SUCCESS;
  int ntmp = pat_schedule_ntmp(sched, call->rank);
  s->n = PAT_SLOT_TMP0 + ntmp;
  s->ntmp = 0;
  s->rd = calloc((size_t)s->n, sizeof *s->rd);
  s->wr = calloc((size_t)s->n, sizeof *s->wr);
  s->tmp = calloc((size_t)(ntmp > 0 ? ntmp : 1), sizeof *s->tmp);
  if (s->rd == NULL || s->wr == NULL || s->tmp == NULL) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  s->rd[PAT_SLOT_SEND] = call->sendbuf;
  s->wr[PAT_SLOT_SEND] = call->in_place ? call->recvbuf : NULL;
  s->rd[PAT_SLOT_RECV] = call->rank == call->root ? call->recvbuf : NULL;
  s->wr[PAT_SLOT_RECV] = call->rank == call->root ? call->recvbuf : NULL;
  for (; s->ntmp < ntmp; s->ntmp++) {
    rc = pat_tmpbuf_alloc(&s->tmp[s->ntmp], call->count, call->datatype);
    if (rc != MPI_SUCCESS)
      goto out;
    s->rd[PAT_SLOT_TMP0 + s->ntmp] = s->tmp[s->ntmp].base;
    s->wr[PAT_SLOT_TMP0 + s->ntmp] = s->tmp[s->ntmp].base;
  }
out:
  return rc;
}

/* Address checks: a program naming a slot this rank lacks is an internal
 * error, never a write through NULL. */
static int rd_at(const slots *s, int slot, int elem, MPI_Aint extent,
                 const char **p) {
  if (slot < 0 || slot >= s->n || s->rd[slot] == NULL)
    return MPI_ERR_INTERN;
  *p = pat_celem(s->rd[slot], elem, extent);
  return MPI_SUCCESS;
}

static int wr_at(const slots *s, int slot, int elem, MPI_Aint extent,
                 char **p) {
  if (slot < 0 || slot >= s->n || s->wr[slot] == NULL)
    return MPI_ERR_INTERN;
  *p = pat_elem(s->wr[slot], elem, extent);
  return MPI_SUCCESS;
}

int pat_exec_run(const pat_schedule *sched, const pat_call *call) {
  const pat_sched_op *ops = pat_schedule_ops(sched, call->rank);
  int nops = pat_schedule_nops(sched, call->rank);
  MPI_Request *reqs = NULL;
  MPI_Aint lb, extent;
  slots s = {0};
  int rc = PMPI_Type_get_extent(call->datatype, &lb, &extent);
  int i = 0;

  if (rc != MPI_SUCCESS || nops == 0)
    goto out;
  rc = slots_alloc(&s, sched, call);
  if (rc != MPI_SUCCESS)
    goto out;
  reqs = malloc((size_t)nops * sizeof *reqs);
  if (reqs == NULL) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  while (i < nops && rc == MPI_SUCCESS) {
    int round = ops[i].round, end = i, nreq = 0, nrecv = 0;
    double t0, posted = PMPI_Wtime();
    while (end < nops && ops[end].round == round)
      end++;
    /* communication of the round */
    for (int k = i; k < end && rc == MPI_SUCCESS; k++) {
      const pat_sched_op *op = &ops[k];
      const char *from;
      char *to;
      if (op->kind == PAT_SCHED_RECV) {
        rc = wr_at(&s, op->dst, op->offset, extent, &to);
        if (rc == MPI_SUCCESS)
          rc = PMPI_Irecv(to, op->count, call->datatype, op->peer, call->tag,
                          call->priv, &reqs[nreq++]);
        nrecv++;
      } else if (op->kind == PAT_SCHED_SEND) {
        rc = rd_at(&s, op->src, op->offset, extent, &from);
        if (rc == MPI_SUCCESS)
          rc = PMPI_Isend(from, op->count, call->datatype, op->peer, call->tag,
                          call->priv, &reqs[nreq++]);
      }
    }
    t0 = PMPI_Wtime();
    if (nreq > 0) {
      int wrc = PMPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
      if (rc == MPI_SUCCESS)
        rc = wrc;
    }
    /* tracing: a round's transfers share one interval (one Waitall) */
    for (int k = i; k < end && pat_trace_on(call); k++)
      if (ops[k].kind == PAT_SCHED_RECV || ops[k].kind == PAT_SCHED_SEND)
        pat_trace_note(call,
                       ops[k].kind == PAT_SCHED_RECV ? PAT_TRACE_RECV
                                                     : PAT_TRACE_SEND,
                       ops[k].peer, ops[k].count, posted, PMPI_Wtime());
    /* local operations of the round, in order */
    for (int k = i; k < end && rc == MPI_SUCCESS; k++) {
      const pat_sched_op *op = &ops[k];
      const char *from;
      char *to;
      if (op->kind != PAT_SCHED_COMBINE && op->kind != PAT_SCHED_COPY)
        continue;
      rc = rd_at(&s, op->src, op->offset, extent, &from);
      if (rc == MPI_SUCCESS)
        rc = wr_at(&s, op->dst, op->offset, extent, &to);
      if (rc == MPI_SUCCESS && op->kind == PAT_SCHED_COMBINE) {
        double c0 = PMPI_Wtime();
        rc = pat_local_combine(from, to, op->count, call->datatype, call->op);
        pat_trace_note(call, PAT_TRACE_COMBINE, -1, op->count, c0,
                       PMPI_Wtime());
      } else if (rc == MPI_SUCCESS)
        rc = pat_local_copy(from, to, op->count, call->datatype);
    }
    /* the PAT layer learns the round cost from receiving rounds */
    if (call->pat != NULL && nrecv > 0 && rc == MPI_SUCCESS)
      pat_state_transfer_sample(call->pat, call->bytes,
                                (PMPI_Wtime() - t0) / nrecv);
    i = end;
  }
out:
  free(reqs);
  slots_free(&s);
  return rc;
}
