/*
 * patbench's parts that need no MPI run: times with units, arrival
 * patterns (GSL random distributions, trace files), statistics (GSL) and
 * the command line.  patbench.c is the MPI program that uses them; the
 * unit tests (tests/unit/test_bench.c) test them.
 *
 * Functions that can fail take a `why` buffer for a message that names the
 * bad value and what is valid, and return 0 on success, nonzero on error.
 */
#ifndef PATBENCH_H
#define PATBENCH_H

#include <stddef.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>
#include <mpi.h>

/* ---- times ------------------------------------------------------------- */

/* A time as the user writes it: "250us", "1.5ms", "2s", "0.002" (seconds),
 * or "2x" = two balanced runtimes of --unit (binomial by default) (resolved at
 * run time, per message size). */
typedef struct pb_time {
  double value;
  int relative; /* value is a multiple of --unit's balanced runtime */
} pb_time;

int pb_time_parse(const char *text, pb_time *t, char *why, size_t whylen);
/* Seconds; `ref` is the balanced runtime of --unit for relative times. */
double pb_time_seconds(pb_time t, double ref);
/* Writes "1.5ms" / "2x" style text. */
void pb_time_format(pb_time t, char *out, size_t len);

/* ---- arrival patterns ---------------------------------------------------- */

typedef enum pb_pattern_kind {
  PB_PAT_NONE,
  PB_PAT_SINGLE,
  PB_PAT_ODD,
  PB_PAT_KRANDOM,
  PB_PAT_UNIFORM,
  PB_PAT_NORMAL,
  PB_PAT_GAMMA,
  PB_PAT_TRUNCGAMMA,
  PB_PAT_BERNOULLI,
  PB_PAT_TRACE,
  PB_PAT_COUNT
} pb_pattern_kind;

typedef struct pb_pattern {
  pb_pattern_kind kind;
  char spec[256]; /* the text it was parsed from */
  int rank;       /* single: the late rank, -1 = the last one */
  int k;          /* k-random: how many ranks are late */
  double p;       /* bernoulli: probability that a rank is late */
  double cv;      /* gamma, truncgamma: coefficient of variation */
  pb_time t1, t2; /* uniform: max; normal: mean, sd; gamma: mean;
                     truncgamma: mean, max; bernoulli: delay */
  double *trace;  /* trace: rows x cols delays in seconds */
  size_t rows, cols;
} pb_pattern;

/* Usage lines of every pattern, one per line ("  name  what it does"). */
void pb_pattern_usage(FILE *out);
/* Parses a pattern spec such as "single:3", "gamma:1ms:0.5", "trace:f".
 * A trace file is read now.  Free with pb_pattern_clear(). */
int pb_pattern_parse(const char *spec, pb_pattern *pat, char *why,
                     size_t whylen);
void pb_pattern_clear(pb_pattern *pat);
/* Reads a trace: one line per call, P delays (seconds, >= 0) per line,
 * blank lines and '#' comments skipped.  `name` is for messages, which
 * give the line number of a bad line. */
int pb_trace_read(FILE *in, const char *name, pb_pattern *pat, char *why,
                  size_t whylen);
/* Whether the pattern takes its size from the --imbalance list (single,
 * odd, k-random); the others carry their own times. */
int pb_pattern_takes_magnitude(const pb_pattern *pat);
/* Whether the pattern fits P ranks (a single rank exists, k <= P, a trace
 * has P columns). */
int pb_pattern_check(const pb_pattern *pat, int nranks, char *why,
                     size_t whylen);
/* Fills delays[0..nranks-1] (seconds, >= 0) for call `call`: magnitude is
 * the --imbalance value in seconds, ref the balanced runtime of --unit. */
void pb_pattern_delays(const pb_pattern *pat, int nranks, double magnitude,
                       double ref, gsl_rng *rng, size_t call, double *delays);

/* ---- statistics -----------------------------------------------------------
 */

typedef struct pb_summary {
  size_t n;
  double min, q25, median, mean, q75, q95, max;
  double ci_lo, ci_hi; /* 95% bootstrap confidence interval of the median */
} pb_summary;

/* Summarises x[0..n-1] (n >= 1, reordered: sorted on return); `boot`
 * bootstrap resamples drawn with rng. */
void pb_summarize(double *x, size_t n, size_t boot, gsl_rng *rng,
                  pb_summary *s);
/* Median of x[0..n-1] (n >= 1; x is left as it is). */
double pb_median(const double *x, size_t n);
/* Two-sided permutation test of median(a) / median(b) == 1: the share of
 * `perms` random relabellings of the pooled sample whose |log ratio of
 * medians| is at least the observed one, as (hits + 1) / (perms + 1).
 * NAN when both samples are constant (deterministic runs, SMPI): there is
 * no chance to test. */
double pb_permutation_p(const double *a, size_t na, const double *b, size_t nb,
                        size_t perms, gsl_rng *rng);

/* ---- command line -----------------------------------------------------------
 */

enum { PB_MAX_LIST = 64 };

typedef enum pb_sync { PB_SYNC_BARRIER, PB_SYNC_WINDOW } pb_sync;

/* --root rotate: the root moves on by one rank every call, as in IMB. */
enum { PB_ROOT_ROTATE = -2 };

typedef struct pb_options {
  int algs[PB_MAX_LIST]; /* algorithm ids: table ids, PB_ALG_ORACLE */
  int nalgs;
  int reference; /* algorithm id the ratios refer to */
  int unit;      /* algorithm id whose balanced median is the "x" of delays */
  size_t sizes[PB_MAX_LIST]; /* message sizes in bytes */
  int nsizes;
  int type; /* index into pb_types */
  int op;   /* index into pb_ops */
  int root; /* -1: the last rank; PB_ROOT_ROTATE: call i of a burst at i % P */
  int reps, warmup;
  int burst; /* calls timed back to back per repetition (>= 1) */
  unsigned long seed;
  pb_pattern patterns[PB_MAX_LIST];
  int npatterns;
  pb_time imbalance[PB_MAX_LIST];
  int nimbalance;
  pb_sync sync;
  double window; /* seconds between window starts; 0: automatic */
  size_t boot, perms;
  const char *output;  /* CSV file or NULL */
  const char *plot;    /* plot file prefix or NULL */
  const char *trace;   /* trace JSON file or NULL */
  const char *tag;     /* free text for the CSV's first column */
  int quiet;           /* no progress line */
  size_t shared_above; /* SMPI build: larger buffers are SMPI_SHARED_MALLOC */
} pb_options;

/* Default of --shared-above: in the SMPI build, message buffers of more
 * than this many bytes are shared by all ranks (SMPI_SHARED_MALLOC) and
 * their results are not checked. */
#define PB_SHARED_ABOVE_DEFAULT ((size_t)8 << 20)

/* The clairvoyant algorithm told the true arrival times. */
enum { PB_ALG_ORACLE = 1000 };
const char *pb_alg_name(int alg);

/* Datatypes and ops patbench can use (names for the command line). */
typedef struct pb_type_row {
  const char *name;
  MPI_Datatype type;
  size_t size;
} pb_type_row;
/* `op` is the MPI op every algorithm of the table uses.  `charged`: the
 * MPI library's own reduce (the `native` row, and only it) gets a
 * user-defined op instead that combines with pat_reduce_local(op), so
 * that it pays the same gamma per byte in SMPI as the library's
 * algorithms (sum-charged).  `ordered`: every row gets op through a
 * user-defined op declared non-commutative, so that every algorithm
 * takes its rank-order path (sum-ordered: still a sum, so the results
 * are checked as any sum's). */
typedef struct pb_op_row {
  const char *name;
  MPI_Op op;
  int charged, ordered;
} pb_op_row;
extern const pb_type_row pb_types[]; /* ends with a NULL name */
extern const pb_op_row pb_ops[];     /* ends with a NULL name */

/* Parses argv (GNU long options).  Returns 0 to run, 1 when --help was
 * printed to `out`, 2 on a bad option (message in why).  Free with
 * pb_options_clear(). */
int pb_options_parse(int argc, char **argv, pb_options *opt, FILE *out,
                     char *why, size_t whylen);
void pb_options_clear(pb_options *opt);

#endif /* PATBENCH_H */
