/*
 * Per-communicator PAT state: arrival stamps on a global time base, their
 * exchange, the predictor and the measured cost model.
 *
 * Principle: every rank must build the same schedule, so everything that
 * shapes it comes from exchanged data, observed at the same call on every
 * rank.  In call k (every PAT_REDUCE_EXCHANGE_INTERVAL calls; 0: never,
 * for a configured model and told arrival times) each rank contributes a
 * record of FIELDS doubles to a non-blocking allgather: its arrival stamp
 * and a summary of its measurements in the previous call.  The allgather
 * is completed, and its data observed, at the start of call k + L
 * (PAT_REDUCE_EXCHANGE_LAG), whatever has or has not completed locally
 * before.  No blocking collective sits in the reduction's critical path:
 * the wait in call k + L is for data every rank sent L calls ago.  L
 * (pat_exchange_lag) is the calls the rounds need, longer for small
 * messages, whose trees' leaves advance the exchange once a call; it is
 * fixed when the exchange starts, and the exchanges are observed in the
 * order they started (a shorter lag after a longer one waits for it).
 *
 * The allgather is our own, on point-to-point messages (Bruck's
 * algorithm): in round j = 0 .. ceil(log2 P) - 1 rank r sends the
 * min(2^j, P - 2^j) records it holds (its own and those of ranks r + 1,
 * r + 2, ... mod P) to rank r - 2^j and receives as many from r + 2^j.
 * Per rank and exchange that is ceil(log2 P) messages and (P - 1) records
 * of 32 B in all: O(log P) messages and O(P) bytes, where an
 * MPI_Iallgather may send P messages per rank (SMPI's does: 1 s of
 * simulation per call at P = 128, 60 s at P = 256).  Every receive is
 * posted when the exchange starts; round j's send goes out once rounds
 * < j have arrived, checked without blocking at every arrival and
 * departure (so an exchange advances twice per call) and waited for only
 * in the call it is due.  Tags: exchange slot s, round j uses tag
 * exchange_tag + s * PAT_EXCHANGE_ROUNDS + j (a slot is reused only after
 * its exchange completed here), apart from the reduction's tags.
 *
 * Measurements: the executor reports every receive (bytes, seconds from
 * post to completion, which includes waiting for a late sender) and every
 * combine (bytes, seconds).  Per call and kind a rank keeps the fastest
 * sample at the smallest and at the largest size it saw (the fastest one
 * waited least; the extreme sizes say most about a line), NAN when absent,
 * and sends one of the two, the smallest in even calls and the largest in
 * odd ones (or the other one if it lacks that), as two floats.  The
 * fourth double holds two floats too: how long the rank took in the
 * previous exchanged call (its exit less its stamp there), so that with
 * that call's stamps it gives the call's realized time (latest exit less
 * earliest arrival, pat_state_realized_nth), which auto compares with its
 * estimates; and how long the rank was idle before this call (from the
 * end of the call before to this one's start, the layer's own work left
 * out, on its own clock), whose median over the ranks says whether the
 * calls come back to back (pat_state_idle_nth); a rank's idle time
 * before a call and the time it took in it are its exit-to-exit interval
 * (pat_state_intervals_nth: the root's is the call's period back to back,
 * which auto measures rows by there).  A record is 32 B per rank.
 *
 * The predictor is fed every observed call's stamps but the
 * communicator's first call's: those hold what set the ranks apart
 * before it (SMPI, P = 64, patbench: the barrier's exit skew put rank 63
 * 18.5 us late at 8 B, a late rank that the balanced calls after it
 * never had; auto tried a plan for it and trusted it, and with the last
 * rank late 16 calls later it ran that plan on a prediction of half the
 * delay, 1.23x localredirect's time; without that call 1.01x).
 *
 * Model: at observe time, per kind and per size, the median over the ranks
 * that reported that size (robust to a late rank) is one point; at most
 * PER_EXCHANGE sizes per exchange (those most ranks reported, smaller
 * first on ties) go into a window of the last PAT_FIT_MAX_SAMPLES points
 * per kind.  pat_fit_model (pat/fit.c) fits alpha, beta, gamma to the
 * window while there is no model and then whenever REFIT_POINTS new
 * points have come in (a fit per call cost 2.7 us): lines by GSL weighted
 * least squares, or with one size only, the
 * measured round cost at that size as alpha + bytes gamma.  All of it is
 * computed from the exchanged records in the same order on every rank, so
 * the model is bitwise identical everywhere.  A fit that gives no model
 * keeps the previous one; a latency it does not resolve (alpha <= 0) is
 * the last fitted one, else the configured model's (pat/fit.c).
 * PAT_REDUCE_ROUND_COST c ({c, 0, 0}) or PAT_REDUCE_MODEL override the
 * measurement.  Until a model is known the prediction is balanced, for
 * which the greedy tree does not depend on it.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "pat/pat_layer.h"

#define PER_EXCHANGE 4 /* sizes per kind that one exchange adds */
#define KEPT 2         /* (bytes, seconds) pairs per kind per call */

enum { TRANSFER, COMBINE, KINDS };
/* per rank and exchange: the stamp, then per kind one (bytes, seconds)
 * pair of floats packed into a double, then (took, idle) packed so too:
 * the time the rank took in the previous exchanged call, and its idle
 * time before this one */
enum { EXIT = 1 + KINDS, FIELDS };

static double pack2(double a, double b) {
  float f[2] = {(float)a, (float)b};
  double d;
  _Static_assert(sizeof f == sizeof d, "two floats fill a double");
  memcpy(&d, f, sizeof d);
  return d;
}

static void unpack2(double d, double *a, double *b) {
  float f[2];
  memcpy(f, &d, sizeof f);
  *a = f[0];
  *b = f[1];
}

/* One call's fastest samples of one kind: [0] at the smallest size, [1]
 * at the largest; bytes NAN when absent. */
typedef struct kept {
  double bytes[KEPT], sec[KEPT];
} kept;

/* The last PAT_FIT_MAX_SAMPLES points of one kind, a ring. */
typedef struct window {
  double bytes[PAT_FIT_MAX_SAMPLES], sec[PAT_FIT_MAX_SAMPLES];
  int n, next;
  int fresh; /* points added since the last fit */
} window;

/* Refit once this many new points are in a window (or while there is no
 * model): a fit costs about 2.7 us, too much for every call of a small
 * reduction, and a few points more hardly move it. */
#define REFIT_POINTS 8

/* One exchange in flight: the rotated records (block i is rank me + i
 * mod P), a receive and a send per round. */
typedef struct pending {
  long call;      /* call whose arrival stamps it carries */
  long due;       /* call at whose start it is completed */
  long prev_call; /* the exchange before: its call's exits travel here */
  int slot;       /* its tags */
  int arrived;    /* rounds whose receive completed, in order */
  int sent;       /* rounds whose send is posted */
  MPI_Request recv[PAT_EXCHANGE_ROUNDS], send[PAT_EXCHANGE_ROUNDS];
  double *buf; /* nranks * FIELDS */
} pending;

struct pat_state {
  MPI_Comm priv;
  int nranks, rank, rounds, clock_tag, exchange_tag;
  long last_due; /* the due call of the last exchange started */
  int lag_max;   /* pat_state_lag */
  const pat_config *cfg;
  int global_clock;
  double offset; /* add to pat_clock_local() for the global time base */
  long calls;    /* calls on this communicator since the state exists */
  pat_predictor *pred;
  pending fifo[PAT_EXCHANGE_SLOTS];
  int head, npending;
  kept call[KINDS];  /* this rank's samples in the current call */
  window win[KINDS]; /* exchanged points, the same on every rank */
  int fitted;        /* model holds a fitted model */
  pat_model model;
  double *work;      /* nranks: stamps being observed */
  long observed;     /* call whose stamps work holds; -1: none yet */
  double *pairs;     /* nranks * KEPT * 2: (bytes, seconds) being observed */
  double *predicted; /* nranks */
  long xcall;        /* the call of the latest exchange started here */
  double xstamp;     /* this rank's arrival stamp of call xcall */
  double xexit;      /* this rank's exit stamp of call xcall (NAN: none) */
  double left;       /* local clock at the end of the latest call, if the call
                      * after it may exchange (NAN: not read) */
  double *gaps;      /* nranks: scratch for the observed call's idle times */
  double *idles;     /* nranks: each rank's idle time before call observed */
  /* the last PAT_OBSERVED_KEPT observed calls' stamps and realized times,
   * rings by their counts */
  double *hist; /* PAT_OBSERVED_KEPT * nranks */
  long hist_call[PAT_OBSERVED_KEPT], nhist;
  double idle[PAT_OBSERVED_KEPT]; /* pat_state_idle_nth, by nhist */
  double rz[PAT_OBSERVED_KEPT];
  long rz_call[PAT_OBSERVED_KEPT], nrz;
  double *rz_iv; /* PAT_OBSERVED_KEPT * nranks: pat_state_intervals_nth */
  /* the client's pace (pat_state_pace): the factor on the automatic
   * interval per size class (0: never paced) and for the classes never
   * paced the last one set, on their own automatic interval (no client
   * predicts for them: their exchanges only cost; capped at the interval
   * of the client's class, 4 B calls pinned to binomial between auto's
   * 64 KiB ones exchanged 4.5x as often and took 1.6x binomial's time,
   * 8 ranks back to back), and a call that exchanges whatever the
   * interval (-1) */
  int stretch[PAT_SIZE_CLASSES], stretch_last;
  long soon;
  /* per size class its last automatic interval before the pace (0: no
   * call of it yet), its last call, and its calls so far: the pace counts
   * a class's own calls (class_calls[k] is the index of its next call
   * among them) */
  int base_of[PAT_SIZE_CLASSES];
  long seen_of[PAT_SIZE_CLASSES], class_calls[PAT_SIZE_CLASSES];
  /* the classes that had a call in the last PAT_EXCHANGE_MAX_PACED and
   * their paced intervals (recent_update): a call after which one of
   * them is due to exchange at its next call reads the clock at its
   * end, whatever its own size (the next call's is not known) */
  int recent[PAT_SIZE_CLASSES], recent_every[PAT_SIZE_CLASSES], nrecent;
  /* the last arrival's size class (its interval before the pace:
   * base_of), that of a call of quiet_bytes (NAN: the model was refitted
   * since it was computed): see pat_state_quiet */
  int base_class;
  double quiet_bytes;
  /* pat_state_sampling's answer, kept as its inputs change (the pace,
   * an arrival, a call's end: resample): a quiet call asked it 3 times,
   * 111 of the 648 instructions the library spent on auto's quiet call
   * (callgrind, P = 2, 8 B); 0 until the first arrival gives a class
   * its interval */
  int sampling;
  /* what predicted was last computed from: the predictor's observations
   * (-1: none), the rounding grid (it changes only with them) and the
   * call's phase in the predictor's cycle (pat_predictor_cycle) */
  long pred_seen;
  double pred_q;
  long pred_phase;
};

static void kept_reset(kept *k) {
  for (int kind = 0; kind < KINDS; kind++)
    for (int j = 0; j < KEPT; j++)
      k[kind].bytes[j] = k[kind].sec[j] = NAN;
}

/* Keeps the fastest sample at the smallest and at the largest size. */
static void kept_add(kept *k, double bytes, double sec) {
  if (!(isfinite(bytes) && bytes > 0 && isfinite(sec) && sec > 0))
    return;
  for (int j = 0; j < KEPT; j++)
    if (k->bytes[j] == bytes) {
      k->sec[j] = fmin(k->sec[j], sec);
      return;
    }
  if (isnan(k->bytes[0]) || bytes < k->bytes[0]) {
    if (!isnan(k->bytes[0]) && isnan(k->bytes[1])) {
      k->bytes[1] = k->bytes[0];
      k->sec[1] = k->sec[0];
    }
    k->bytes[0] = bytes;
    k->sec[0] = sec;
  } else if (isnan(k->bytes[1]) || bytes > k->bytes[1]) {
    k->bytes[1] = bytes;
    k->sec[1] = sec;
  } /* else between the two: the extremes say more about a line */
}

static int log2_ceil(int n) {
  int r = 0;
  while (r < PAT_EXCHANGE_ROUNDS && (1L << r) < n)
    r++;
  return r;
}

/* A message whose round costs under PAT_EXCHANGE_SMALL_ALPHAS latencies. */
static int small_message(const pat_model *model, double bytes) {
  return pat_model_round_cost(model, bytes) <
         PAT_EXCHANGE_SMALL_ALPHAS * model->alpha;
}

int pat_exchange_lag(const pat_model *model, double bytes, int nranks) {
  int lag = pat_config_get()->exchange_lag;
  if (lag == 0)
    lag = small_message(model, bytes) ? log2_ceil(nranks)
                                      : (log2_ceil(nranks) + 1) / 2;
  return lag > 1 ? lag : 1;
}

/* Round j of the exchange: its record count. */
static int round_count(const pat_state *ps, int j) {
  long d = 1L << j;
  return (int)(d < ps->nranks - d ? d : ps->nranks - d);
}

static int round_tag(const pat_state *ps, const pending *p, int j) {
  return ps->exchange_tag + p->slot * PAT_EXCHANGE_ROUNDS + j;
}

/* Posts round j's send (p->sent == j). */
static int post_send(pat_state *ps, pending *p, int j) {
  int P = ps->nranks;
  int rc = PMPI_Isend(p->buf, round_count(ps, j) * FIELDS, MPI_DOUBLE,
                      (int)((ps->rank - (1L << j) % P + P) % P),
                      round_tag(ps, p, j), ps->priv, &p->send[j]);
  p->sent += rc == MPI_SUCCESS;
  return rc;
}

/* Posts what can be posted: round j's send once the receives of rounds
 * < j completed (in order).  block: waits for them and for the whole
 * exchange.  MPI error code. */
static int exchange_progress(pat_state *ps, pending *p, int block) {
  int rc = MPI_SUCCESS;
  while (rc == MPI_SUCCESS && p->sent < ps->rounds) {
    int j = p->sent, flag = 1;
    while (rc == MPI_SUCCESS && p->arrived < j && flag) {
      if (block)
        rc = PMPI_Wait(&p->recv[p->arrived], MPI_STATUS_IGNORE);
      else
        rc = PMPI_Test(&p->recv[p->arrived], &flag, MPI_STATUS_IGNORE);
      p->arrived += rc == MPI_SUCCESS && flag;
    }
    if (rc != MPI_SUCCESS || p->arrived < j)
      break;
    rc = post_send(ps, p, j);
  }
  /* every send out: the receives left, in order */
  while (rc == MPI_SUCCESS && !block && p->sent == ps->rounds &&
         p->arrived < ps->rounds) {
    int flag = 0;
    rc = PMPI_Test(&p->recv[p->arrived], &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || !flag)
      break;
    p->arrived++;
  }
  if (rc == MPI_SUCCESS && block) {
    rc = PMPI_Waitall(ps->rounds - p->arrived, &p->recv[p->arrived],
                      MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS)
      p->arrived = ps->rounds;
    if (rc == MPI_SUCCESS)
      rc = PMPI_Waitall(ps->rounds, p->send, MPI_STATUSES_IGNORE);
  }
  return rc;
}

/* Starts an exchange of this rank's record mine: posts every receive and
 * round 0's send, which needs nothing received.  Nothing is tested here:
 * right after the receives are posted a test finds nothing, and on a node
 * with more ranks than cores (Open MPI's mpi_yield_when_idle) each test
 * that finds nothing gives the core away (8 ranks on 2 cores, 4 KiB:
 * the exchange's call arrived in 50-140 us, against 1 for a call that
 * does not exchange); the next progress (the call's departure) tests. */
static int exchange_start(pat_state *ps, pending *p, const double *mine) {
  int rc = MPI_SUCCESS, P = ps->nranks;
  p->arrived = p->sent = 0;
  for (int j = 0; j < PAT_EXCHANGE_ROUNDS; j++)
    p->recv[j] = p->send[j] = MPI_REQUEST_NULL;
  memcpy(p->buf, mine, FIELDS * sizeof *mine);
  for (int j = 0; rc == MPI_SUCCESS && j < ps->rounds; j++) {
    long d = 1L << j;
    rc = PMPI_Irecv(p->buf + (size_t)d * FIELDS, round_count(ps, j) * FIELDS,
                    MPI_DOUBLE, (int)((ps->rank + d) % P), round_tag(ps, p, j),
                    ps->priv, &p->recv[j]);
  }
  return rc == MPI_SUCCESS && ps->rounds > 0 ? post_send(ps, p, 0) : rc;
}

/* Rank r's record in a completed exchange. */
static const double *record(const pat_state *ps, const pending *p, int r) {
  return p->buf + (size_t)((r - ps->rank + ps->nranks) % ps->nranks) * FIELDS;
}

int pat_state_alloc(MPI_Comm priv, int clock_tag, int exchange_tag,
                    const pat_config *cfg, pat_state **out) {
  pat_state *ps = calloc(1, sizeof *ps);
  int rc = MPI_SUCCESS;
  if (ps == NULL) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  ps->priv = priv;
  ps->cfg = cfg;
  ps->clock_tag = clock_tag;
  ps->exchange_tag = exchange_tag;
  ps->observed = -1;
  ps->xcall = -1;
  ps->stretch_last = 1;
  ps->soon = -1;
  ps->quiet_bytes = NAN;
  ps->pred_seen = -1;
  ps->xexit = NAN;
  ps->left = NAN;
  kept_reset(ps->call);
  PMPI_Comm_size(priv, &ps->nranks);
  PMPI_Comm_rank(priv, &ps->rank);
  ps->rounds = log2_ceil(ps->nranks);
  ps->last_due = -1;
  ps->lag_max = 1;
  ps->work = malloc((size_t)ps->nranks * sizeof *ps->work);
  ps->hist = malloc((size_t)ps->nranks * PAT_OBSERVED_KEPT * sizeof *ps->hist);
  ps->pairs = malloc((size_t)ps->nranks * KEPT * 2 * sizeof *ps->pairs);
  ps->predicted = calloc((size_t)ps->nranks, sizeof *ps->predicted);
  ps->gaps = malloc((size_t)ps->nranks * sizeof *ps->gaps);
  ps->idles = malloc((size_t)ps->nranks * sizeof *ps->idles);
  ps->rz_iv =
      malloc((size_t)ps->nranks * PAT_OBSERVED_KEPT * sizeof *ps->rz_iv);
  if (ps->work == NULL || ps->hist == NULL || ps->pairs == NULL ||
      ps->predicted == NULL || ps->gaps == NULL || ps->idles == NULL ||
      ps->rz_iv == NULL ||
      pat_predictor_alloc(cfg->predictor, ps->nranks, &ps->pred, NULL, 0) !=
          PAT_SUCCESS) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  rc = pat_clock_global(&ps->global_clock);
  if (rc == MPI_SUCCESS && !ps->global_clock)
    rc = pat_clock_sync(priv, clock_tag, 10, &ps->offset, NULL);
out:
  if (rc != MPI_SUCCESS) {
    pat_state_free(ps);
    ps = NULL;
  }
  *out = ps;
  return rc;
}

void pat_state_free(pat_state *ps) {
  if (ps == NULL)
    return;
  /* every rank frees the communicator, so the exchanges complete */
  for (int i = 0; i < ps->npending; i++) {
    pending *p = &ps->fifo[(ps->head + i) % PAT_EXCHANGE_SLOTS];
    exchange_progress(ps, p, 1);
    free(p->buf);
  }
  pat_predictor_free(ps->pred);
  free(ps->work);
  free(ps->hist);
  free(ps->pairs);
  free(ps->predicted);
  free(ps->gaps);
  free(ps->idles);
  free(ps->rz_iv);
  free(ps);
}

double pat_state_now(const pat_state *ps) {
  return pat_clock_local() + ps->offset;
}

static void window_add(window *w, double bytes, double sec) {
  w->bytes[w->next] = bytes;
  w->sec[w->next] = sec;
  w->next = (w->next + 1) % PAT_FIT_MAX_SAMPLES;
  if (w->n < PAT_FIT_MAX_SAMPLES)
    w->n++;
  w->fresh++;
}

/* Orders (bytes, seconds) pairs by bytes, then seconds. */
static int cmp_pair(const void *a, const void *b) {
  const double *x = a, *y = b;
  if (x[0] != y[0])
    return (x[0] > y[0]) - (x[0] < y[0]);
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Adds one kind of an exchange to its window: per size the median over
 * the ranks that reported it; the PER_EXCHANGE sizes most ranks reported
 * (the smaller on ties). */
static void observe_kind(pat_state *ps, const pending *p, int kind) {
  double *v = ps->pairs, taken[PER_EXCHANGE];
  size_t n = 0;
  int ntaken = 0;

  for (int r = 0; r < ps->nranks; r++) {
    double f[2];
    unpack2(record(ps, p, r)[1 + kind], &f[0], &f[1]);
    if (isfinite(f[0]) && f[0] > 0 && isfinite(f[1]) && f[1] > 0) {
      v[2 * n] = f[0];
      v[2 * n + 1] = f[1];
      n++;
    }
  }
  qsort(v, n, 2 * sizeof *v, cmp_pair);
  while (ntaken < PER_EXCHANGE) {
    size_t best = 0, best_len = 0;
    for (size_t i = 0, len; i < n; i += len) {
      int seen = 0;
      for (len = 1; i + len < n && v[2 * (i + len)] == v[2 * i]; len++)
        ;
      for (int t = 0; t < ntaken; t++)
        seen |= taken[t] == v[2 * i];
      if (!seen && len > best_len) {
        best = i;
        best_len = len;
      }
    }
    if (best_len == 0)
      break;
    taken[ntaken++] = v[2 * best];
    /* the seconds of one size are sorted, at stride 2 */
    window_add(
        &ps->win[kind], v[2 * best],
        gsl_stats_median_from_sorted_data(&v[2 * best + 1], 2, best_len));
  }
}

/* The median of the ranks' idle times before the call of exchange p
 * (those known; NAN if none). */
static double median_idle(pat_state *ps, const pending *p) {
  size_t n = 0;
  for (int r = 0; r < ps->nranks; r++) {
    double took, idle;
    unpack2(record(ps, p, r)[EXIT], &took, &idle);
    if (isfinite(idle))
      ps->gaps[n++] = idle;
  }
  if (n == 0)
    return NAN;
  return gsl_stats_median(ps->gaps, 1, n); /* O(P), by selection */
}

static int observe(pat_state *ps, pending *p) {
  int rc = exchange_progress(ps, p, 1);
  if (rc == MPI_SUCCESS) {
    window *t = &ps->win[TRANSFER], *c = &ps->win[COMBINE];
    pat_model m;
    if (ps->observed >= 0 && p->prev_call == ps->observed) {
      /* the exits of the call observed last came with this exchange */
      double first = INFINITY, last = -INFINITY;
      double *iv =
          ps->rz_iv + (size_t)(ps->nrz % PAT_OBSERVED_KEPT) * ps->nranks;
      int all = 1;
      for (int r = 0; r < ps->nranks; r++) {
        double took, idle, exit;
        unpack2(record(ps, p, r)[EXIT], &took, &idle);
        exit = ps->work[r] + took; /* its stamp of that call, plus */
        first = fmin(first, ps->work[r]);
        last = fmax(last, exit);
        all &= isfinite(exit);
        iv[r] = took + ps->idles[r]; /* NAN where either is not known */
      }
      ps->rz[ps->nrz % PAT_OBSERVED_KEPT] = all ? last - first : NAN;
      ps->rz_call[ps->nrz++ % PAT_OBSERVED_KEPT] = ps->observed;
    }
    ps->idle[ps->nhist % PAT_OBSERVED_KEPT] = median_idle(ps, p);
    for (int r = 0; r < ps->nranks; r++) {
      double took;
      ps->work[r] = record(ps, p, r)[0];
      unpack2(record(ps, p, r)[EXIT], &took, &ps->idles[r]);
    }
    ps->observed = p->call;
    memcpy(ps->hist + (size_t)(ps->nhist % PAT_OBSERVED_KEPT) * ps->nranks,
           ps->work, (size_t)ps->nranks * sizeof *ps->work);
    ps->hist_call[ps->nhist++ % PAT_OBSERVED_KEPT] = p->call;
    /* not the communicator's first call: its stamps hold whatever set
     * the ranks apart before it (its creation, a barrier's exit), not a
     * pattern of the calls (see the header) */
    if (p->call > 0)
      pat_predictor_observe_at(ps->pred, ps->work, p->call);
    /* every rank's samples are from the same previous call */
    observe_kind(ps, p, TRANSFER);
    observe_kind(ps, p, COMBINE);
    /* the same exchanged points on every rank: the same decision */
    if ((!ps->fitted || t->fresh + c->fresh >= REFIT_POINTS) &&
        (t->fresh > 0 || c->fresh > 0)) {
      t->fresh = c->fresh = 0;
      /* a latency the samples do not resolve: the last fitted one, else
       * the configured model's (pat/fit.c) */
      double latency =
          ps->fitted ? ps->model.alpha : pat_config_model(ps->cfg)->alpha;
      if (pat_fit_model(t->bytes, t->sec, t->n, c->bytes, c->sec, c->n, latency,
                        &m)) {
        ps->model = m;
        ps->fitted = 1;
      }
    }
  }
  free(p->buf);
  p->buf = NULL;
  return rc;
}

/* Advances every exchange in flight without blocking. */
static int exchanges_progress(pat_state *ps) {
  int rc = MPI_SUCCESS;
  for (int i = 0; rc == MPI_SUCCESS && i < ps->npending; i++)
    rc = exchange_progress(ps, &ps->fifo[(ps->head + i) % PAT_EXCHANGE_SLOTS],
                           0);
  return rc;
}

_Static_assert(FIELDS * sizeof(double) == PAT_EXCHANGE_RECORD_BYTES,
               "PAT_EXCHANGE_RECORD_BYTES is the exchanged record's size");

int pat_exchange_on_wire(int nranks) {
  return (double)(nranks - 1) * PAT_EXCHANGE_RECORD_BYTES >=
         PAT_EXCHANGE_WIRE_BYTES;
}

int pat_exchange_interval(const pat_model *model, double bytes, int nranks) {
  int every = pat_config_get()->exchange_interval;
  double d = pat_model_round_cost(model, bytes);
  double records = (double)(nranks - 1) * PAT_EXCHANGE_RECORD_BYTES;
  double wire = records * model->beta; /* their time on the wire */
  if (every >= 0)
    return every;
  every = small_message(model, bytes) ? PAT_EXCHANGE_SMALL_EVERY : 1;
  while (pat_exchange_on_wire(nranks) && every < PAT_EXCHANGE_MAX_EVERY &&
         wire * PAT_EXCHANGE_SHARE > (double)every * d)
    every *= 2;
  return every;
}

int pat_size_class(double bytes) {
  int k = 0;
  while (bytes >= 4 && k < PAT_SIZE_CLASSES - 1) {
    bytes /= 4;
    k++;
  }
  return k;
}

/* Interval every of size class cls with the client's pace, if automatic
 * (pat_state_pace). */
static int paced(const pat_state *ps, int cls, int every) {
  long own = (long)every *
             (ps->stretch[cls] > 0 ? ps->stretch[cls] : ps->stretch_last);
  if (ps->cfg->exchange_interval >= 0)
    return every;
  return own < PAT_EXCHANGE_MAX_PACED ? (int)own : PAT_EXCHANGE_MAX_PACED;
}

/* The interval of the last arrival's size class at the pace set since
 * (quiet calls between do not arrive). */
static int paced_last(const pat_state *ps) {
  return paced(ps, ps->base_class, ps->base_of[ps->base_class]);
}

/* ps->recent from the intervals and paces of the classes that had a call
 * lately (one call of another size at the start would keep the clock
 * read at every call's end for good). */
static void recent_update(pat_state *ps) {
  ps->nrecent = 0;
  for (int k = 0; k < PAT_SIZE_CLASSES; k++) {
    int every = ps->base_of[k] > 0 &&
                        ps->calls - ps->seen_of[k] < PAT_EXCHANGE_MAX_PACED
                    ? paced(ps, k, ps->base_of[k])
                    : 0;
    if (every <= 0)
      continue;
    ps->recent[ps->nrecent] = k;
    ps->recent_every[ps->nrecent++] = every;
  }
}

/* Whether call index k is a multiple of every (> 0): by a mask where
 * every is a power of 2, as the automatic intervals and the paces
 * always are; a division only for a set interval that is not.  A quiet
 * call asks this 2-3 times (pat_state_skip), and its 64-bit divisions
 * were a third of the samples of pat_state_sampling, the quiet call's
 * costliest function (perf, P = 1, 4 B back to back, auto: 28% fewer
 * samples there with the mask). */
static int multiple_of(long k, long every) {
  return (every & (every - 1)) == 0 ? (k & (every - 1)) == 0 : k % every == 0;
}

/* Whether the next call of class k exchanges at its paced interval
 * (every > 0): the pace counts the class's own calls. */
static int class_due(const pat_state *ps, int k, long every) {
  return every > 0 && multiple_of(ps->class_calls[k], every);
}

/* Whether the next call exchanges (so this one samples for it), from
 * the state as it is now: kept in ps->sampling (pat_state_sampling). */
static void resample(pat_state *ps) {
  long next = ps->class_calls[ps->base_class] + 1;
  int every = paced_last(ps);
  ps->sampling = every > 0 &&
                 (multiple_of(next, every) || (ps->cfg->exchange_interval < 0 &&
                                               ps->soon == ps->calls + 1));
}

void pat_state_pace(pat_state *ps, double bytes, int stretch, long soon) {
  int cls = pat_size_class(bytes);
  ps->stretch_last = stretch >= 1 ? stretch : 1;
  ps->stretch[cls] = ps->stretch_last;
  ps->soon = soon;
  recent_update(ps);
  resample(ps);
}

int pat_state_arrive(pat_state *ps, double bytes, double *stamp) {
  int rc, every, automatic = ps->cfg->exchange_interval < 0;
  double came;
  pat_model m;
  int observed = 0;
  ps->quiet_bytes = NAN;
  if (pat_state_model(ps, &m)) {
    every = pat_exchange_interval(&m, bytes, ps->nranks);
  } else { /* no model yet: exchange every call (auto) until one is fitted */
    every = automatic ? 1 : ps->cfg->exchange_interval;
    m = *pat_config_model(ps->cfg); /* for the lag */
  }
  ps->base_class = pat_size_class(bytes);
  ps->seen_of[ps->base_class] = ps->calls;
  if (ps->base_of[ps->base_class] != every) {
    ps->base_of[ps->base_class] = every;
    recent_update(ps);
  }
  resample(ps);
  every = paced(ps, ps->base_class, every);
  *stamp = NAN;
  if (automatic && ps->soon == ps->calls)
    every = 1;
  /* the call's idle time ends here, before the layer's own work (the
   * exchanges' progress, a wait for one that is due) */
  came = class_due(ps, ps->base_class, every) ? pat_clock_local() : NAN;
  rc = exchanges_progress(ps);
  /* complete and observe what is due: the same calls on every rank */
  while (rc == MPI_SUCCESS && ps->npending > 0 &&
         ps->fifo[ps->head].due <= ps->calls) {
    observed = 1;
    rc = observe(ps, &ps->fifo[ps->head]);
    ps->head = (ps->head + 1) % PAT_EXCHANGE_SLOTS;
    ps->npending--;
  }
  if (rc == MPI_SUCCESS && class_due(ps, ps->base_class, every) &&
      ps->npending < PAT_EXCHANGE_SLOTS) {
    int slot = (ps->head + ps->npending) % PAT_EXCHANGE_SLOTS;
    pending *p = &ps->fifo[slot];
    double mine[FIELDS];
    *stamp = pat_state_now(ps);
    p->buf = malloc((size_t)ps->nranks * FIELDS * sizeof *p->buf);
    if (p->buf == NULL)
      return MPI_ERR_NO_MEM;
    mine[0] = *stamp;
    for (int kind = 0; kind < KINDS; kind++) {
      int j = (int)(ps->calls % KEPT); /* smallest, then largest size */
      if (!isfinite(ps->call[kind].bytes[j]))
        j = KEPT - 1 - j;
      mine[1 + kind] = pack2(ps->call[kind].bytes[j], ps->call[kind].sec[j]);
    }
    /* the exchange before's call, xcall: how long this rank took in it
     * (its exit less its stamp there); and how long it was idle before
     * this call (from the end of the call before to this one's start,
     * the PAT layer's work left out, on the local clock) */
    mine[EXIT] = pack2(ps->xexit - ps->xstamp, came - ps->left);
    p->prev_call = ps->xcall;
    ps->xcall = ps->calls;
    ps->xstamp = *stamp;
    ps->xexit = NAN;
    p->call = ps->calls;
    /* observed in the order started, every rank alike: a lag shorter
     * than the exchange before's waits for it */
    p->due = ps->calls + pat_exchange_lag(&m, bytes, ps->nranks);
    if (p->due < ps->last_due)
      p->due = ps->last_due;
    ps->last_due = p->due;
    if (p->due - ps->calls > ps->lag_max)
      ps->lag_max = (int)(p->due - ps->calls);
    p->slot = slot;
    rc = exchange_start(ps, p, mine);
    /* counted even on an error: its requests are waited for at the end */
    ps->npending++;
  }
  kept_reset(ps->call);
  /* an observation may have refitted the model, and with it the interval */
  if (rc == MPI_SUCCESS && !observed)
    ps->quiet_bytes = bytes;
  return rc;
}

/* The interval a call of bytes arriving now would use, pace included:
 * -1 if it cannot be told without arriving.  (pat_state_arrive computes
 * it from the model, which changes only when an observation refits it.) */
static int interval_now(const pat_state *ps, double bytes) {
  return bytes == ps->quiet_bytes ? paced_last(ps) : -1;
}

int pat_state_lag(const pat_state *ps) { return ps->lag_max; }

int pat_state_cycle(const pat_state *ps) {
  return pat_predictor_cycle(ps->pred);
}

int pat_state_quiet(const pat_state *ps, double bytes) {
  long k = ps->calls;
  int every = interval_now(ps, bytes);
  int automatic = ps->cfg->exchange_interval < 0;
  if (every < 0 || ps->npending > 0)
    return 0;
  /* predictions that follow a cycle differ from call to call: a pick
   * made for the call before need not stand */
  if (pat_predictor_cycle(ps->pred) > 1)
    return 0;
  if (class_due(ps, ps->base_class, every))
    return 0; /* it exchanges (one that samples for the next is quiet) */
  if (automatic && ps->soon == k)
    return 0;
  return ps->global_clock || ps->cfg->clock_refresh <= 0 ||
         (k + 1) % ps->cfg->clock_refresh != 0;
}

/* The next call from k on that is a multiple of every (every > 0). */
static long next_multiple(long k, long every) {
  return (k + every - 1) / every * every;
}

long pat_state_quiet_through(const pat_state *ps, double bytes) {
  long k = ps->calls, through = LONG_MAX;
  long own = ps->class_calls[ps->base_class]; /* bytes' class: quiet */
  int every = interval_now(ps, bytes);
  if (!pat_state_quiet(ps, bytes))
    return k - 1;
  /* the calls of its size before its next exchange's (a call of another
   * size is asked again) */
  if (every > 0)
    through = k + (next_multiple(own + 1, every) - 1 - own);
  if (ps->cfg->exchange_interval < 0 && ps->soon > k && ps->soon - 1 < through)
    through = ps->soon - 1;
  if (!ps->global_clock && ps->cfg->clock_refresh > 0) {
    long refresh = next_multiple(k + 1, ps->cfg->clock_refresh) - 2;
    through = refresh < through ? refresh : through;
  }
  return through;
}

/* Counts the call that ends.  Its samples, if it sampled, travel with
 * the next call's arrival; else the next one, if it samples, starts with
 * none (a quiet call skips pat_state_arrive, which clears them: the
 * trace times every call). */
static int next_call(pat_state *ps) {
  int sampled = ps->sampling;
  ps->class_calls[ps->base_class]++; /* arrived, or quiet: of its size */
  ps->calls++;
  if (ps->calls % PAT_EXCHANGE_MAX_PACED == 0) /* classes gone quiet */
    recent_update(ps);
  resample(ps);
  if (!sampled && ps->sampling)
    kept_reset(ps->call);
  return sampled;
}

/* The end of a call whose successor exchanges (sampled), or may (a call
 * of another size due at its pace: ps->recent): its idle time
 * starts here (no clock is read otherwise).  Read where only the
 * successor's own size said so, a call of 64 KiB in 100, exchanged while
 * the 4 B calls between were paced to every 1024th, never knew its idle
 * time, so auto never saw it come back to back. */
static void leave(pat_state *ps, int sampled) {
  int due = sampled;
  for (int i = 0; !due && i < ps->nrecent; i++)
    due = class_due(ps, ps->recent[i], ps->recent_every[i]);
  ps->left = due ? pat_clock_local() : NAN;
}

void pat_state_skip(pat_state *ps) { leave(ps, next_call(ps)); }

void pat_state_transfer_sample(pat_state *ps, double bytes, double seconds) {
  kept_add(&ps->call[TRANSFER], bytes, seconds);
}

void pat_state_combine_sample(pat_state *ps, double bytes, double seconds) {
  kept_add(&ps->call[COMBINE], bytes, seconds);
}

long pat_state_calls(const pat_state *ps) { return ps->calls; }

/* The ring slot of the k-th latest of count entries kept (the last
 * PAT_OBSERVED_KEPT), -1 past them. */
static int nth_slot(long count, int k) {
  long i = count - 1 - k;
  return k < 0 || k >= PAT_OBSERVED_KEPT || i < 0
             ? -1
             : (int)(i % PAT_OBSERVED_KEPT);
}

const double *pat_state_observed_nth(const pat_state *ps, int k, long *call) {
  int j = nth_slot(ps->nhist, k);
  *call = j < 0 ? -1 : ps->hist_call[j];
  return j < 0 ? NULL : ps->hist + (size_t)j * ps->nranks;
}

double pat_state_idle_nth(const pat_state *ps, int k, long *call) {
  int j = nth_slot(ps->nhist, k);
  *call = j < 0 ? -1 : ps->hist_call[j];
  return j < 0 ? NAN : ps->idle[j];
}

double pat_state_realized_nth(const pat_state *ps, int k, long *call) {
  int j = nth_slot(ps->nrz, k);
  *call = j < 0 ? -1 : ps->rz_call[j];
  return j < 0 ? NAN : ps->rz[j];
}

const double *pat_state_intervals_nth(const pat_state *ps, int k) {
  int j = nth_slot(ps->nrz, k);
  return j < 0 ? NULL : ps->rz_iv + (size_t)j * ps->nranks;
}

int pat_configured_model(const pat_config *cfg, pat_model *model) {
  if (cfg->round_cost > 0) {
    *model = (pat_model){cfg->round_cost, 0, 0};
    return 1;
  }
  if (cfg->has_model) {
    *model = cfg->model;
    return 1;
  }
  return 0;
}

int pat_model_configured(pat_model *model) {
  pat_model m;
  int have = pat_configured_model(pat_config_get(), &m);
  if (have && model != NULL)
    *model = m;
  return have;
}

int pat_state_model(const pat_state *ps, pat_model *model) {
  if (pat_configured_model(ps->cfg, model))
    return 1;
  if (ps->fitted)
    *model = ps->model;
  return ps->fitted;
}

const double *pat_state_predict(pat_state *ps, double bytes, pat_model *model) {
  if (pat_state_model(ps, model)) {
    double q = pat_model_round_cost(model, bytes) / PAT_PREDICT_GRID;
    long seen = pat_predictor_observed(ps->pred);
    /* a predictor that follows a cycle predicts by the call's phase */
    long phase = ps->calls % pat_predictor_cycle(ps->pred);
    if (seen == ps->pred_seen && q == ps->pred_q && phase == ps->pred_phase)
      return ps->predicted; /* as computed last: nothing new observed */
    /* it fails only for a call before the last observed one, which the
     * layer's lag rules out (pat_exchange_lag >= 1); then balanced as
     * below (alike on every rank: the same calls everywhere) */
    if (pat_predictor_predict_for(ps->pred, ps->calls, ps->predicted) ==
        PAT_SUCCESS) {
      for (int r = 0; q > 0 && isfinite(q) && r < ps->nranks; r++)
        ps->predicted[r] = q * nearbyint(ps->predicted[r] / q);
      ps->pred_seen = seen;
      ps->pred_q = q;
      ps->pred_phase = phase;
      return ps->predicted;
    }
  } else {
    *model = (pat_model){1.0, 0, 0};
  }
  /* no model yet, or no prediction: balanced, where the tree does not
   * depend on it, and not kept */
  memset(ps->predicted, 0, (size_t)ps->nranks * sizeof *ps->predicted);
  ps->pred_seen = -1;
  return ps->predicted;
}

int pat_state_sampling(const pat_state *ps) { return ps->sampling; }

int pat_state_exchanging(const pat_state *ps) {
  return ps != NULL && ps->xcall == ps->calls;
}

int pat_state_depart(pat_state *ps, double bytes) {
  int rc = MPI_SUCCESS;
  int sampled;
  (void)bytes; /* the samples carry their sizes */
  if (ps->xcall == ps->calls)
    ps->xexit = pat_state_now(ps);
  sampled = next_call(ps);
  rc = exchanges_progress(ps);
  if (rc == MPI_SUCCESS && !ps->global_clock && ps->cfg->clock_refresh > 0 &&
      ps->calls % ps->cfg->clock_refresh == 0)
    rc = pat_clock_sync(ps->priv, ps->clock_tag, 10, &ps->offset, NULL);
  leave(ps, sampled); /* after the layer's own work */
  return rc;
}
