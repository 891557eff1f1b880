/*
 * patcalibrate: measures this machine's round cost and writes the model
 * file that PAT_REDUCE_MODEL reads, d(m) = alpha + m (beta + gamma).
 *
 * Idea (Marendic 2016, Algorithm 6): a reduction round is a receive plus a
 * combine while every other rank is busy with its own round, so the cost is
 * measured with all ranks busy in pairs: rank 2k with rank 2k+1, all pairs
 * at once (with an odd P the last rank idles).  A round cost alone cannot
 * tell beta from gamma, so for every message size m three things are
 * timed, each after a barrier so that all pairs run it concurrently:
 *
 *   transfer  the even rank's ping-pong of m bytes, halved.  Before the
 *             clock starts each side has posted its receive and the odd
 *             rank has said so (a 0-byte message), so no leg includes
 *             waiting for a late receiver or sender;
 *   combine   pat_reduce_local(MPI_SUM) of m bytes of doubles, on every
 *             paired rank;
 *   round     the same ping-pong with a combine of the received data after
 *             each leg, halved: receive + combine, as in a reduction round.
 *
 * Each repetition takes the slowest pair's (rank's) time, since a round of
 * a reduction ends with its slowest pair; the sample of a size is the
 * median of that over the repetitions (after --warmup unmeasured ones).
 * Only intervals on one rank's clock are used, so clock offsets between
 * ranks do not matter.  Then (calibrate_fit.c) transfer = alpha_t + beta m
 * and combine = alpha_c + gamma m are fitted by weighted least squares
 * (relative errors), alpha = alpha_t + alpha_c, and the measured rounds
 * check the model: per-size relative residuals, and a warning on stderr
 * when any residual exceeds --max-residual or a fitted value was negative
 * and clamped to 0.
 *
 * usage: mpiexec -n P patcalibrate [--sizes LIST] [--reps N] [--warmup N]
 *        [--output FILE] [--max-residual F] [--help]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <mpi.h>

#include "calibrate_fit.h"
#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"

enum { TAG_READY = 1, TAG_DATA = 2 };
enum { K_TRANSFER, K_COMBINE, K_ROUND, K_COUNT };

/* This rank's part: its pair and its buffers. */
typedef struct pat_calibrate_pair {
  MPI_Comm comm;
  int peer;      /* the other rank of the pair; MPI_PROC_NULL: idle */
  int initiator; /* the even rank, which times the ping-pongs */
  double *send, *recv, *acc;
} pat_calibrate_pair;

/* One ping-pong of count doubles, with a combine after each leg if asked.
 * Writes half the initiator's time (NAN on the other rank). */
static int pat_calibrate_pingpong(const pat_calibrate_pair *p, int count,
                                  int combine, double *seconds) {
  MPI_Request req = MPI_REQUEST_NULL;
  double t0;
  int rc;

  *seconds = NAN;
  rc = PMPI_Irecv(p->recv, count, MPI_DOUBLE, p->peer, TAG_DATA, p->comm, &req);
  if (rc != MPI_SUCCESS)
    goto out;
  if (p->initiator) {
    rc = PMPI_Recv(NULL, 0, MPI_BYTE, p->peer, TAG_READY, p->comm,
                   MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
      goto out;
    t0 = PMPI_Wtime();
    rc = PMPI_Send(p->send, count, MPI_DOUBLE, p->peer, TAG_DATA, p->comm);
    if (rc == MPI_SUCCESS)
      rc = PMPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && combine)
      rc = pat_reduce_local(p->recv, p->acc, count, MPI_DOUBLE, MPI_SUM);
    *seconds = (PMPI_Wtime() - t0) / 2;
  } else {
    rc = PMPI_Send(NULL, 0, MPI_BYTE, p->peer, TAG_READY, p->comm);
    if (rc == MPI_SUCCESS)
      rc = PMPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && combine)
      rc = pat_reduce_local(p->recv, p->acc, count, MPI_DOUBLE, MPI_SUM);
    if (rc == MPI_SUCCESS)
      rc = PMPI_Send(p->send, count, MPI_DOUBLE, p->peer, TAG_DATA, p->comm);
  }
out:
  return rc;
}

static int pat_calibrate_combine(const pat_calibrate_pair *p, int count,
                                 double *seconds) {
  double t0 = PMPI_Wtime();
  int rc = pat_reduce_local(p->recv, p->acc, count, MPI_DOUBLE, MPI_SUM);
  *seconds = PMPI_Wtime() - t0;
  return rc;
}

/* Runs warmup + reps repetitions of the three measurements at one size;
 * writes this rank's times to t[kind * reps + rep] (NAN: not measured). */
static int pat_calibrate_measure(const pat_calibrate_pair *p,
                                 const pat_calibrate_options *o, size_t bytes,
                                 double *t) {
  int count = (int)(bytes / sizeof(double)), rc = MPI_SUCCESS;

  for (int i = 0; i < K_COUNT * o->reps; i++)
    t[i] = NAN; /* stays so on an idle rank */
  for (int r = 0; r < o->warmup + o->reps && rc == MPI_SUCCESS; r++) {
    for (int k = 0; k < K_COUNT && rc == MPI_SUCCESS; k++) {
      double s = NAN;
      rc = MPI_Barrier(p->comm);
      if (rc != MPI_SUCCESS || p->peer == MPI_PROC_NULL)
        continue;
      if (k == K_COMBINE)
        rc = pat_calibrate_combine(p, count, &s);
      else
        rc = pat_calibrate_pingpong(p, count, k == K_ROUND, &s);
      if (r >= o->warmup)
        t[k * o->reps + r - o->warmup] = s;
    }
  }
  return rc;
}

/* Rank 0: from every rank's times (all[rank][kind][rep]), the median over
 * the repetitions of the slowest rank's time, per kind. */
static void pat_calibrate_summarise(const double *all, int nranks, int reps,
                                    double *per_rep, double out[K_COUNT]) {
  for (int k = 0; k < K_COUNT; k++) {
    int n = 0;
    for (int r = 0; r < reps; r++) {
      double worst = NAN;
      for (int q = 0; q < nranks; q++) {
        double v =
            all[((size_t)q * K_COUNT + (size_t)k) * (size_t)reps + (size_t)r];
        if (!isnan(v) && (isnan(worst) || v > worst))
          worst = v;
      }
      if (!isnan(worst))
        per_rep[n++] = worst;
    }
    gsl_sort(per_rep, 1, (size_t)n);
    out[k] =
        n > 0 ? gsl_stats_median_from_sorted_data(per_rep, 1, (size_t)n) : NAN;
  }
}

static void pat_calibrate_report(FILE *rep, const pat_calibrate_options *o,
                                 int nranks, const pat_calibrate_sample *s,
                                 const pat_calibrate_fit *f) {
  fprintf(rep,
          "patcalibrate: P = %d, %d pair%s busy at once, MPI_SUM on "
          "MPI_DOUBLE, %d reps (+%d warm-up) per size\n"
          "each time: the median over the reps of the slowest pair's time\n",
          nranks, nranks / 2, nranks / 2 == 1 ? "" : "s", o->reps, o->warmup);
  fprintf(rep, "%9s %10s %9s %7s %10s %9s %7s %10s %9s %7s\n", "bytes",
          "transfer", "line", "resid", "combine", "line", "resid", "round",
          "model", "resid");
  fprintf(rep, "%9s %10s %9s %7s %10s %9s %7s %10s %9s\n", "", "us", "us", "",
          "us", "us", "", "us", "us");
  for (size_t i = 0; i < o->nsizes; i++) {
    double m = s[i].bytes;
    double lt = f->transfer_alpha + f->transfer_beta * m;
    double lc = f->combine_alpha + f->combine_gamma * m;
    double d = pat_model_round_cost(&f->model, m);
    fprintf(rep,
            "%9.0f %10.3f %9.3f %+6.1f%% %10.3f %9.3f %+6.1f%% %10.3f %9.3f "
            "%+6.1f%%\n",
            m, s[i].transfer * 1e6, lt * 1e6,
            100 * pat_calibrate_relative_residual(s[i].transfer, lt),
            s[i].combine * 1e6, lc * 1e6,
            100 * pat_calibrate_relative_residual(s[i].combine, lc),
            s[i].round * 1e6, d * 1e6,
            100 * pat_calibrate_relative_residual(s[i].round, d));
  }
  fprintf(rep,
          "transfer line: alpha_t = %.4g s, beta  = %.4g s/B (%.3g GB/s); "
          "weighted R^2 %.3f, max |resid| %.1f%% at %.0f B\n",
          f->transfer_alpha, f->transfer_beta,
          f->transfer_beta > 0 ? 1e-9 / f->transfer_beta : INFINITY,
          f->transfer_r2, 100 * f->max_transfer, s[f->worst_transfer].bytes);
  fprintf(rep,
          "combine line:  alpha_c = %.4g s, gamma = %.4g s/B (%.3g GB/s); "
          "weighted R^2 %.3f, max |resid| %.1f%% at %.0f B\n",
          f->combine_alpha, f->combine_gamma,
          f->combine_gamma > 0 ? 1e-9 / f->combine_gamma : INFINITY,
          f->combine_r2, 100 * f->max_combine, s[f->worst_combine].bytes);
  fprintf(rep,
          "model:         alpha = alpha_t + alpha_c = %.4g s, beta = %.4g s/B, "
          "gamma = %.4g s/B\n",
          f->model.alpha, f->model.beta, f->model.gamma);
  fprintf(rep,
          "round check:   d(m) = alpha + m (beta + gamma) against the measured "
          "rounds: max |resid| %.1f%% at %.0f B (limit %.0f%%)\n",
          100 * f->max_round, s[f->worst_round].bytes, 100 * o->max_residual);
}

/* Warnings on stderr: clamped values, parts that fit badly. */
static void pat_calibrate_warn(const pat_calibrate_options *o,
                               const pat_calibrate_sample *s,
                               const pat_calibrate_fit *f) {
  static const char *const hint =
      "the model file is written anyway; for a better model measure the "
      "sizes your reductions use (--sizes), with more --reps, on a quieter "
      "machine";
  if (f->flags & PAT_CALIBRATE_CLAMPED_ALPHA)
    fprintf(stderr,
            "patcalibrate: WARNING: the fitted alpha = alpha_t + alpha_c = "
            "%.4g s is negative; clamped to 0 in the model file\n",
            f->transfer_alpha + f->combine_alpha);
  if (f->flags & PAT_CALIBRATE_CLAMPED_BETA)
    fprintf(stderr,
            "patcalibrate: WARNING: the fitted beta = %.4g s/B is negative "
            "(transfers got faster with size?); clamped to 0 in the model "
            "file\n",
            f->transfer_beta);
  if (f->flags & PAT_CALIBRATE_CLAMPED_GAMMA)
    fprintf(stderr,
            "patcalibrate: WARNING: the fitted gamma = %.4g s/B is negative "
            "(combines got faster with size?); clamped to 0 in the model "
            "file\n",
            f->combine_gamma);
  if (f->flags & PAT_CALIBRATE_BAD_ROUND) {
    const pat_calibrate_sample *w = &s[f->worst_round];
    double d = pat_model_round_cost(&f->model, w->bytes);
    fprintf(stderr,
            "patcalibrate: WARNING: the linear model fits badly: a round of "
            "%.0f B takes %.4g us measured, %.4g us by the model (residual "
            "%+.1f%%, limit %.0f%%); %s\n",
            w->bytes, w->round * 1e6, d * 1e6,
            100 * pat_calibrate_relative_residual(w->round, d),
            100 * o->max_residual, hint);
  }
  if (f->flags & PAT_CALIBRATE_BAD_TRANSFER) {
    const pat_calibrate_sample *w = &s[f->worst_transfer];
    fprintf(
        stderr,
        "patcalibrate: WARNING: the transfer times are not a line: at "
        "%.0f B %.4g us measured, %.4g us on the line (residual "
        "%+.1f%%, limit %.0f%%; MPI libraries switch protocols, e.g. "
        "eager to rendezvous, at some size)\n",
        w->bytes, w->transfer * 1e6,
        (f->transfer_alpha + f->transfer_beta * w->bytes) * 1e6,
        100 * pat_calibrate_relative_residual(
                  w->transfer, f->transfer_alpha + f->transfer_beta * w->bytes),
        100 * o->max_residual);
  }
  if (f->flags & PAT_CALIBRATE_BAD_COMBINE) {
    const pat_calibrate_sample *w = &s[f->worst_combine];
    fprintf(stderr,
            "patcalibrate: WARNING: the combine times are not a line: at "
            "%.0f B %.4g us measured, %.4g us on the line (residual "
            "%+.1f%%, limit %.0f%%; caches make small and large buffers "
            "differ)\n",
            w->bytes, w->combine * 1e6,
            (f->combine_alpha + f->combine_gamma * w->bytes) * 1e6,
            100 *
                pat_calibrate_relative_residual(
                    w->combine, f->combine_alpha + f->combine_gamma * w->bytes),
            100 * o->max_residual);
  }
}

/* The model file: provenance comments, then pat_model_write's lines. */
static int pat_calibrate_write(const pat_calibrate_options *o, int nranks,
                               const pat_calibrate_fit *f) {
  FILE *out = strcmp(o->output, "-") == 0 ? stdout : fopen(o->output, "w");
  char host[MPI_MAX_PROCESSOR_NAME] = "?", when[32] = "?";
  time_t now = time(NULL);
  int len = 0, rc = 0;

  if (out == NULL) {
    fprintf(stderr, "patcalibrate: --output %s cannot be written\n", o->output);
    rc = 1;
    goto out;
  }
  MPI_Get_processor_name(host, &len);
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
  fprintf(out,
          "# patcalibrate on %s, %s: P = %d, %zu sizes %zu..%zu B, %d reps\n"
          "# max |relative residual| of the round cost: %.1f%%%s\n",
          host, when, nranks, o->nsizes, o->sizes[0], o->sizes[o->nsizes - 1],
          o->reps, 100 * f->max_round,
          f->flags & PAT_CALIBRATE_BAD_FIT ? " (BAD FIT, see the warnings)"
                                           : "");
  if (pat_model_write(out, &f->model) != PAT_SUCCESS)
    rc = 1;
  if (out != stdout ? fclose(out) != 0 : fflush(out) != 0)
    rc = 1;
  if (rc != 0)
    fprintf(stderr, "patcalibrate: writing --output %s failed\n", o->output);
out:
  return rc;
}

/* Rank 0, before measuring: can the model file be written?  (Without
 * truncating an existing one, nor leaving a new empty one behind.) */
static int pat_calibrate_check_output(const char *path) {
  int existed, rc = 0;
  FILE *f;

  if (strcmp(path, "-") == 0)
    goto out;
  existed = access(path, F_OK) == 0;
  f = fopen(path, "a");
  if (f == NULL) {
    fprintf(stderr,
            "patcalibrate: --output \"%s\" cannot be written; valid: a "
            "writable file, or - for stdout\n",
            path);
    rc = 2;
    goto out;
  }
  fclose(f);
  if (!existed)
    remove(path);
out:
  return rc;
}

/* Rank 0, after measuring: fit, report, warn, write the model file.
 * Returns the exit code. */
static int pat_calibrate_conclude(const pat_calibrate_options *o, int nranks,
                                  const pat_calibrate_sample *samples) {
  FILE *rep = strcmp(o->output, "-") == 0 ? stderr : stdout;
  pat_calibrate_fit fit;
  char why[512] = "";
  int rc = 0;

  for (size_t i = 0; i < o->nsizes; i++)
    if (!(samples[i].transfer > 0 && samples[i].combine > 0)) {
      fprintf(stderr,
              "patcalibrate: a %zu-byte %s took no measurable time: "
              "MPI_Wtime (tick %g s) is too coarse for this size\n",
              o->sizes[i], samples[i].transfer > 0 ? "combine" : "transfer",
              MPI_Wtick());
      rc = 1;
      goto out;
    }
  if (pat_calibrate_fit_samples(samples, o->nsizes, o->max_residual, &fit, why,
                                sizeof why) != PAT_SUCCESS) {
    fprintf(stderr, "patcalibrate: no model: %s\n", why);
    rc = 1;
    goto out;
  }
  pat_calibrate_report(rep, o, nranks, samples, &fit);
  fflush(rep);
  pat_calibrate_warn(o, samples, &fit);
  rc = pat_calibrate_write(o, nranks, &fit);
  if (rc == 0 && strcmp(o->output, "-") != 0)
    fprintf(rep, "wrote %s (use: PAT_REDUCE_MODEL=%s)\n", o->output, o->output);
out:
  return rc;
}

int main(int argc, char **argv) {
  pat_calibrate_options opts = {0};
  pat_calibrate_pair pair = {MPI_COMM_NULL, MPI_PROC_NULL, 0, NULL, NULL, NULL};
  pat_calibrate_sample *samples = NULL;
  double *t = NULL, *all = NULL, *per_rep = NULL;
  int rank, nranks, rc, count;
  char why[512] = "";

  MPI_Init(&argc, &argv);
  gsl_set_error_handler_off();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  rc = pat_calibrate_parse_args(argc, argv, &opts, why, sizeof why);
  if (rc == PAT_CALIBRATE_HELP) {
    if (rank == 0)
      fputs(pat_calibrate_usage(), stdout);
    rc = 0;
    goto out;
  }
  if (rc != 0) {
    if (rank == 0)
      fprintf(stderr, "patcalibrate: %s\n", why);
    rc = 2;
    goto out;
  }
  if (nranks < 2) {
    if (rank == 0)
      fprintf(stderr,
              "patcalibrate: needs at least 2 ranks (ranks measure in pairs), "
              "got %d; run it as mpiexec -n 2 (or more) patcalibrate\n",
              nranks);
    rc = 2;
    goto out;
  }
  if (rank == 0)
    rc = pat_calibrate_check_output(opts.output);
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc != 0)
    goto out;
  if (rank == 0 && nranks % 2 != 0)
    fprintf(stderr, "patcalibrate: note: P = %d is odd; rank %d idles\n",
            nranks, nranks - 1);

  MPI_Comm_dup(MPI_COMM_WORLD, &pair.comm);
  if (rank < nranks / 2 * 2) {
    pair.peer = rank ^ 1;
    pair.initiator = rank % 2 == 0;
  }
  count = (int)(opts.sizes[opts.nsizes - 1] / sizeof(double));
  pair.send = malloc((size_t)count * sizeof(double));
  pair.recv = malloc((size_t)count * sizeof(double));
  pair.acc = malloc((size_t)count * sizeof(double));
  t = malloc((size_t)K_COUNT * (size_t)opts.reps * sizeof *t);
  if (rank == 0) {
    all = malloc((size_t)nranks * K_COUNT * (size_t)opts.reps * sizeof *all);
    per_rep = malloc((size_t)opts.reps * sizeof *per_rep);
    samples = malloc(opts.nsizes * sizeof *samples);
  }
  rc = pair.send == NULL || pair.recv == NULL || pair.acc == NULL ||
       t == NULL ||
       (rank == 0 && (all == NULL || per_rep == NULL || samples == NULL));
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rc != 0) {
    if (rank == 0)
      fprintf(stderr, "patcalibrate: out of memory for %zu-byte buffers\n",
              opts.sizes[opts.nsizes - 1]);
    rc = 1;
    goto out;
  }
  for (int i = 0; i < count; i++) { /* touch every page before timing */
    pair.send[i] = 1.0;
    pair.recv[i] = 0.5;
    pair.acc[i] = 0.0;
  }

  for (size_t i = 0; i < opts.nsizes && rc == MPI_SUCCESS; i++) {
    double med[K_COUNT];
    rc = pat_calibrate_measure(&pair, &opts, opts.sizes[i], t);
    if (rc == MPI_SUCCESS)
      rc = MPI_Gather(t, K_COUNT * opts.reps, MPI_DOUBLE, all,
                      K_COUNT * opts.reps, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && rank == 0) {
      pat_calibrate_summarise(all, nranks, opts.reps, per_rep, med);
      samples[i].bytes = (double)opts.sizes[i];
      samples[i].transfer = med[K_TRANSFER];
      samples[i].combine = med[K_COMBINE];
      samples[i].round = med[K_ROUND];
    }
  }
  if (rc != MPI_SUCCESS) {
    if (rank == 0)
      fprintf(stderr, "patcalibrate: an MPI call failed while measuring\n");
    rc = 1;
  } else if (rank == 0) {
    rc = pat_calibrate_conclude(&opts, nranks, samples);
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);

out:
  if (pair.comm != MPI_COMM_NULL)
    MPI_Comm_free(&pair.comm);
  free(pair.send);
  free(pair.recv);
  free(pair.acc);
  free(t);
  free(all);
  free(per_rep);
  free(samples);
  pat_calibrate_options_free(&opts);
  MPI_Finalize();
  return rc;
}
