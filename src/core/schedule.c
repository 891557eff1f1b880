/*
 * The schedule type: per-rank programs of send / receive / combine / copy
 * operations in rounds (see include/reduce/pat_schedule.h), with its
 * builder entry point and text dump.  The validator is in validate.c, the
 * model simulation in simulate.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pat_internal.h"

typedef struct rank_prog {
  int built;
  int nops, cap;
  pat_sched_op *ops;
} rank_prog;

/* A schedule built for one rank (pat_schedule_build's rank >= 0, as every
 * call's is) holds that rank's program only: one entry, not nranks of
 * them.  Every rank's schedule of a call is then O(its own ops), not O(P)
 * (in SMPI, where all ranks share one process: at P = 16384, 24 B per rank
 * was 6 GB per cached schedule); one planned by arrival times still keeps
 * their copy (P doubles: the cache compares them). */
struct pat_schedule {
  pat_sched_params params; /* params.arrivals points to arrivals below */
  double *arrivals;        /* owned copy, or NULL */
  int only;                /* the one rank held, or -1: every rank */
  rank_prog *progs;        /* params.nranks entries, or 1 (only) */
  double predicted;        /* builder's predicted completion, or NaN */
  unsigned long long hash; /* builder's hash of the whole tree */
  int sends_ahead;         /* the builder's bound on early sends, or -1 */
  pat_replay *replay;      /* the builder's plan, replayable, or NULL */
};

static int params_ok(const pat_sched_params *p) {
  return p != NULL && p->nranks >= 1 && p->root >= 0 && p->root < p->nranks &&
         p->count >= 0;
}

/* rank's program in s, or NULL if s does not hold it. */
static rank_prog *prog(const pat_schedule *s, int rank) {
  if (s == NULL || rank < 0 || rank >= s->params.nranks)
    return NULL;
  if (s->only < 0)
    return &s->progs[rank];
  return rank == s->only ? &s->progs[0] : NULL;
}

/* A schedule for every rank (only -1) or for rank only. */
static int schedule_alloc(const pat_sched_params *params, int only,
                          pat_schedule **out) {
  int err = PAT_SUCCESS;
  pat_schedule *s = NULL;
  if (out == NULL || !params_ok(params) || only < -1 ||
      only >= params->nranks) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  s = calloc(1, sizeof *s);
  if (s != NULL) {
    s->only = only;
    s->progs = calloc(only < 0 ? (size_t)params->nranks : 1, sizeof *s->progs);
  }
  if (s == NULL || s->progs == NULL) {
    free(s);
    s = NULL;
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  s->params = *params;
  s->predicted = NAN;
  s->sends_ahead = -1; /* no bound of its own */
  if (params->arrivals != NULL) {
    s->arrivals = malloc((size_t)params->nranks * sizeof *s->arrivals);
    if (s->arrivals == NULL) {
      free(s->progs);
      free(s);
      s = NULL;
      err = PAT_ERR_NO_MEMORY;
      goto out;
    }
    memcpy(s->arrivals, params->arrivals,
           (size_t)params->nranks * sizeof *s->arrivals);
    s->params.arrivals = s->arrivals;
  }
out:
  if (out != NULL)
    *out = s;
  return err;
}

int pat_schedule_alloc(const pat_sched_params *params, pat_schedule **out) {
  return schedule_alloc(params, -1, out);
}

void pat_schedule_free(pat_schedule *sched) {
  if (sched == NULL)
    return;
  for (int i = 0; i < (sched->only < 0 ? sched->params.nranks : 1); i++)
    free(sched->progs[i].ops);
  free(sched->progs);
  free(sched->arrivals);
  pat_replay_free(sched->replay);
  free(sched);
}

double pat_schedule_predicted_time(const pat_schedule *sched) {
  return sched ? sched->predicted : NAN;
}

unsigned long long pat_schedule_hash(const pat_schedule *sched) {
  return sched ? sched->hash : 0;
}

void pat_schedule_set_sends_ahead(pat_schedule *sched, int n) {
  sched->sends_ahead = n;
}

int pat_schedule_sends_ahead(const pat_schedule *sched, int configured) {
  return sched != NULL && sched->sends_ahead >= 0 &&
                 sched->sends_ahead < configured
             ? sched->sends_ahead
             : configured;
}

void pat_schedule_set_prediction(pat_schedule *sched, double completion,
                                 unsigned long long hash) {
  sched->predicted = completion;
  sched->hash = hash;
}

void pat_schedule_set_replay(pat_schedule *sched, pat_replay *replay) {
  pat_replay_free(sched->replay);
  sched->replay = replay;
}

size_t pat_schedule_footprint(const pat_schedule *sched) {
  int held = sched->only < 0 ? sched->params.nranks : 1;
  size_t n = sizeof *sched + (size_t)held * sizeof *sched->progs;
  for (int i = 0; i < held; i++)
    n += (size_t)sched->progs[i].cap * sizeof *sched->progs[i].ops;
  if (sched->arrivals != NULL)
    n += (size_t)sched->params.nranks * sizeof *sched->arrivals;
  return n;
}

pat_replay *pat_schedule_replay(const pat_schedule *sched) {
  return sched != NULL ? sched->replay : NULL;
}

void pat_schedule_put(pat_schedule *sched, int rank, int *err,
                      pat_sched_kind kind, int round, int peer, int src,
                      int dst, int lo, int hi) {
  pat_sched_op o = {.kind = kind,
                    .round = round,
                    .peer = peer,
                    .src = src,
                    .dst = dst,
                    .offset = lo,
                    .count = hi - lo};
  if (*err == PAT_SUCCESS)
    *err = pat_schedule_add(sched, rank, &o);
}

int pat_schedule_add(pat_schedule *sched, int rank, const pat_sched_op *op) {
  int err = PAT_SUCCESS;
  rank_prog *p = prog(sched, rank);
  if (sched == NULL || rank < 0 || rank >= sched->params.nranks || op == NULL) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  if (p == NULL) /* a rank this schedule does not hold: not kept */
    goto out;
  if (p->nops == p->cap) {
    int cap = p->cap ? 2 * p->cap : 8;
    pat_sched_op *ops = realloc(p->ops, (size_t)cap * sizeof *ops);
    if (ops == NULL) {
      err = PAT_ERR_NO_MEMORY;
      goto out;
    }
    p->ops = ops;
    p->cap = cap;
  }
  p->ops[p->nops++] = *op;
  p->built = 1;
out:
  return err;
}

int pat_schedule_mark_built(pat_schedule *sched, int rank) {
  int err = PAT_ERR_INVALID_ARG;
  rank_prog *p = prog(sched, rank);
  if (p != NULL) {
    p->built = 1;
    err = PAT_SUCCESS;
  }
  return err;
}

const pat_sched_params *pat_schedule_params(const pat_schedule *sched) {
  return sched ? &sched->params : NULL;
}

int pat_schedule_has_rank(const pat_schedule *sched, int rank) {
  const rank_prog *p = prog(sched, rank);
  return p != NULL && p->built;
}

int pat_schedule_nops(const pat_schedule *sched, int rank) {
  const rank_prog *p = prog(sched, rank);
  return p != NULL ? p->nops : 0;
}

const pat_sched_op *pat_schedule_ops(const pat_schedule *sched, int rank) {
  const rank_prog *p = prog(sched, rank);
  return p != NULL ? p->ops : NULL;
}

int pat_schedule_nrounds(const pat_schedule *sched, int rank) {
  int n = pat_schedule_nops(sched, rank);
  return n > 0 ? pat_schedule_ops(sched, rank)[n - 1].round + 1 : 0;
}

int pat_schedule_ntmp(const pat_schedule *sched, int rank) {
  int ntmp = 0;
  for (int i = 0; i < pat_schedule_nops(sched, rank); i++) {
    const pat_sched_op *op = &pat_schedule_ops(sched, rank)[i];
    int slots[2] = {op->src, op->dst};
    for (int k = 0; k < 2; k++)
      if (slots[k] >= PAT_SLOT_TMP0 && slots[k] - PAT_SLOT_TMP0 + 1 > ntmp)
        ntmp = slots[k] - PAT_SLOT_TMP0 + 1;
  }
  return ntmp;
}

int pat_schedule_build(pat_reduce_alg alg, const pat_sched_params *params,
                       int rank, pat_schedule **out) {
  int err = PAT_SUCCESS;
  pat_schedule *s = NULL;
  const pat_alg_row *row;
  if (out == NULL || (int)alg < 0 || alg >= PAT_REDUCE_ALG_COUNT ||
      !params_ok(params) || rank < -1 || rank >= params->nranks) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  row = pat_alg_table[alg];
  if (row->build == NULL) {
    err = PAT_ERR_NOT_A_SCHEDULE;
    goto out;
  }
  err = schedule_alloc(params, rank, &s);
  /* the builder writes one rank's program, or every rank's for rank -1
   * (what it writes of other ranks is not kept) */
  if (err == PAT_SUCCESS)
    err = row->build(params, rank, s);
  for (int r = rank < 0 ? 0 : rank;
       err == PAT_SUCCESS && r < (rank < 0 ? params->nranks : rank + 1); r++)
    err = pat_schedule_mark_built(s, r);
  if (err != PAT_SUCCESS) {
    pat_schedule_free(s);
    s = NULL;
  }
out:
  if (out != NULL)
    *out = s;
  return err;
}

/* ---- dump --------------------------------------------------------------- */

static const char *const kind_name[] = {"send", "recv", "combine", "copy"};

static void slot_name(int slot, char *buf, size_t len) {
  if (slot == PAT_SLOT_SEND)
    snprintf(buf, len, "sendbuf");
  else if (slot == PAT_SLOT_RECV)
    snprintf(buf, len, "recvbuf");
  else
    snprintf(buf, len, "tmp%d", slot - PAT_SLOT_TMP0);
}

int pat_schedule_dump(const pat_schedule *sched, FILE *out) {
  int err = PAT_SUCCESS;
  char a[16], b[16];
  if (sched == NULL || out == NULL) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  fprintf(out,
          "schedule nranks=%d root=%d count=%d commutative=%d "
          "in_place=%d\n",
          sched->params.nranks, sched->params.root, sched->params.count,
          sched->params.commutative, sched->params.in_place);
  for (int r = 0; r < sched->params.nranks; r++) {
    const rank_prog *p = prog(sched, r);
    if (p == NULL || !p->built)
      continue;
    fprintf(out, "rank %d: %d ops, %d rounds\n", r, p->nops,
            pat_schedule_nrounds(sched, r));
    for (int i = 0; i < p->nops; i++) {
      const pat_sched_op *op = &p->ops[i];
      slot_name(op->src, a, sizeof a);
      slot_name(op->dst, b, sizeof b);
      fprintf(out, "  r%-3d %-7s ", op->round,
              (unsigned)op->kind < 4 ? kind_name[op->kind] : "?");
      if (op->kind == PAT_SCHED_SEND)
        fprintf(out, "%s -> rank %d", a, op->peer);
      else if (op->kind == PAT_SCHED_RECV)
        fprintf(out, "rank %d -> %s", op->peer, b);
      else
        fprintf(out, "%s -> %s", a, b);
      fprintf(out, " [%d, %d)\n", op->offset, op->offset + op->count);
    }
  }
out:
  return err;
}

double pat_sched_round_cost(const pat_sched_params *params) {
  return pat_model_round_cost(&params->model,
                              (double)params->count * params->elem_size);
}

/* Comparisons rather than fmin/fmax (a libm call each, half of auto's
 * decision time at P = 128: patautospeed); a NaN arrival is skipped
 * alike. */
double pat_sched_first_arrival(const pat_sched_params *params) {
  double lo = INFINITY;
  if (params->arrivals == NULL || params->nranks < 1)
    return 0;
  for (int r = 0; r < params->nranks; r++)
    lo = params->arrivals[r] < lo ? params->arrivals[r] : lo;
  return lo;
}

double pat_sched_spread(const pat_sched_params *params) {
  double hi = -INFINITY, lo = INFINITY;
  if (params->arrivals == NULL || params->nranks < 1)
    return 0;
  for (int r = 0; r < params->nranks; r++) {
    hi = params->arrivals[r] > hi ? params->arrivals[r] : hi;
    lo = params->arrivals[r] < lo ? params->arrivals[r] : lo;
  }
  return hi - lo;
}
