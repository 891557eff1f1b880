/*
 * patbench: time-to-solution of reductions under injected arrival
 * imbalance (Marendić 2016, Algorithm 7).
 *
 * For every message size, arrival pattern and imbalance, rank 0 draws the
 * delays of every repetition (seeded GSL generator) and scatters them,
 * each rank getting its own (and, when the oracle runs, every rank the
 * repetition's whole row before it: the oracle is told all arrivals), so
 * every algorithm sees the same arrival pattern sequence and no rank but
 * 0 holds more than one row.  A repetition
 * runs every algorithm once, in an order rotated per repetition so that
 * drift hits all alike: synchronise (double barrier, or a start window on
 * the global clock), sleep this rank's delay, stamp the arrival, reduce,
 * stamp the exit (--burst K: K calls back to back between the stamps, as
 * IMB times them, and times divided by K; --root rotate: call i of a burst
 * at rank i mod P, as IMB does).  Stamps are on rank 0's clock
 * (pat_clock_estimate_offset), gathered after the repetition, outside the
 * timed region, and rank 0's broadcast after it ends the repetition (no
 * rank goes on before every call is over), so that no call's traffic
 * overlaps the next configuration's warm-up.  The first repetition
 * is dropped.
 *
 * Per configuration and algorithm: time-to-solution max(exit) -
 * min(arrival) (the headline), the per-rank mean runtime mean(exit -
 * arrival), the measured imbalance max(arrival) - min(arrival), and the
 * absorption t(balanced) - t(a) + I(a).  Summaries (median, 95% bootstrap
 * CI, quantiles, permutation p-value of the median ratio against the
 * reference) go to stdout and to the CSV of --output; --plot draws them
 * with gnuplot.  The clairvoyant algorithm runs with its predicted arrival
 * times (`clairvoyant`) and told the true ones (`oracle`).
 *
 * Every result is checked at the root against MPI_Reduce's; a wrong one
 * makes patbench exit 1.  In the SMPI build, message buffers of more than
 * --shared-above bytes come from SMPI_SHARED_MALLOC (one block of memory
 * for every rank, so 128 ranks x 40 MiB fit in memory); their contents
 * are meaningless and those results are not checked (said in the table
 * header, on stderr and in the CSV's `checked` column).
 *
 * --op sum-charged: the `native` row (the MPI library's own reduce) gets a
 * user-defined commutative sum that combines with pat_reduce_local, which
 * in the SMPI build charges gamma per byte as every combine of the
 * library does; SMPI's built-in reduces otherwise combine for free.  The
 * library's own rows keep MPI_SUM: they charge already.  --op sum-ordered:
 * the same, but both ops are declared non-commutative (the library's rows
 * get a plain sum through MPI_Reduce_local: their combine charges), so
 * every row keeps rank order.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <mpi.h>
#ifdef PATREDUCE_SMPI
#include <smpi/smpi.h>
#endif

#include "escape.h"
#include "patbench.h"
#include "plot.h"
#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"
#include "reduce/pat_trace.h"

/* What one process needs to run and time the calls. */
typedef struct bench {
  const pb_options *opt;
  int rank, size, root;
  double offset; /* add to MPI_Wtime() for rank 0's clock */
  MPI_Datatype type;
  MPI_Op op;
  MPI_Op native_op; /* op of the `native` row: op, or the charged sum */
  int count;
  size_t bytes;
  void *send, *recv, *expect;
  int shared;   /* send and recv are SMPI_SHARED_MALLOC: results unchecked */
  int noticed;  /* the "not checked" note is on stderr */
  gsl_rng *rng; /* rank 0: patterns, bootstrap, permutations */
  FILE *csv;
  FILE *trace;   /* rank 0: the --trace JSON, NULL if not asked */
  int trace_pid; /* one trace "process" per configuration and algorithm */
  pb_plot *plot;
  int errors;
  int config, nconfigs;
  /* each algorithm runs on its own duplicate of MPI_COMM_WORLD, as in an
   * application that uses only it: the PAT layer's stamp exchange, on
   * once a communicator has served a clairvoyant call, then costs only
   * clairvoyant and oracle */
  int ncomms;
  int comm_alg[PB_MAX_LIST + 1];
  MPI_Comm comm[PB_MAX_LIST + 1];
} bench;

/* One configuration's delays (seconds before a rank arrives). */
typedef struct delays {
  double *all;   /* rank 0: [rep][rank], NULL elsewhere */
  double *mine;  /* [rep]: this rank's */
  double *row;   /* [rank]: the current repetition's, when the oracle runs
                    (NULL otherwise) */
  double window; /* --sync window: the slot of one call */
} delays;

/* One configuration's samples, on rank 0: [alg][rep]. */
typedef struct samples {
  int nalgs, reps;
  double *tts, *rank_mean, *imbalance;
} samples;

static void sleep_seconds(double s) {
  struct timespec ts;
  if (s <= 0)
    return;
  ts.tv_sec = (time_t)s;
  ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
  while (nanosleep(&ts, &ts) != 0)
    ;
}

static double now(const bench *b) { return MPI_Wtime() + b->offset; }

/* A new communicator of MPI_COMM_WORLD's ranks: a duplicate, or in the
 * SMPI build one made from its group, as the library makes its own
 * (SMPI's MPI_Comm_dup copies the group for every rank: O(P^2) memory in
 * its one process). */
static int world_copy(MPI_Comm *comm) {
#ifdef PATREDUCE_SMPI
  MPI_Group group;
  int rc = MPI_Comm_group(MPI_COMM_WORLD, &group);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Comm_create(MPI_COMM_WORLD, group, comm);
    MPI_Group_free(&group);
  }
  return rc;
#else
  return MPI_Comm_dup(MPI_COMM_WORLD, comm);
#endif
}

/* The communicator of alg, made on first use (every rank asks for the
 * algorithms in the same order, so making it is collective). */
static MPI_Comm comm_of(bench *b, int alg) {
  int i = 0;
  while (i < b->ncomms && b->comm_alg[i] != alg)
    i++;
  if (i == b->ncomms) {
    b->comm_alg[i] = alg;
    if (world_copy(&b->comm[i]) != MPI_SUCCESS)
      MPI_Abort(MPI_COMM_WORLD, 1);
    b->ncomms++;
  }
  return b->comm[i];
}

/* One call of alg on its communicator.  The oracle is the clairvoyant
 * algorithm told the arrivals (the library's call option); with none
 * (warm-up) it predicts them, which measures the cost model it needs.
 * The native row calls the MPI library's reduce itself (PMPI_Reduce: the
 * library's own even under the MPI_Reduce override), as an application
 * without the library would: through the library's dispatcher it paid
 * the library's per-call cost too, which hid most of the difference at
 * 8 bytes. */
static int call(bench *b, int alg, const double *arrivals) {
  MPI_Comm comm = comm_of(b, alg);
  pat_reduce_alg id =
      alg == PB_ALG_ORACLE ? PAT_REDUCE_ALG_CLAIRVOYANT : (pat_reduce_alg)alg;
  if (alg == PAT_REDUCE_ALG_NATIVE)
    return PMPI_Reduce(b->send, b->recv, b->count, b->type, b->native_op,
                       b->root, comm);
  return alg == PB_ALG_ORACLE && arrivals != NULL
             ? pat_reduce_with_arrivals(id, b->send, b->recv, b->count, b->type,
                                        b->op, b->root, comm, arrivals, 0)
             : pat_reduce_using(id, b->send, b->recv, b->count, b->type, b->op,
                                b->root, comm);
}

/* --op sum-charged: a sum through the library's combine, which charges
 * gamma per byte of simulated time in the SMPI build (a plain sum
 * outside it). */
static void charged_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  if (pat_reduce_local(in, inout, *len, *type, MPI_SUM) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* --op sum-ordered: MPI's own sum, as a user-defined op the library's rows
 * must treat as non-commutative. */
static void plain_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  if (PMPI_Reduce_local(in, inout, *len, *type, MPI_SUM) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Message buffers: shared by every rank above --shared-above bytes in the
 * SMPI build, private otherwise. */
static void *buf_alloc(const bench *b, size_t bytes) {
#ifdef PATREDUCE_SMPI
  if (b->shared)
    return SMPI_SHARED_MALLOC(bytes);
#endif
  (void)b;
  return malloc(bytes ? bytes : 1);
}

static void buf_free(const bench *b, void *p) {
#ifdef PATREDUCE_SMPI
  if (b->shared) {
    if (p != NULL)
      SMPI_SHARED_FREE(p);
    return;
  }
#endif
  (void)b;
  free(p);
}

/* Fills the send buffer with small integers (exact in every datatype and
 * under every order of combination) and computes the expected result. */
static int prepare(bench *b, size_t bytes) {
  const pb_type_row *t = &pb_types[b->opt->type];
  int rc = MPI_ERR_NO_MEM;
  buf_free(b, b->send);
  buf_free(b, b->recv);
  free(b->expect);
  b->send = b->recv = b->expect = NULL;
  b->bytes = bytes;
  b->count = (int)(bytes / t->size);
#ifdef PATREDUCE_SMPI
  b->shared = bytes > b->opt->shared_above;
#endif
  b->send = buf_alloc(b, bytes);
  b->recv = buf_alloc(b, bytes);
  if (b->send == NULL || b->recv == NULL)
    goto out;
  if (b->shared) {
    /* one block for all ranks: zeros stay zeros under any sum, so no
     * overflow, NaN or denormal slows the real combines down */
    memset(b->send, 0, bytes);
    if (b->rank == 0 && !b->noticed)
      fprintf(stderr,
              "patbench: buffers of more than %zu B are shared by all "
              "ranks (SMPI_SHARED_MALLOC, --shared-above): those results "
              "are not checked\n",
              b->opt->shared_above);
    b->noticed = 1;
    rc = MPI_SUCCESS;
    goto out;
  }
  b->expect = malloc(bytes ? bytes : 1);
  if (b->expect == NULL)
    goto out;
  for (int i = 0; i < b->count; i++) {
    int v = (b->rank + i) % 7 - 3;
    if (t->type == MPI_DOUBLE)
      ((double *)b->send)[i] = v;
    else if (t->type == MPI_FLOAT)
      ((float *)b->send)[i] = (float)v;
    else if (t->type == MPI_INT)
      ((int *)b->send)[i] = v;
    else
      ((long *)b->send)[i] = v;
  }
  /* on every rank: with --root rotate any rank may be the root checked */
  rc = MPI_Allreduce(b->send, b->expect, b->count, b->type, b->op,
                     MPI_COMM_WORLD);
out:
  return rc;
}

static int check(bench *b, int alg) {
  if (!b->shared && b->rank == b->root &&
      memcmp(b->recv, b->expect, b->bytes) != 0) {
    fprintf(stderr, "patbench: %s gave a wrong result (%zu bytes, root %d)\n",
            pb_alg_name(alg), b->bytes, b->root);
    return 1;
  }
  return 0;
}

static void progress(const bench *b, const char *what, int rep, int reps) {
  if (b->rank != 0 || b->opt->quiet)
    return;
  if (isatty(2))
    fprintf(stderr, "\rpatbench: [%d/%d] %-40s rep %d/%d   ", b->config,
            b->nconfigs, what, rep, reps);
  else if (rep == 0)
    fprintf(stderr, "patbench: [%d/%d] %s\n", b->config, b->nconfigs, what);
}

enum { TRACE_CAP = 1024 }; /* events per rank and call */

/* Gathers the traced call of every rank to rank 0 and appends it to the
 * trace file: one "process" per configuration and algorithm, one "thread"
 * per rank, a slice for the delay, one for the whole call and one per
 * send, receive and combine.  Times in microseconds from the earliest
 * arrival. */
static void trace_write(bench *b, const char *what, int alg,
                        pat_trace_event *ev, int n, const double *stamps,
                        double delay) {
  int *counts = NULL, *displs = NULL, total = 0, bytes = n * (int)sizeof *ev;
  pat_trace_event *all = NULL;
  double *st = NULL, t0 = INFINITY;
  if (b->rank == 0) {
    counts = malloc((size_t)b->size * sizeof *counts);
    displs = malloc((size_t)b->size * sizeof *displs);
    st = malloc((size_t)b->size * 3 * sizeof *st);
  }
  for (int i = 0; i < n; i++) { /* onto rank 0's clock */
    ev[i].t0 += b->offset;
    ev[i].t1 += b->offset;
  }
  MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; b->rank == 0 && i < b->size; i++) {
    displs[i] = total;
    total += counts[i];
  }
  if (b->rank == 0)
    all = malloc(total > 0 ? (size_t)total : 1);
  MPI_Gatherv(ev, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
              MPI_COMM_WORLD);
  MPI_Gather((double[3]){stamps[0], stamps[1], delay}, 3, MPI_DOUBLE, st, 3,
             MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (b->rank != 0)
    goto out;
  for (int i = 0; i < b->size; i++)
    t0 = fmin(t0, st[3 * i]);
  b->trace_pid++;
  {
    char name[512]; /* the configuration, with a user's trace file name */
    snprintf(name, sizeof name, "%s: %s", what, pb_alg_name(alg));
    fprintf(b->trace,
            "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,"
            "\"args\":{\"name\":",
            b->trace_pid > 1 ? ",\n" : "", b->trace_pid);
    pb_json_string(b->trace, name);
    fprintf(b->trace, "}}");
  }
  for (int i = 0; i < b->size; i++) {
    const pat_trace_event *e =
        (const pat_trace_event *)((char *)all + displs[i]);
    double in = (st[3 * i] - t0) * 1e6, out = (st[3 * i + 1] - t0) * 1e6;
    fprintf(b->trace,
            ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,"
            "\"tid\":%d,\"args\":{\"name\":\"rank %d\"}}",
            b->trace_pid, i, i);
    if (st[3 * i + 2] > 0)
      fprintf(b->trace,
              ",\n{\"name\":\"late\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
              "\"ts\":%.3f,\"dur\":%.3f}",
              b->trace_pid, i, in - st[3 * i + 2] * 1e6, st[3 * i + 2] * 1e6);
    fprintf(b->trace,
            ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
            "\"ts\":%.3f,\"dur\":%.3f}",
            pb_alg_name(alg), b->trace_pid, i, in, out - in);
    for (int k = 0; k < counts[i] / (int)sizeof *e; k++) {
      char name[64];
      if (e[k].kind == PAT_TRACE_COMBINE)
        snprintf(name, sizeof name, "combine");
      else
        snprintf(name, sizeof name, "%s %s %d", pat_trace_kind_name(e[k].kind),
                 e[k].kind == PAT_TRACE_SEND ? "to" : "from", e[k].peer);
      fprintf(b->trace,
              ",\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
              "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"count\":%d}}",
              name, b->trace_pid, i, (e[k].t0 - t0) * 1e6,
              (e[k].t1 - e[k].t0) * 1e6, e[k].count);
    }
  }
out:
  free(counts);
  free(displs);
  free(all);
  free(st);
}

/* rc if every rank's rc is MPI_SUCCESS, else a failure on every rank (one
 * allreduce): a rank that cannot go on must not leave the others waiting
 * in the next collective. */
static int all_ok(int rc) {
  int bad = rc != MPI_SUCCESS;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return bad ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* Runs one configuration with delays d.  On rank 0 fills s. */
static int run_config(bench *b, const int *algs, int nalgs, const delays *d,
                      const char *what, samples *s) {
  const pb_options *o = b->opt;
  int reps = o->reps, rc = MPI_SUCCESS;
  double *stamps = malloc((size_t)nalgs * 2 * sizeof *stamps);
  pat_trace_event *events =
      o->trace ? malloc((size_t)nalgs * TRACE_CAP * sizeof *events) : NULL;
  size_t *nevents = calloc((size_t)nalgs, sizeof *nevents);
  double *all =
      b->rank == 0 ? malloc((size_t)b->size * nalgs * 2 * sizeof *all) : NULL;
  int told = 0; /* the oracle runs: every rank needs the whole row */
  for (int m = 0; m < nalgs; m++)
    told |= algs[m] == PB_ALG_ORACLE;
  if (stamps == NULL || nevents == NULL || (o->trace && events == NULL) ||
      (b->rank == 0 && all == NULL))
    rc = MPI_ERR_NO_MEM;
  if (all_ok(rc) != MPI_SUCCESS) {
    rc = rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    goto out;
  }
  for (int r = 0; r < reps; r++) {
    double start = 0;
    progress(b, what, r, reps);
    if (told && d->row != NULL) { /* the oracle's: every rank's delay */
      if (b->rank == 0)
        memcpy(d->row, d->all + (size_t)r * b->size,
               (size_t)b->size * sizeof *d->row);
      MPI_Bcast(d->row, b->size, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    if (o->sync == PB_SYNC_WINDOW) {
      if (b->rank == 0)
        start = now(b) + d->window;
      MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    for (int j = 0; j < nalgs; j++) {
      int k = (j + r) % nalgs, alg = algs[k];
      if (o->sync == PB_SYNC_WINDOW) {
        double wait = start + j * d->window - now(b);
        sleep_seconds(wait + d->mine[r]);
      } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        sleep_seconds(d->mine[r]);
      }
      /* --trace: the last repetition */
      if (events != NULL && r == reps - 1)
        pat_trace_start(comm_of(b, alg), events + (size_t)k * TRACE_CAP,
                        TRACE_CAP);
      stamps[2 * k] = now(b);
      for (int i = 0; i < o->burst; i++) {
        if (o->root == PB_ROOT_ROTATE)
          b->root = i % b->size;
        if (call(b, alg, d->row) != MPI_SUCCESS)
          b->errors++;
      }
      stamps[2 * k + 1] = now(b);
      if (events != NULL && r == reps - 1)
        pat_trace_stop(comm_of(b, alg), &nevents[k], NULL);
      b->errors += check(b, alg);
    }
    MPI_Gather(stamps, 2 * nalgs, MPI_DOUBLE, all, 2 * nalgs, MPI_DOUBLE, 0,
               MPI_COMM_WORLD);
    /* the end of the repetition: once rank 0 has every rank's stamps,
     * every call is over; its broadcast lets the ranks go on (a barrier
     * of two tree collectives, where SMPI's barriers send P log P
     * messages: 7 s of simulation each at P = 16384) */
    {
      int over = r;
      MPI_Bcast(&over, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    for (int k = 0; b->rank == 0 && k < nalgs; k++) {
      double lo = INFINITY, hi = -INFINITY, last = -INFINITY, sum = 0;
      for (int i = 0; i < b->size; i++) {
        double in = all[(size_t)i * nalgs * 2 + 2 * k];
        double outt = all[(size_t)i * nalgs * 2 + 2 * k + 1];
        lo = fmin(lo, in);
        last = fmax(last, in);
        hi = fmax(hi, outt);
        sum += outt - in;
      }
      s->tts[k * reps + r] = (hi - lo) / o->burst;
      s->rank_mean[k * reps + r] = sum / b->size / o->burst;
      s->imbalance[k * reps + r] = last - lo;
    }
  }
  for (int k = 0; events != NULL && k < nalgs; k++)
    trace_write(b, what, algs[k], events + (size_t)k * TRACE_CAP,
                (int)nevents[k], stamps + 2 * k, d->mine[reps - 1]);
  progress(b, what, reps, reps);
  if (b->rank == 0 && !o->quiet && isatty(2))
    fprintf(stderr, "\n");
out:
  free(stamps);
  free(events);
  free(nevents);
  free(all);
  return rc;
}

static int samples_alloc(samples *s, int nalgs, int reps) {
  size_t n = (size_t)nalgs * reps;
  s->nalgs = nalgs;
  s->reps = reps;
  s->tts = calloc(n, sizeof *s->tts);
  s->rank_mean = calloc(n, sizeof *s->rank_mean);
  s->imbalance = calloc(n, sizeof *s->imbalance);
  return s->tts && s->rank_mean && s->imbalance ? 0 : 1;
}

static void samples_free(samples *s) {
  free(s->tts);
  free(s->rank_mean);
  free(s->imbalance);
}

static void csv_header(FILE *f) {
  fprintf(f, "tag,nranks,bytes,count,datatype,op,root,pattern,imbalance,"
             "imbalance_s,algorithm,n,tts_min,tts_q25,tts_median,tts_mean,"
             "tts_q75,tts_q95,tts_max,tts_ci_lo,tts_ci_hi,speedup,p_value,"
             "rank_mean_runtime,absorption,measured_imbalance,checked,burst\n");
}

/* Summarises and reports a configuration (rank 0).  balanced[k]: the
 * balanced median of algs[k] at this size (for the absorption). */
static void report(bench *b, const int *algs, int nalgs, samples *s,
                   const char *pattern, const char *imb_text, double imb_s,
                   const double *balanced, double *medians) {
  const pb_options *o = b->opt;
  size_t n = (size_t)s->reps - 1; /* the first repetition is dropped */
  int ref = 0;
  double *xr, ref_med;
  for (int k = 0; k < nalgs; k++)
    if (algs[k] == o->reference)
      ref = k;
  xr = s->tts + (size_t)ref * s->reps + 1;
  ref_med = pb_median(xr, n);
  size_t imb_len = strlen(imb_text);
  /* "2x" of another unit than binomial says which */
  int other_unit = o->unit != PAT_REDUCE_ALG_BINOMIAL && imb_len > 0 &&
                   imb_text[imb_len - 1] == 'x';
  char root[16];
  if (o->root == PB_ROOT_ROTATE)
    snprintf(root, sizeof root, "rotate");
  else
    snprintf(root, sizeof root, "%d", b->root);
  printf("\nP=%d, %zu B (%d %s), %s, root %s, pattern %s, imbalance %s%s%s%s, "
         "%zu reps%s%s\n",
         b->size, b->bytes, b->count, pb_types[o->type].name,
         pb_ops[o->op].name, root, pattern, imb_text,
         other_unit ? " (x = " : "", other_unit ? pb_alg_name(o->unit) : "",
         other_unit ? " balanced)" : "", n,
         b->shared ? ", shared buffers: results not checked" : "",
         o->burst > 1 ? ", per call of back-to-back bursts" : "");
  printf("%-13s %10s %21s %9s %9s %9s %8s %7s %9s %9s\n", "algorithm",
         "median ms", "95% CI ms", "min ms", "mean ms", "q95 ms", "speedup",
         "p", "rank ms", "absorb ms");
  for (int k = 0; k < nalgs; k++) {
    pb_summary sum;
    double *x = s->tts + (size_t)k * s->reps + 1;
    double p = k == ref ? 1 : pb_permutation_p(x, n, xr, n, o->perms, b->rng);
    double rank_med, imb_med, absorb;
    rank_med = pb_median(s->rank_mean + (size_t)k * s->reps + 1, n);
    imb_med = pb_median(s->imbalance + (size_t)k * s->reps + 1, n);
    pb_summarize(x, n, o->boot, b->rng, &sum);
    medians[k] = sum.median;
    absorb = balanced ? balanced[k] - sum.median + imb_med : 0;
    char ptext[16] = "-"; /* no p-value for deterministic runs */
    if (!isnan(p))
      snprintf(ptext, sizeof ptext, "%.3f", p);
    printf("%-13s %10.3f %10.3f-%-10.3f %9.3f %9.3f %9.3f %8.2f %7s %9.3f "
           "%9.3f\n",
           pb_alg_name(algs[k]), sum.median * 1e3, sum.ci_lo * 1e3,
           sum.ci_hi * 1e3, sum.min * 1e3, sum.mean * 1e3, sum.q95 * 1e3,
           ref_med / sum.median, ptext, rank_med * 1e3, absorb * 1e3);
    if (b->csv != NULL) { /* the tag and a trace pattern's file: user text */
      pb_csv_field(b->csv, o->tag);
      fprintf(b->csv, ",%d,%zu,%d,%s,%s,%s,", b->size, b->bytes, b->count,
              pb_types[o->type].name, pb_ops[o->op].name, root);
      pb_csv_field(b->csv, pattern);
      fprintf(b->csv,
              ",%s,%.9g,%s,%zu,%.9g,%.9g,%.9g,%.9g,"
              "%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,",
              imb_text, imb_s, pb_alg_name(algs[k]), n, sum.min, sum.q25,
              sum.median, sum.mean, sum.q75, sum.q95, sum.max, sum.ci_lo,
              sum.ci_hi, ref_med / sum.median);
      if (!isnan(p)) /* empty: deterministic runs have no p-value */
        fprintf(b->csv, "%.6g", p);
      fprintf(b->csv, ",%.9g,%.9g,%.9g,%d,%d\n", rank_med, absorb, imb_med,
              !b->shared, o->burst);
    }
    if (b->plot != NULL)
      pb_plot_add(b->plot, b->bytes, pattern, imb_s, pb_alg_name(algs[k]),
                  sum.median, sum.ci_lo, sum.ci_hi, ref_med / sum.median,
                  absorb);
  }
  fflush(stdout);
}

/* Delays of a configuration: drawn on rank 0, each rank's scattered to
 * it, and the --sync window: --window, or room for the slowest balanced
 * call plus the largest delay, three times over.  tmp: rank 0's
 * [rank][rep] transpose for the scatter. */
static int make_delays(bench *b, const pb_pattern *pat, double magnitude,
                       double ref, double slowest, delays *d, double *tmp) {
  const pb_options *o = b->opt;
  int rc;
  if (b->rank == 0) {
    double dmax = 0;
    gsl_rng_set(b->rng, o->seed + 1000003UL * (unsigned long)b->config);
    for (int r = 0; r < o->reps; r++)
      pb_pattern_delays(pat, b->size, magnitude, ref, b->rng, (size_t)r,
                        d->all + (size_t)r * b->size);
    for (int r = 0; r < o->reps; r++)
      for (int i = 0; i < b->size; i++) {
        double x = d->all[(size_t)r * b->size + i];
        tmp[(size_t)i * o->reps + r] = x;
        dmax = fmax(dmax, x);
      }
    d->window = o->window > 0 ? o->window : 3 * (slowest + dmax) + 1e-4;
  }
  rc = MPI_Scatter(tmp, o->reps, MPI_DOUBLE, d->mine, o->reps, MPI_DOUBLE, 0,
                   MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS)
    rc = MPI_Bcast(&d->window, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return rc;
}

static int bench_size(bench *b, size_t bytes) {
  const pb_options *o = b->opt;
  int algs[PB_MAX_LIST], nalgs = 0, rc;
  double balanced[PB_MAX_LIST], medians[PB_MAX_LIST], unit_time = 0;
  double slowest = 0, *tmp = NULL;
  delays d = {0};
  int oracle = 0, modelled;
  samples s = {0};
  char what[200];
  pb_pattern none;

  oracle = o->unit == PB_ALG_ORACLE;
  for (int k = 0; k < o->nalgs; k++)
    oracle |= o->algs[k] == PB_ALG_ORACLE;
  d.mine = malloc((size_t)o->reps * sizeof *d.mine);
  if (oracle)
    d.row = malloc((size_t)b->size * sizeof *d.row);
  if (b->rank == 0) {
    d.all = malloc((size_t)o->reps * b->size * sizeof *d.all);
    tmp = malloc((size_t)o->reps * b->size * sizeof *tmp);
  }
  rc = prepare(b, bytes);
  if (rc == MPI_SUCCESS && (d.mine == NULL || (oracle && d.row == NULL) ||
                            (b->rank == 0 && (d.all == NULL || tmp == NULL))))
    rc = MPI_ERR_NO_MEM;
  if (all_ok(rc) != MPI_SUCCESS) { /* rank 0 holds more: it may fail alone */
    rc = rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
    goto out;
  }
  /* binomial (the speedups' base when asked for) and --unit (the "x" of
   * delays) always run in the balanced case */
  algs[nalgs++] = PAT_REDUCE_ALG_BINOMIAL;
  if (o->unit != PAT_REDUCE_ALG_BINOMIAL)
    algs[nalgs++] = o->unit;
  for (int k = 0; k < o->nalgs; k++)
    if (o->algs[k] != PAT_REDUCE_ALG_BINOMIAL && o->algs[k] != o->unit)
      algs[nalgs++] = o->algs[k];
  if (b->rank == 0 && samples_alloc(&s, nalgs, o->reps)) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  /* every algorithm's communicator now, so no MPI_Comm_dup (collective)
   * falls into a timed repetition */
  for (int k = 0; k < nalgs; k++)
    comm_of(b, algs[k]);
  /* warm-up; clairvoyant calls (also on the oracle's communicator)
   * measure the round cost the oracle needs, unless it is configured
   * (PAT_REDUCE_MODEL, PAT_REDUCE_ROUND_COST): then the oracle's warm-up
   * is told balanced arrivals, and its communicator never starts the PAT
   * layer (at P = 16384 its state and stamp exchange would be 2.5 MB per
   * rank) */
  modelled = pat_model_configured(NULL);
  for (int w = 0; w < o->warmup + 3; w++)
    for (int k = 0; k < nalgs; k++) {
      int pat =
          algs[k] == PB_ALG_ORACLE || algs[k] == PAT_REDUCE_ALG_CLAIRVOYANT;
      const double *told = algs[k] == PB_ALG_ORACLE && modelled ? d.row : NULL;
      if (w >= o->warmup && (!pat || told != NULL))
        continue;
      if (told != NULL)
        memset(d.row, 0, (size_t)b->size * sizeof *d.row);
      if (call(b, algs[k], told) != MPI_SUCCESS)
        b->errors++;
    }
  pb_pattern_parse("none", &none, what, sizeof what);
  b->config++;
  snprintf(what, sizeof what, "%zu B balanced", bytes);
  rc = make_delays(b, &none, 0, 0, 0.01, &d, tmp);
  if (rc == MPI_SUCCESS)
    rc = run_config(b, algs, nalgs, &d, what, &s);
  if (b->rank == 0) {
    for (int k = 0; k < nalgs; k++) {
      balanced[k] =
          pb_median(s.tts + (size_t)k * o->reps + 1, (size_t)o->reps - 1);
      slowest = fmax(slowest, balanced[k]);
    }
    unit_time = balanced[o->unit == PAT_REDUCE_ALG_BINOMIAL ? 0 : 1];
    report(b, algs, nalgs, &s, "none", "0", 0, balanced, medians);
  }
  MPI_Bcast(&unit_time, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(&slowest, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(balanced, nalgs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  /* the configurations proper: only the algorithms asked for */
  {
    int keep = 0;
    for (int k = 0; k < nalgs; k++)
      for (int j = 0; j < o->nalgs; j++)
        if (algs[k] == o->algs[j]) {
          algs[keep] = algs[k];
          balanced[keep++] = balanced[k];
          break;
        }
    nalgs = keep;
  }
  for (int p = 0; p < o->npatterns && rc == MPI_SUCCESS; p++) {
    const pb_pattern *pat = &o->patterns[p];
    int nmag = pb_pattern_takes_magnitude(pat) ? o->nimbalance : 1;
    if (pat->kind == PB_PAT_NONE)
      continue; /* the balanced case above */
    for (int m = 0; m < nmag && rc == MPI_SUCCESS; m++) {
      char imb[64] = "-";
      double mag = 0;
      if (pb_pattern_takes_magnitude(pat)) {
        pb_time_format(o->imbalance[m], imb, sizeof imb);
        mag = pb_time_seconds(o->imbalance[m], unit_time);
      }
      b->config++;
      snprintf(what, sizeof what, "%zu B %s %s", bytes, pat->spec, imb);
      rc = make_delays(b, pat, mag, unit_time, slowest, &d, tmp);
      if (rc == MPI_SUCCESS)
        rc = run_config(b, algs, nalgs, &d, what, &s);
      if (b->rank == 0) {
        if (!pb_pattern_takes_magnitude(pat)) /* its mean delay, for plots */
          mag = gsl_stats_mean(d.all, 1, (size_t)o->reps * b->size);
        s.nalgs = nalgs;
        report(b, algs, nalgs, &s, pat->spec, imb, mag, balanced, medians);
      }
    }
  }
out:
  samples_free(&s);
  free(d.all);
  free(d.mine);
  free(d.row);
  free(tmp);
  return rc;
}

/* Opens an output file of option opt, or says why not. */
static FILE *open_output(const char *opt, const char *path) {
  FILE *f = fopen(path, "w");
  if (f == NULL)
    fprintf(stderr, "patbench: %s %s: cannot write it (%s)\n", opt, path,
            strerror(errno));
  return f;
}

/* Can the figures of --plot prefix be written: is the prefix's directory
 * there and writable?  Says why not. */
static int plot_dir_ok(const char *prefix) {
  const char *slash = strrchr(prefix, '/');
  char dir[4096];
  int ok;
  if (slash == NULL)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s",
             slash == prefix ? 1 : (int)(slash - prefix), prefix);
  ok = access(dir, W_OK | X_OK) == 0;
  if (!ok)
    fprintf(stderr,
            "patbench: --plot %s: the figures cannot be written in %s (%s); "
            "create that directory first\n",
            prefix, dir, strerror(errno));
  return ok;
}

int main(int argc, char **argv) {
  pb_options opt;
  bench b = {0};
  char why[600];
  int rc, status = 0;
  int parsed;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &b.size);
  parsed = pb_options_parse(argc, argv, &opt, b.rank == 0 ? stdout : NULL, why,
                            sizeof why);
  b.opt = &opt;
  if (parsed == 0) {
    b.root = opt.root == PB_ROOT_ROTATE ? 0
             : opt.root < 0             ? b.size - 1
                                        : opt.root;
    if (b.root >= b.size) {
      snprintf(why, sizeof why, "--root: %d does not exist; valid: 0..%d",
               opt.root, b.size - 1);
      parsed = 2;
    }
    for (int p = 0; p < opt.npatterns && parsed == 0; p++)
      if (pb_pattern_check(&opt.patterns[p], b.size, why, sizeof why))
        parsed = 2;
  }
  if (parsed != 0) {
    if (parsed == 2 && b.rank == 0)
      fprintf(stderr, "patbench: %s\n", why);
    status = parsed == 1 ? 0 : 2;
    goto out;
  }
#ifdef PATREDUCE_SMPI
  /* the library's temporaries follow --shared-above unless told otherwise */
  if (getenv("PAT_REDUCE_SMPI_SHARED_ABOVE") == NULL) {
    char v[32];
    snprintf(v, sizeof v, "%zu", opt.shared_above);
    setenv("PAT_REDUCE_SMPI_SHARED_ABOVE", v, 1);
    pat_reduce_config_reload();
  }
#endif
  b.type = pb_types[opt.type].type;
  b.op = pb_ops[opt.op].op;
  if (pb_ops[opt.op].ordered &&
      MPI_Op_create(plain_sum, 0, &b.op) != MPI_SUCCESS) {
    status = 1;
    goto out;
  }
  b.native_op = b.op;
  if (pb_ops[opt.op].charged &&
      MPI_Op_create(charged_sum, !pb_ops[opt.op].ordered, &b.native_op) !=
          MPI_SUCCESS) {
    status = 1;
    goto out;
  }
  b.nconfigs = opt.nsizes;
  for (int p = 0; p < opt.npatterns; p++)
    if (opt.patterns[p].kind != PB_PAT_NONE)
      b.nconfigs +=
          opt.nsizes *
          (pb_pattern_takes_magnitude(&opt.patterns[p]) ? opt.nimbalance : 1);
  if (pat_clock_estimate_offset(MPI_COMM_WORLD, 20, &b.offset, NULL) !=
      MPI_SUCCESS) {
    status = 1;
    goto out;
  }
  /* where the results go is checked before anything is measured: a run
   * must not end in "cannot write" */
  if (b.rank == 0) {
    b.rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (opt.output != NULL &&
        (b.csv = open_output("--output", opt.output)) != NULL)
      csv_header(b.csv);
    if (opt.trace != NULL &&
        (b.trace = open_output("--trace", opt.trace)) != NULL)
      fprintf(b.trace, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    if (opt.plot != NULL && plot_dir_ok(opt.plot))
      b.plot = pb_plot_alloc();
    parsed = (opt.output != NULL && b.csv == NULL) ||
             (opt.trace != NULL && b.trace == NULL) ||
             (opt.plot != NULL && b.plot == NULL);
  }
  MPI_Bcast(&parsed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (parsed != 0) {
    status = 2;
    goto out;
  }
  for (int i = 0; i < opt.nsizes; i++) {
    rc = bench_size(&b, opt.sizes[i]);
    if (rc != MPI_SUCCESS)
      b.errors++;
  }
  MPI_Allreduce(MPI_IN_PLACE, &b.errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (b.rank == 0) {
    if (b.csv != NULL)
      printf("\npatbench: wrote %s\n", opt.output);
    if (b.trace != NULL) {
      fprintf(b.trace, "\n]}\n");
      printf("patbench: wrote %s (the last repetition of every "
             "configuration; open it in https://ui.perfetto.dev)\n",
             opt.trace);
    }
    if (b.errors) /* calls only: a figure that failed says so itself */
      fprintf(stderr, "patbench: %d failed or wrong calls\n", b.errors);
    if (b.plot != NULL &&
        pb_plot_write(b.plot, opt.plot, b.size, why, sizeof why) != 0) {
      fprintf(stderr, "patbench: --plot: %s\n", why);
      status = 1;
    } else if (b.plot != NULL)
      printf("patbench: %s\n", why);
  }
  status = b.errors || status ? 1 : 0;
out:
  if (b.csv != NULL)
    fclose(b.csv);
  if (b.trace != NULL)
    fclose(b.trace);
  for (int i = 0; i < b.ncomms; i++)
    MPI_Comm_free(&b.comm[i]);
  pb_plot_free(b.plot);
  gsl_rng_free(b.rng);
  buf_free(&b, b.send);
  buf_free(&b, b.recv);
  free(b.expect);
  if (b.native_op != b.op)
    MPI_Op_free(&b.native_op);
  if (b.op != (MPI_Op)0 && b.op != pb_ops[opt.op].op) /* sum-ordered's */
    MPI_Op_free(&b.op);
  pb_options_clear(&opt);
  MPI_Finalize();
  return status;
}
