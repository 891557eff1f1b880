/*
 * test_smpi_sweep: single-delay sweep in SimGrid SMPI's simulated time (SMPI
 * build only; run under smpirun with --cfg=smpi/simulate-computation:no, see
 * tests/smpi/CMakeLists.txt for the whole command line).
 *
 * One rank (LATE, default P-1) arrives k d late, d = alpha + m (beta + gamma)
 * the model's round cost of the message (PAT_REDUCE_MODEL, else CURIE), for
 * each k of the sweep.  A repetition: barrier, LATE sleeps k d, every rank
 * stamps MPI_Wtime (global under SMPI), reduces to root 0, stamps again;
 * time-to-solution = max(exit) - min(arrival), reduced after the timed call.
 *
 * Rows, each on its own duplicate of MPI_COMM_WORLD, as an application
 * using only that algorithm would run it: binomial, native (SMPI's own
 * reduce, which combines for free: printed, never checked), localredirect.
 * Then three rows share one communicator with the PAT layer on: once a
 * communicator has served a clairvoyant call, every call on it stamps its
 * arrival and exchanges the stamps (log2 P messages per rank), which costs
 * simulated time: binomial+pat (binomial paying that exchange), clairvoyant
 * with predicted arrival times (after warm-up calls that show the
 * predictor this k) and the oracle (clairvoyant told the offsets the test
 * imposes, 0 and k d for LATE, and d).  Simulated time is exact, so this
 * asserts:
 *   - every result at the root is exactly right (integer-valued doubles);
 *   - MPI_WTIME_IS_GLOBAL is set and the ping-pong clock offset is ~0;
 *   - the oracle is never slower than binomial+pat, the same binomial tree
 *     with the same PAT-layer traffic (relative slack 1e-3, see SLACK);
 *   - optionally (oracle=LO:HI) the oracle's best speedup over (plain)
 *     binomial lies in [LO, HI] (theory: 2n / (n + 1), n = ceil(log2 P));
 * and prints the table, the speedups and localredirect's balanced ratio.
 * Lines starting with "hex" give every time in C99 hex floats, for the
 * reproducibility check (tests/smpi/run_twice.sh).
 *
 * usage: test_smpi_sweep [count=N] [delays=k1,k2,...] [reps=R] [late=RANK]
 *                        [oracle=LO:HI]
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <mpi.h>

#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"

/* The rows of the table; the last three share the PAT communicator. */
enum {
  BINOMIAL,
  NATIVE,
  LOCALREDIRECT,
  BINOMIAL_PAT,
  CLAIRVOYANT,
  ORACLE,
  NROWS
};
#define FIRST_PAT_ROW BINOMIAL_PAT
static const char *const row_name[NROWS] = {"binomial",      "native",
                                            "localredirect", "binomial+pat",
                                            "clairvoyant",   "oracle"};
static const pat_reduce_alg row_alg[NROWS] = {
    PAT_REDUCE_ALG_BINOMIAL,      PAT_REDUCE_ALG_NATIVE,
    PAT_REDUCE_ALG_LOCALREDIRECT, PAT_REDUCE_ALG_BINOMIAL,
    PAT_REDUCE_ALG_CLAIRVOYANT,   PAT_REDUCE_ALG_CLAIRVOYANT};
/* Untimed calls before each (row, k) on the plain communicators: a first
 * call (the private duplicate) behind them; localredirect's patience
 * learns from its first transfers.  The PAT communicator is warm from the
 * start; clairvoyant's warm-up is the predictor's (predictor_warmup). */
static const int row_warmup[NROWS] = {1, 1, 2, 0, 0, 0};

#define MAX_DELAYS 64
/* Relative.  The stamp exchange's log2 P rounds go out whenever a rank's
 * call starts or ends, so they overlap each row's reduction at slightly
 * different moments: at k = 0, where both rows run the same tree, the
 * oracle measured up to 2.6e-4 slower than binomial+pat (P = 64 and 128);
 * a blocking exchange costs percents. */
#define SLACK 1e-3

typedef struct sweep {
  int rank, size, late, count, reps, ndelays;
  int clairvoyant_warmup; /* the predictor's window + 1 + exchange lag */
  double k[MAX_DELAYS];
  double oracle_lo, oracle_hi; /* 0, 0: not checked */
  pat_model model;
  const char *model_from;
  double d; /* round cost of one message */
  /* Duplicates of MPI_COMM_WORLD (the PAT rows share one), freed before
   * MPI_Finalize: SMPI deletes MPI_COMM_SELF's attributes too late for
   * the library's finalize hook to complete pending PAT exchanges. */
  MPI_Comm comm[NROWS];
  double *send, *recv, *want, *arrivals;
  double *tts; /* [row][delay]: median over reps, at rank 0 */
  int failed;  /* at rank 0 */
} sweep;

static void fail(sweep *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void fail(sweep *s, const char *fmt, ...) {
  va_list ap;
  s->failed = 1;
  va_start(ap, fmt);
  fprintf(stderr, "test_smpi_sweep: FAIL: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static int parse_args(sweep *s, int argc, char **argv) {
  int rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    char *a = argv[i], *end = NULL;
    if (strncmp(a, "count=", 6) == 0) {
      s->count = (int)strtol(a + 6, &end, 10);
    } else if (strncmp(a, "reps=", 5) == 0) {
      s->reps = (int)strtol(a + 5, &end, 10);
    } else if (strncmp(a, "late=", 5) == 0) {
      s->late = (int)strtol(a + 5, &end, 10);
    } else if (strncmp(a, "oracle=", 7) == 0) {
      s->oracle_lo = strtod(a + 7, &end);
      if (*end == ':')
        s->oracle_hi = strtod(end + 1, &end);
    } else if (strncmp(a, "delays=", 7) == 0) {
      end = a + 6;
      s->ndelays = 0;
      do
        s->k[s->ndelays++] = strtod(end + 1, &end);
      while (*end == ',' && s->ndelays < MAX_DELAYS);
    } else {
      rc = 1;
    }
    if (end == NULL || *end != '\0')
      rc = 1;
  }
  if (s->count < 1 || s->reps < 1 || s->late < 0 || s->late >= s->size ||
      s->ndelays < 1 || s->oracle_hi < s->oracle_lo)
    rc = 1;
  for (int j = 0; j < s->ndelays; j++)
    if (!(s->k[j] >= 0))
      rc = 1;
  return rc;
}

/* The model of d: PAT_REDUCE_MODEL (as the library reads it), else CURIE. */
static int load_model(sweep *s) {
  const char *path = getenv("PAT_REDUCE_MODEL");
  char why[512];
  int rc = 0;
  s->model.alpha = 2.66e-6;
  s->model.beta = 4.8179e-10;
  s->model.gamma = 1.6654e-10;
  s->model_from = "CURIE default";
  if (path != NULL && path[0] != '\0') {
    if (pat_model_read(path, &s->model, why, sizeof why) != PAT_SUCCESS) {
      fprintf(stderr, "test_smpi_sweep: %s\n", why);
      rc = 1;
    }
    s->model_from = path;
  }
  s->d = pat_model_round_cost(&s->model, (double)s->count * sizeof(double));
  return rc;
}

/* Calls the predictor of PAT_REDUCE_PREDICTOR needs to see only the
 * current pattern: its window, plus the exchange lag, plus one. */
static int predictor_warmup(const sweep *s) {
  const char *p = getenv("PAT_REDUCE_PREDICTOR");
  long window = 5; /* the default, cycle:5: sma:5 without a cycle */
  if (p != NULL && strncasecmp(p, "last", 4) == 0)
    window = 1;
  else if (p != NULL &&
           (strncasecmp(p, "sma:", 4) == 0 || strncasecmp(p, "cycle:", 6) == 0))
    window = strtol(strchr(p, ':') + 1, NULL, 10);
  return (int)(window > 0 && window < 1000 ? window : 5) + 1 +
         pat_exchange_lag(&s->model, (double)s->count * sizeof(double),
                          s->size);
}

static void sleep_seconds(double t) {
  struct timespec ts = {.tv_sec = (time_t)t,
                        .tv_nsec = (long)((t - (double)(time_t)t) * 1e9)};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

/* One reduction of row, LATE delayed by delay; writes the time-to-solution
 * (at rank 0) and checks the result.  MPI error code. */
static int timed_call(sweep *s, int row, double delay, double *tts) {
  double t[2], arrive, leave;
  int rc;
  for (int i = 0; i < s->count; i++)
    s->recv[i] = -1.0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (s->rank == s->late)
    sleep_seconds(delay);
  arrive = MPI_Wtime();
  if (row == ORACLE)
    rc = pat_reduce_with_arrivals(PAT_REDUCE_ALG_CLAIRVOYANT, s->send, s->recv,
                                  s->count, MPI_DOUBLE, MPI_SUM, 0,
                                  s->comm[row], s->arrivals, s->d);
  else
    rc = pat_reduce_using(row_alg[row], s->send, s->recv, s->count, MPI_DOUBLE,
                          MPI_SUM, 0, s->comm[row]);
  leave = MPI_Wtime();
  t[0] = -arrive;
  t[1] = leave;
  if (rc == MPI_SUCCESS)
    rc = MPI_Reduce(s->rank == 0 ? MPI_IN_PLACE : t, t, 2, MPI_DOUBLE, MPI_MAX,
                    0, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS && s->rank == 0) {
    *tts = t[0] + t[1];
    for (int i = 0; i < s->count; i++)
      if (s->recv[i] != s->want[i]) {
        fail(s, "%s, delay %g s: element %d is %.17g, want %.17g",
             row_name[row], delay, i, s->recv[i], s->want[i]);
        break;
      }
  }
  return rc;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Runs the sweep: tts[row][j] = median over reps.  MPI error code. */
static int run(sweep *s) {
  double *t = malloc((size_t)s->reps * sizeof *t);
  int rc = t == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
  for (int j = 0; j < s->ndelays && rc == MPI_SUCCESS; j++) {
    double delay = s->k[j] * s->d;
    s->arrivals[s->late] = delay; /* the oracle's truth */
    for (int row = 0; row < NROWS && rc == MPI_SUCCESS; row++) {
      double dummy;
      int warmup = row == CLAIRVOYANT ? s->clairvoyant_warmup : row_warmup[row];
      for (int w = 0; w < warmup && rc == MPI_SUCCESS; w++)
        rc = timed_call(s, row, delay, &dummy);
      for (int r = 0; r < s->reps && rc == MPI_SUCCESS; r++)
        rc = timed_call(s, row, delay, &t[r]);
      if (rc == MPI_SUCCESS && s->rank == 0) {
        qsort(t, (size_t)s->reps, sizeof *t, cmp_double);
        s->tts[row * s->ndelays + j] = t[s->reps / 2];
      }
    }
  }
  free(t);
  return rc;
}

/* The communicators of the rows; the PAT one starts with a clairvoyant
 * call, so that every call on it, timed or not, runs the PAT layer. */
static int make_comms(sweep *s) {
  int rc = MPI_SUCCESS;
  for (int row = 0; row <= FIRST_PAT_ROW && rc == MPI_SUCCESS; row++)
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &s->comm[row]);
  for (int row = FIRST_PAT_ROW + 1; row < NROWS; row++)
    s->comm[row] = s->comm[FIRST_PAT_ROW];
  if (rc == MPI_SUCCESS)
    rc = pat_reduce_clairvoyant(s->send, s->recv, s->count, MPI_DOUBLE, MPI_SUM,
                                0, s->comm[FIRST_PAT_ROW]);
  return rc;
}

/* Under SMPI the clock is global: the attribute says so, and the library's
 * ping-pong estimate of the offset to rank 0 is (nearly) zero. */
static int check_clock(sweep *s) {
  int *global = NULL, found = 0, rc;
  double offset = 1.0, worst = 0;
  rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
  if (rc == MPI_SUCCESS)
    rc = pat_clock_estimate_offset(MPI_COMM_WORLD, 3, &offset, NULL);
  offset = fabs(offset);
  if (rc == MPI_SUCCESS)
    rc = MPI_Reduce(&offset, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS && s->rank == 0) {
    if (!found || *global != 1)
      fail(s, "MPI_WTIME_IS_GLOBAL is not set (found %d, value %d)", found,
           found ? *global : 0);
    if (worst > 1e-7)
      fail(s, "clock offset estimate %g s under a global clock (limit %g)",
           worst, 1e-7);
  }
  return rc;
}

static void report(sweep *s) {
  const double *tt = s->tts;
  int n = s->ndelays, P = s->size, logp = 0;
  double best[NROWS] = {0}, best_k[NROWS] = {0}, theory;
  while ((1 << logp) < P)
    logp++;
  theory = 2.0 * logp / (logp + 1.0);

  printf("test_smpi_sweep: P=%d, %d doubles (%.0f B), root 0, rank %d late "
         "by k d, median of %d reps, times in ms\n",
         P, s->count, s->count * 8.0, s->late, s->reps);
  printf("d = alpha + m (beta + gamma) = %.3f us (%s: alpha %g, beta %g, "
         "gamma %g); clairvoyant warm-up: %d calls per k\n",
         s->d * 1e6, s->model_from, s->model.alpha, s->model.beta,
         s->model.gamma, s->clairvoyant_warmup);
  printf("%4s %8s", "k", "delay");
  for (int row = 0; row < NROWS; row++)
    printf(" %13s", row_name[row]);
  printf(" | over binomial: %5s %5s %5s | %s\n", "lr", "cl", "or",
         "or/(bin+pat)");
  for (int j = 0; j < n; j++) {
    double bin = tt[BINOMIAL * n + j], binpat = tt[BINOMIAL_PAT * n + j];
    printf("%4g %8.3f", s->k[j], s->k[j] * s->d * 1e3);
    for (int row = 0; row < NROWS; row++)
      printf(" %13.6f", tt[row * n + j] * 1e3);
    printf(" |               %5.3f %5.3f %5.3f | %.6f\n",
           bin / tt[LOCALREDIRECT * n + j], bin / tt[CLAIRVOYANT * n + j],
           bin / tt[ORACLE * n + j], tt[ORACLE * n + j] / binpat);
    for (int row = 0; row < NROWS; row++) {
      double sp = bin / tt[row * n + j];
      if (sp > best[row]) {
        best[row] = sp;
        best_k[row] = s->k[j];
      }
    }
    if (tt[ORACLE * n + j] > binpat * (1 + SLACK))
      fail(s, "k=%g: oracle slower than binomial+pat: %.12g s > %.12g s",
           s->k[j], tt[ORACLE * n + j], binpat);
  }
  for (int j = 0; j < n; j++) {
    printf("hex P=%d k=%g", P, s->k[j]);
    for (int row = 0; row < NROWS; row++)
      printf(" %s=%a", row_name[row], tt[row * n + j]);
    printf("\n");
  }
  printf("best speedup over binomial: localredirect %.3f (k=%g), clairvoyant "
         "%.3f (k=%g), oracle %.3f (k=%g); theory 2n/(n+1) = %.3f (n=%d)\n",
         best[LOCALREDIRECT], best_k[LOCALREDIRECT], best[CLAIRVOYANT],
         best_k[CLAIRVOYANT], best[ORACLE], best_k[ORACLE], theory, logp);
  for (int j = 0; j < n; j++)
    if (s->k[j] == 0)
      printf("balanced: localredirect / binomial = %.4f, clairvoyant / "
             "binomial = %.4f, oracle / binomial = %.4f, binomial+pat / "
             "binomial = %.4f\n",
             tt[LOCALREDIRECT * n + j] / tt[BINOMIAL * n + j],
             tt[CLAIRVOYANT * n + j] / tt[BINOMIAL * n + j],
             tt[ORACLE * n + j] / tt[BINOMIAL * n + j],
             tt[BINOMIAL_PAT * n + j] / tt[BINOMIAL * n + j]);
  if (s->oracle_hi > 0 &&
      (best[ORACLE] < s->oracle_lo || best[ORACLE] > s->oracle_hi))
    fail(s, "oracle's best speedup %.4f is outside [%g, %g]", best[ORACLE],
         s->oracle_lo, s->oracle_hi);
}

int main(int argc, char **argv) {
  static const double default_k[] = {0, 1, 2, 4, 6, 7, 8, 10, 14};
  sweep s = {.count = 131072, .reps = 1};
  int rc = MPI_SUCCESS, bad = 0;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  for (int row = 0; row < NROWS; row++)
    s.comm[row] = MPI_COMM_NULL;
  s.late = s.size - 1;
  s.ndelays = (int)(sizeof default_k / sizeof default_k[0]);
  memcpy(s.k, default_k, sizeof default_k);
  bad = parse_args(&s, argc, argv) || load_model(&s) || s.size < 2;
  if (bad) {
    if (s.rank == 0)
      fprintf(stderr, "usage: test_smpi_sweep [count=N>=1] [delays=k1,k2,..] "
                      "[reps=R>=1] [late=RANK<P] [oracle=LO:HI] (P >= 2)\n");
    goto out;
  }
  s.clairvoyant_warmup = predictor_warmup(&s);
  s.send = malloc((size_t)s.count * sizeof *s.send);
  s.recv = malloc((size_t)s.count * sizeof *s.recv);
  s.want = malloc((size_t)s.count * sizeof *s.want);
  s.arrivals = calloc((size_t)s.size, sizeof *s.arrivals);
  s.tts = calloc((size_t)NROWS * (size_t)s.ndelays, sizeof *s.tts);
  if (!s.send || !s.recv || !s.want || !s.arrivals || !s.tts) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  /* integer values: every order of summation gives the same exact sum */
  for (int i = 0; i < s.count; i++) {
    s.send[i] = (double)((s.rank * 31 + i) % 1024);
    s.want[i] = 0;
    for (int r = 0; r < s.size; r++)
      s.want[i] += (double)((r * 31 + i) % 1024);
  }
  rc = check_clock(&s);
  if (rc == MPI_SUCCESS)
    rc = make_comms(&s);
  if (rc == MPI_SUCCESS)
    rc = run(&s);
  if (rc == MPI_SUCCESS && s.rank == 0)
    report(&s);
out:
  if (rc != MPI_SUCCESS && s.rank == 0)
    fprintf(stderr, "test_smpi_sweep: FAIL: MPI error %d\n", rc);
  bad = bad || rc != MPI_SUCCESS || s.failed;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int row = 0; row <= FIRST_PAT_ROW; row++)
    if (s.comm[row] != MPI_COMM_NULL)
      MPI_Comm_free(&s.comm[row]);
  free(s.send);
  free(s.recv);
  free(s.want);
  free(s.arrivals);
  free(s.tts);
  MPI_Finalize();
  return bad;
}
