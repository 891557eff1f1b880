/*
 * The model simulation of a schedule (pat_schedule_simulate).
 */
#include <stdlib.h>

#include "pat_internal.h"

/* (temporary: the round-by-round simulation until the dataflow one) */
typedef struct msg {
  int round, from, to, seq;
  int offset, count, slot;
} msg;

static int cmp_int(int a, int b) { return (a > b) - (a < b); }

static int msg_cmp(const void *a, const void *b) {
  const msg *x = a, *y = b;
  return x->round != y->round ? cmp_int(x->round, y->round)
         : x->from != y->from ? cmp_int(x->from, y->from)
         : x->to != y->to     ? cmp_int(x->to, y->to)
                              : cmp_int(x->seq, y->seq);
}

static int collect(const pat_schedule *s, msg **sends, int *nsend, msg **recvs,
                   int *nrecv) {
  int total = 0, ns = 0, nr = 0;
  int P = pat_schedule_params(s)->nranks;
  for (int r = 0; r < P; r++)
    total += pat_schedule_nops(s, r);
  *sends = malloc((size_t)(total > 0 ? total : 1) * sizeof **sends);
  *recvs = malloc((size_t)(total > 0 ? total : 1) * sizeof **recvs);
  if (*sends == NULL || *recvs == NULL)
    return PAT_ERR_NO_MEMORY;
  for (int r = 0; r < P; r++)
    for (int i = 0; i < pat_schedule_nops(s, r); i++) {
      const pat_sched_op *op = &pat_schedule_ops(s, r)[i];
      if (op->kind == PAT_SCHED_SEND)
        (*sends)[ns++] =
            (msg){op->round, r, op->peer, i, op->offset, op->count, op->src};
      else if (op->kind == PAT_SCHED_RECV)
        (*recvs)[nr++] =
            (msg){op->round, op->peer, r, i, op->offset, op->count, op->dst};
    }
  qsort(*sends, (size_t)ns, sizeof **sends, msg_cmp);
  qsort(*recvs, (size_t)nr, sizeof **recvs, msg_cmp);
  *nsend = ns;
  *nrecv = nr;
  return ns == nr ? PAT_SUCCESS : PAT_ERR_INVALID_SCHEDULE;
}

typedef struct arrival_evt {
  int round, to, seq;
  double sent; /* sender's time at the start of the round */
} arrival_evt;

static int arrival_cmp(const void *a, const void *b) {
  const arrival_evt *x = a, *y = b;
  return x->round != y->round ? cmp_int(x->round, y->round)
         : x->to != y->to     ? cmp_int(x->to, y->to)
                              : cmp_int(x->seq, y->seq);
}

int pat_schedule_simulate(const pat_schedule *sched, const double *arrivals,
                          const pat_model *model, double *completion) {
  msg *sends = NULL, *recvs = NULL;
  arrival_evt *ev = NULL;
  double *t = NULL;
  int nsend = 0, nrecv = 0, err = PAT_SUCCESS;
  if (sched == NULL || completion == NULL) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  if (model == NULL)
    model = &pat_schedule_params(sched)->model;
  err = collect(sched, &sends, &nsend, &recvs, &nrecv);
  if (err != PAT_SUCCESS)
    goto out;
  t = malloc((size_t)pat_schedule_params(sched)->nranks * sizeof *t);
  ev = malloc((size_t)(nsend > 0 ? nsend : 1) * sizeof *ev);
  if (t == NULL || ev == NULL) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (int r = 0; r < pat_schedule_params(sched)->nranks; r++)
    t[r] = arrivals ? arrivals[r] : 0.0;
  /* sends and receives are sorted by round; take one round at a time */
  for (int i = 0; i < nsend;) {
    int round = sends[i].round, end = i;
    while (end < nsend && sends[end].round == round)
      end++;
    for (int k = i; k < end; k++)
      ev[k] = (arrival_evt){round, recvs[k].to, recvs[k].seq, t[sends[k].from]};
    qsort(ev + i, (size_t)(end - i), sizeof *ev, arrival_cmp);
    for (int k = i; k < end; k++) {
      double *tr = &t[ev[k].to];
      *tr = (*tr > ev[k].sent ? *tr : ev[k].sent) +
            pat_model_round_cost(model,
                                 (double)sends[k].count *
                                     pat_schedule_params(sched)->elem_size);
    }
    i = end;
  }
  *completion = t[pat_schedule_params(sched)->root];
out:
  free(sends);
  free(recvs);
  free(ev);
  free(t);
  return err;
}
