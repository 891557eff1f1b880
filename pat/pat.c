/*
 * Per-communicator PAT state: arrival stamps on a global time base, their
 * exchange, the predictor and the measured round cost.
 *
 * Principle: every rank must build the same schedule, so everything that
 * shapes it comes from exchanged data, observed at the same call on every
 * rank.  In call k (every PAT_REDUCE_EXCHANGE_INTERVAL calls; 0: never,
 * for a known round cost and told arrival times) each rank
 * contributes {arrival stamp, its measured round cost, message bytes} to a
 * non-blocking allgather; the allgather is completed, and its data
 * observed, at the start of call k + L (PAT_REDUCE_EXCHANGE_LAG), whatever
 * has or has not completed locally before.  No blocking collective sits
 * in the reduction's critical path: the wait in call k + L is for data
 * every rank sent L calls ago.
 *
 * Round cost: the executor reports, per call, the fastest of the rank's
 * rounds that received (wait + combine; the fastest one waited least for
 * a late sender).  The median over the ranks of one exchange, smoothed
 * (new = (old + median) / 2), is the cost of that message size; other
 * sizes use the nearest measured size.  PAT_REDUCE_ROUND_COST or
 * PAT_REDUCE_MODEL override the measurement.  Until a cost is known the
 * prediction is balanced, for which the greedy tree does not depend on d.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "pat/pat_layer.h"

#define MAX_PENDING 65
#define MAX_SIZES 8
enum { FIELDS = 3 }; /* per rank and exchange: stamp, round cost, bytes */

typedef struct pending {
  MPI_Request req;
  long due; /* call at whose start it is completed */
  double mine[FIELDS];
  double *all; /* nranks * FIELDS */
} pending;

struct pat_state {
  MPI_Comm priv;
  int nranks, clock_tag;
  const pat_config *cfg;
  int global_clock;
  double offset; /* add to pat_clock_local() for the global time base */
  long calls;    /* calls on this communicator since the state exists */
  pat_predictor *pred;
  pending fifo[MAX_PENDING];
  int head, npending;
  double sample;     /* this rank's fastest round in the last call */
  double last_bytes; /* message bytes of the last call */
  int nsizes;
  double sizes[MAX_SIZES], costs[MAX_SIZES];
  double *work;      /* nranks: stamps and costs being observed */
  double *predicted; /* nranks */
};

int pat_state_alloc(MPI_Comm priv, int clock_tag, const pat_config *cfg,
                    pat_state **out) {
  pat_state *ps = calloc(1, sizeof *ps);
  int rc = MPI_SUCCESS, found = 0, *global = NULL;
  if (ps == NULL) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  ps->priv = priv;
  ps->cfg = cfg;
  ps->clock_tag = clock_tag;
  ps->sample = NAN;
  PMPI_Comm_size(priv, &ps->nranks);
  ps->work = malloc((size_t)ps->nranks * sizeof *ps->work);
  ps->predicted = calloc((size_t)ps->nranks, sizeof *ps->predicted);
  if (ps->work == NULL || ps->predicted == NULL ||
      pat_predictor_alloc(cfg->predictor, ps->nranks, &ps->pred, NULL, 0) !=
          PAT_SUCCESS) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  rc = PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
  ps->global_clock = rc == MPI_SUCCESS && found && *global;
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
  /* every rank frees the communicator, so the allgathers complete */
  for (int i = 0; i < ps->npending; i++) {
    pending *p = &ps->fifo[(ps->head + i) % MAX_PENDING];
    PMPI_Wait(&p->req, MPI_STATUS_IGNORE);
    free(p->all);
  }
  pat_predictor_free(ps->pred);
  free(ps->work);
  free(ps->predicted);
  free(ps);
}

double pat_state_now(const pat_state *ps) {
  return pat_clock_local() + ps->offset;
}

/* Median of the finite values among n, sorted in place; NaN if none. */
static double median_finite(double *v, int n) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(v[i]))
      v[k++] = v[i];
  if (k == 0)
    return NAN;
  gsl_sort(v, 1, (size_t)k);
  return gsl_stats_median_from_sorted_data(v, 1, (size_t)k);
}

static void learn_cost(pat_state *ps, double bytes, double d) {
  int i = 0;
  if (!isfinite(d) || d <= 0)
    return;
  while (i < ps->nsizes && ps->sizes[i] != bytes)
    i++;
  if (i < ps->nsizes) {
    ps->costs[i] = (ps->costs[i] + d) / 2;
    return;
  }
  if (ps->nsizes == MAX_SIZES) { /* forget the oldest size */
    ps->nsizes--;
    memmove(ps->sizes, ps->sizes + 1, (size_t)ps->nsizes * sizeof *ps->sizes);
    memmove(ps->costs, ps->costs + 1, (size_t)ps->nsizes * sizeof *ps->costs);
  }
  ps->sizes[ps->nsizes] = bytes;
  ps->costs[ps->nsizes++] = d;
}

static int observe(pat_state *ps, pending *p) {
  int rc = PMPI_Wait(&p->req, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS) {
    for (int r = 0; r < ps->nranks; r++)
      ps->work[r] = p->all[r * FIELDS];
    pat_predictor_observe(ps->pred, ps->work);
    for (int r = 0; r < ps->nranks; r++)
      ps->work[r] = p->all[r * FIELDS + 1];
    /* every rank's sample is from the same previous call, of p->all[2]
     * bytes on every rank */
    learn_cost(ps, p->all[2], median_finite(ps->work, ps->nranks));
  }
  free(p->all);
  p->all = NULL;
  return rc;
}

int pat_state_arrive(pat_state *ps, double *stamp) {
  int rc = MPI_SUCCESS;
  *stamp = pat_state_now(ps);
  /* complete and observe what is due: the same calls on every rank */
  while (rc == MPI_SUCCESS && ps->npending > 0 &&
         ps->fifo[ps->head].due <= ps->calls) {
    rc = observe(ps, &ps->fifo[ps->head]);
    ps->head = (ps->head + 1) % MAX_PENDING;
    ps->npending--;
  }
  if (rc == MPI_SUCCESS && ps->cfg->exchange_interval > 0 &&
      ps->calls % ps->cfg->exchange_interval == 0 &&
      ps->npending < MAX_PENDING) {
    pending *p = &ps->fifo[(ps->head + ps->npending) % MAX_PENDING];
    p->all = malloc((size_t)ps->nranks * FIELDS * sizeof *p->all);
    if (p->all == NULL)
      return MPI_ERR_NO_MEM;
    p->mine[0] = *stamp;
    p->mine[1] = ps->sample;
    p->mine[2] = ps->last_bytes;
    p->due = ps->calls + ps->cfg->exchange_lag;
    rc = PMPI_Iallgather(p->mine, FIELDS, MPI_DOUBLE, p->all, FIELDS,
                         MPI_DOUBLE, ps->priv, &p->req);
    if (rc == MPI_SUCCESS)
      ps->npending++;
    else
      free(p->all);
  }
  ps->sample = NAN;
  return rc;
}

void pat_state_transfer_sample(pat_state *ps, double bytes, double seconds) {
  (void)bytes;
  if (!(seconds >= ps->sample)) /* keeps the fastest; NaN replaced */
    ps->sample = seconds;
}

void pat_state_combine_sample(pat_state *ps, double bytes, double seconds) {
  (void)ps;
  (void)bytes;
  (void)seconds;
}

int pat_state_model(const pat_state *ps, pat_model *model) {
  double d = NAN, dist = INFINITY;
  if (ps->cfg->round_cost > 0) {
    *model = (pat_model){ps->cfg->round_cost, 0, 0};
    return 1;
  }
  if (ps->cfg->has_model) {
    *model = ps->cfg->model;
    return 1;
  }
  for (int i = 0; i < ps->nsizes; i++)
    if (fabs(ps->sizes[i] - ps->last_bytes) < dist) {
      dist = fabs(ps->sizes[i] - ps->last_bytes);
      d = ps->costs[i];
    }
  if (isfinite(d))
    *model = (pat_model){d, 0, 0};
  return isfinite(d);
}

const double *pat_state_predict(pat_state *ps, pat_model *model) {
  if (pat_state_model(ps, model)) {
    pat_predictor_predict(ps->pred, ps->predicted);
  } else {
    /* no model yet: balanced, where the tree does not depend on it */
    memset(ps->predicted, 0, (size_t)ps->nranks * sizeof *ps->predicted);
    *model = (pat_model){1.0, 0, 0};
  }
  return ps->predicted;
}

int pat_state_depart(pat_state *ps, double bytes) {
  int rc = MPI_SUCCESS;
  ps->calls++;
  ps->last_bytes = bytes;
  if (!ps->global_clock && ps->cfg->clock_refresh > 0 &&
      ps->calls % ps->cfg->clock_refresh == 0)
    rc = pat_clock_sync(ps->priv, ps->clock_tag, 10, &ps->offset, NULL);
  return rc;
}
