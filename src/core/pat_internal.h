/*
 * Internal interfaces of patreduce: the algorithm table, the configuration
 * cache, per-communicator state, the local combine and the executor.
 * Nothing here is installed.
 */
#ifndef PAT_INTERNAL_H
#define PAT_INTERNAL_H

#include <stddef.h>

#include <mpi.h>

#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"
#include "reduce/pat_schedule.h"
#include "reduce/pat_trace.h"

/* ---- one call --------------------------------------------------------- */

typedef struct pat_comm_state pat_comm_state;
struct pat_state;

/* Everything an algorithm needs to serve one call. */
typedef struct pat_call {
  const void *sendbuf; /* MPI_IN_PLACE already resolved: recvbuf at root */
  void *recvbuf;
  int count;
  MPI_Datatype datatype;
  MPI_Op op;
  int root;
  MPI_Comm comm;    /* the user's communicator */
  MPI_Comm priv;    /* its private duplicate: all traffic goes here */
  int rank, nranks; /* in comm */
  int commutative;  /* as MPI_Op_commutative says */
  int contiguous;   /* datatype has no gaps */
  int in_place;     /* the root passed MPI_IN_PLACE */
  double bytes;     /* count * type size: the size of one message */
  int tag; /* first of the PAT_TAGS_PER_CALL tags of this call on priv */
  pat_comm_state *state;  /* per-communicator state (schedule cache) */
  struct pat_state *pat;  /* PAT layer state, or NULL */
  const double *arrivals; /* clairvoyant inputs (predicted or told) */
  pat_model model;        /* cost model for this call (predicted or told) */
} pat_call;

/* ---- the algorithm table ---------------------------------------------- */

/* What an algorithm needs from a call; a call that lacks one falls back. */
enum {
  PAT_NEEDS_COMMUTATIVE = 1u << 0, /* the op must be commutative */
  PAT_NEEDS_CONTIGUOUS = 1u << 1,  /* the datatype must have no gaps */
  PAT_NEEDS_PATS = 1u << 2         /* predicted arrival times must exist */
};

/* The properties of a call that restrictions are checked against. */
typedef struct pat_call_props {
  int commutative;
  int contiguous;
  int count;
  int has_pats;
} pat_call_props;

typedef int (*pat_run_fn)(const pat_call *call);
/* Writes rank's program into sched, or every rank's for rank == -1. */
typedef int (*pat_build_fn)(const pat_sched_params *params, int rank,
                            pat_schedule *sched);

/* One row per algorithm.  A row has exactly one of build (a static
 * algorithm: its schedule is run by the core executor) and run (a dynamic
 * protocol or a foreign implementation). */
typedef struct pat_alg_row {
  pat_reduce_alg id;
  const char *name;
  const char *description;
  pat_build_fn build;
  pat_run_fn run;
  unsigned needs;          /* PAT_NEEDS_* */
  int min_count;           /* smallest count served */
  pat_reduce_alg fallback; /* used when a restriction fails */
} pat_alg_row;

extern const pat_alg_row pat_alg_table[PAT_REDUCE_ALG_COUNT];

/* Why a row cannot serve a call: 0 if it can, else a PAT_NEEDS_* bit or
 * PAT_WHY_COUNT for the minimum count. */
#define PAT_WHY_COUNT (1u << 8)
unsigned pat_alg_unmet(const pat_alg_row *row, const pat_call_props *props);

/* Follows fallbacks from wanted until a row of table can serve props.
 * Writes the chosen id; returns PAT_SUCCESS or PAT_ERR_INVALID_ARG if the
 * chain loops or leaves the table. */
int pat_alg_select(const pat_alg_row *table, int nrows, pat_reduce_alg wanted,
                   const pat_call_props *props, pat_reduce_alg *chosen);

/* Writes "binomial, native, ..." into buf. */
void pat_alg_names(char *buf, size_t len);

/* Checks rank's program alone: kinds, rounds in order, peers, slots that
 * exist for the rank, element ranges inside [0, count).  (Whether sends
 * and receives pair up needs every rank's program: pat_schedule_validate.)
 * Returns PAT_SUCCESS or PAT_ERR_INVALID_SCHEDULE. */
int pat_schedule_check_program(const pat_schedule *sched, int rank);

/* Builders record what they predicted (pat_schedule_predicted_time) and
 * the hash of the tree they built (pat_schedule_hash). */
void pat_schedule_set_prediction(pat_schedule *sched, double completion,
                                 unsigned long long hash);

/* ---- trees ------------------------------------------------------------- */

/* One event of a rank's part in a reduction tree. */
typedef enum pat_tree_kind {
  PAT_TREE_RECV_AFTER,  /* a child's partial covering the ranks after ours */
  PAT_TREE_RECV_BEFORE, /* a child's partial covering the ranks before ours */
  PAT_TREE_SEND         /* send our partial to the parent */
} pat_tree_kind;

typedef struct pat_tree_event {
  pat_tree_kind kind;
  int round;
  int peer;
} pat_tree_event;

/* Appends rank's operations for its events (rounds non-decreasing) to
 * sched, choosing buffer slots (src/core/tree.c).  For commutative ops
 * every receive may be given as PAT_TREE_RECV_AFTER. */
int pat_tree_emit(pat_schedule *sched, const pat_sched_params *params, int rank,
                  const pat_tree_event *events, int nevents);

/* The least r >= 0 with 2^r >= n: the depth of a binomial tree over n
 * ranks (0 for n <= 1). */
int pat_ceil_log2(int n);

/* Algorithm bodies. */
int pat_binomial_build(const pat_sched_params *params, int rank,
                       pat_schedule *sched);
int pat_native_run(const pat_call *call);
int pat_clairvoyant_build(const pat_sched_params *params, int rank,
                          pat_schedule *sched);
int pat_localredirect_run(const pat_call *call);

/* ---- configuration (environment, read once) --------------------------- */

/* Every environment variable the library reads. */
typedef struct pat_env_var {
  const char *name;
  const char *fallback; /* value when unset */
  const char *description;
} pat_env_var;

/* Rows of pat_env_table, in order. */
enum {
  PAT_ENV_ALGORITHM = 0,
  PAT_ENV_VERBOSE,
  PAT_ENV_PREDICTOR,
  PAT_ENV_EXCHANGE_INTERVAL,
  PAT_ENV_EXCHANGE_LAG,
  PAT_ENV_CLOCK_REFRESH,
  PAT_ENV_MODEL,
  PAT_ENV_ROUND_COST,
  PAT_ENV_LR_PATIENCE,
  PAT_ENV_COUNT
};

extern const pat_env_var pat_env_table[PAT_ENV_COUNT];

typedef struct pat_config {
  pat_reduce_alg algorithm;
  int verbose;           /* 0 quiet, 1 fallbacks, 2 every call */
  char predictor[64];    /* a valid predictor spec */
  int exchange_interval; /* exchange the arrival stamps every N calls;
                            0: never */
  int exchange_lag;      /* ... and use them L calls later */
  long clock_refresh;    /* re-estimate clock offsets every N calls, 0 never */
  int has_model;         /* PAT_REDUCE_MODEL was given and read */
  pat_model model;
  double round_cost;  /* PAT_REDUCE_ROUND_COST, or 0 if unset */
  double lr_patience; /* PAT_REDUCE_LR_PATIENCE seconds, < 0 for auto */
  int error;          /* PAT_SUCCESS or PAT_ERR_BAD_ENV */
  char why[512];      /* message for error */
} pat_config;

/* Parses a configuration from a getenv-like function (tests pass their own). */
void pat_config_parse(pat_config *cfg, const char *(*get)(const char *name));

/* The cached configuration of this process, parsed on first use. */
const pat_config *pat_config_get(void);

/* Prints a message to stderr once per process for each key (a small
 * integer < 64), with a "patreduce: " prefix. */
void pat_warn_once(int key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
enum { PAT_ONCE_ENV = 0, PAT_ONCE_FALLBACK = 1 /* + algorithm id */ };

/* ---- per-communicator state ------------------------------------------- */

/* Finds or creates the state of comm (collective on first use: it
 * duplicates comm).  Returns an MPI error code. */
int pat_comm_state_get(MPI_Comm comm, pat_comm_state **out);

/* Looks the state up without creating it: NULL if none. */
pat_comm_state *pat_comm_state_find(MPI_Comm comm);

MPI_Comm pat_comm_state_priv(const pat_comm_state *st);

/* Tags a call may use on the private communicator (localredirect needs a
 * control and a data tag). */
#define PAT_TAGS_PER_CALL 2

/* The first tag of the next call; advances the call sequence number. */
int pat_comm_state_next_tag(pat_comm_state *st);

void pat_comm_state_set_last(pat_comm_state *st, pat_reduce_alg alg);
int pat_comm_state_last(const pat_comm_state *st, pat_reduce_alg *alg);
unsigned long pat_comm_state_calls(const pat_comm_state *st);

/* The PAT layer state of the communicator, created on first request
 * (collective: every rank asks at the same call).  MPI error code. */
int pat_comm_state_pat(pat_comm_state *st, struct pat_state **out);

int pat_comm_state_has_pat(const pat_comm_state *st);

/* localredirect's estimate of one transfer of bytes on this communicator
 * by this rank (seconds; 0 while nothing was measured), and a new
 * measurement of one. */
double pat_comm_state_lr_transfer(const pat_comm_state *st, double bytes);
void pat_comm_state_lr_observe(pat_comm_state *st, double bytes,
                               double seconds);

/* The schedule that served the last scheduled call, or NULL. */
const pat_schedule *pat_comm_state_last_schedule(const pat_comm_state *st);

/* Tracing (include/reduce/pat_trace.h): whether it is on for the call's
 * communicator, and one interval to record. */
int pat_trace_on(const pat_call *call);
void pat_trace_note(const pat_call *call, pat_trace_kind kind, int peer,
                    int count, double t0, double t1);

/* A schedule of alg for params and this rank, built or reused from the
 * state's cache.  Owned by the state.  Returns a pat_reduce_error. */
int pat_comm_state_schedule(pat_comm_state *st, pat_reduce_alg alg,
                            const pat_sched_params *params, int rank,
                            const pat_schedule **out);

/* ---- buffers and local combine ---------------------------------------- */

/* A temporary buffer able to hold count elements of a datatype, whatever
 * its lower bound: base points where element 0 starts. */
typedef struct pat_tmpbuf {
  void *raw;
  char *base;
} pat_tmpbuf;

int pat_tmpbuf_alloc(pat_tmpbuf *buf, int count, MPI_Datatype datatype);
void pat_tmpbuf_free(pat_tmpbuf *buf);

/* Address of element i of a buffer. */
char *pat_elem(char *base, int i, MPI_Aint extent);
const char *pat_celem(const char *base, int i, MPI_Aint extent);

/* Whether count elements of datatype occupy one gap-free byte range. */
int pat_type_is_contiguous(MPI_Datatype datatype, int *contiguous);

/* dst = src, count elements (any datatype).  MPI error code. */
int pat_local_copy(const void *src, void *dst, int count,
                   MPI_Datatype datatype);

/* inout = in (op) inout, through PMPI_Reduce_local.  MPI error code. */
int pat_local_combine(const void *in, void *inout, int count,
                      MPI_Datatype datatype, MPI_Op op);

/* ---- executor ----------------------------------------------------------- */

/* Runs rank's program of sched for call.  MPI error code. */
int pat_exec_run(const pat_schedule *sched, const pat_call *call);

#endif /* PAT_INTERNAL_H */
