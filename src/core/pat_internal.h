/*
 * Internal interfaces of patreduce: the algorithm table, the configuration
 * cache, per-communicator state, the local combine and the executor.
 * Nothing here is installed.
 */
#ifndef PAT_INTERNAL_H
#define PAT_INTERNAL_H

#include <stddef.h>
#include <stdalign.h>

#include <mpi.h>
#include <pthread.h>

#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"
#include "reduce/pat_schedule.h"
#include "reduce/pat_trace.h"

/* ---- one call --------------------------------------------------------- */

typedef struct pat_comm_state pat_comm_state;
struct pat_state;

/* What the library uses of a datatype, read once per call. */
typedef struct pat_type_info {
  MPI_Count size;      /* bytes of data in one element */
  MPI_Aint lb, extent; /* as PMPI_Type_get_extent says */
  MPI_Aint true_lb, true_extent;
  int contiguous; /* no gaps, no lower bound: elements are size bytes apart */
} pat_type_info;

/* Reads datatype's sizes and extents into info.  MPI error code. */
int pat_type_info_get(MPI_Datatype datatype, pat_type_info *info);

/* The facts the argument checks established for a (datatype, op) pair:
 * pat_type_op_remember keeps them (for predefined handles only, the last
 * pair per thread), pat_type_op_known gives them back with no MPI call
 * and returns 1, or returns 0 and writes nothing. */
void pat_type_op_remember(MPI_Datatype datatype, MPI_Op op,
                          const pat_type_info *info, int commutative);
int pat_type_op_known(MPI_Datatype datatype, MPI_Op op, pat_type_info *info,
                      int *commutative);

/* Everything an algorithm needs to serve one call. */
typedef struct pat_call {
  const void *sendbuf; /* MPI_IN_PLACE already resolved: recvbuf at root */
  void *recvbuf;
  int count;
  MPI_Datatype datatype;
  MPI_Op op;
  int root;
  MPI_Comm comm;      /* the user's communicator */
  MPI_Comm priv;      /* its private duplicate: all traffic goes here */
  int rank, nranks;   /* in comm */
  int commutative;    /* as MPI_Op_commutative says */
  pat_type_info type; /* of datatype */
  int in_place;       /* the root passed MPI_IN_PLACE */
  double bytes;       /* count * type size: the size of one message */
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
  PAT_NEEDS_OWN_CORES = 1u << 2    /* ranks that do not share cores */
};

/* The properties of a call that restrictions are checked against;
 * shared_cores: the communicator's ranks share cores (pat_cores_shared,
 * asked only where the row wanted needs cores of their own; 0 otherwise). */
typedef struct pat_call_props {
  int commutative;
  int contiguous;
  int count;
  int shared_cores;
} pat_call_props;

typedef int (*pat_run_fn)(const pat_call *call);
/* Picks the row that serves call (props: what it needs) into *chosen: a
 * row with a build or a run that can serve props; may set call's model
 * and arrivals for it.  Returns an MPI error code. */
typedef int (*pat_choose_fn)(pat_call *call, const pat_call_props *props,
                             pat_reduce_alg *chosen);
/* Writes rank's program into sched, or every rank's for rank == -1. */
typedef int (*pat_build_fn)(const pat_sched_params *params, int rank,
                            pat_schedule *sched);

/* An environment variable the library reads: the core's (pat_env_table)
 * or an algorithm's tunable (its row's env list, ended by a NULL name). */
typedef struct pat_env_var {
  const char *name;
  const char *fallback; /* value when unset */
  const char *description;
  /* 1: only this rank's memory, output or pacing, so ranks may differ;
   * 0: it shapes communication, so every rank of a communicator must
   * agree (checked at the communicator's first call: comm.c) */
  int local;
  /* the PAT_SCOPE_* of what reads it: an algorithm's tunables are its
   * row's, PAT_SCOPE_ROWS + its id (a unit test checks) */
  int scope;
} pat_env_var;

/* What uses a variable.  A call fails on a bad value only if its algorithm
 * uses the variable (pat_alg_scopes); a bad value nothing in the call uses
 * is reported once and ignored (patreduce_info --check names them all). */
enum {
  PAT_SCOPE_ALL = 0,  /* every call */
  PAT_SCOPE_SCHEDULE, /* the schedule executor: rows with a build */
  PAT_SCOPE_ARRIVALS, /* the PAT layer: rows that plan with arrival times */
  PAT_SCOPE_MODEL,    /* the cost model (in SMPI also the combine charge) */
  PAT_SCOPE_SEGMENTS, /* the segment count of segmenting rows */
  PAT_SCOPE_ROWS      /* PAT_SCOPE_ROWS + id: algorithm id's own tunables */
};
#define PAT_SCOPE_COUNT (PAT_SCOPE_ROWS + PAT_REDUCE_ALG_COUNT)
#define PAT_SCOPE_BIT(s) (1ull << (s))
_Static_assert(PAT_SCOPE_COUNT <= 64, "scopes are bits of a 64-bit mask");

/* Most bytes of parsed tunables one algorithm keeps in the configuration
 * cache (checked when the configuration is parsed, and by a unit test). */
#define PAT_ALG_CONFIG_BYTES 64

/* Reads an algorithm's tunables with get (getenv or a test's) into config
 * (config_size bytes, zeroed).  Returns PAT_SUCCESS or PAT_ERR_BAD_ENV with
 * a message naming the variable, the value and the valid ones in why. */
typedef int (*pat_config_fn)(void *config, const char *(*get)(const char *),
                             char *why, size_t whylen);

/* One row per algorithm, defined in the algorithm's folder as pat_alg_NAME
 * (NAME from PAT_REDUCE_ALGORITHMS).  A row has exactly one of build (a
 * static algorithm: its schedule is run by the core executor), run (a
 * dynamic protocol or a foreign implementation) and choose (a row that
 * picks one of the others per call). */
typedef struct pat_alg_row {
  pat_reduce_alg id;
  const char *name;
  const char *description;
  pat_build_fn build;
  pat_run_fn run;
  pat_choose_fn choose; /* or a row that picks another per call (auto) */
  /* A row that picks: 1 with the row in *chosen when its last pick stands
   * for call (nothing it decides from changed since; it sets call->model
   * as its pick would), asked only where the PAT layer has nothing to do
   * at the call (pat_state_quiet): the call then runs that row without
   * arriving, predicting or deciding.  *through: the last call the pick
   * may stand for without the row being asked again (the row's own
   * bound; the PAT layer's work bounds it too).  NULL: every call
   * decides. */
  int (*standing)(pat_call *call, const pat_call_props *props,
                  pat_reduce_alg *chosen, long *through);
  unsigned needs;          /* PAT_NEEDS_* */
  int min_count;           /* smallest count served */
  pat_reduce_alg fallback; /* used when a restriction fails */
  int uses_arrivals; /* plans with arrival times: the PAT layer predicts */
  /* PAT_SCOPE_BITs of the core's variables it reads besides those every
   * row of its kind reads (pat_alg_scopes adds those) */
  unsigned long long uses;
  /* The modeled completion time of its schedule for params (seconds after
   * the earliest arrival; params->arrivals NULL: balanced) under params'
   * byte model, cheap (O(P) at most, the clairvoyant plan's cost for
   * clairvoyant): the header's cost formula.  NULL: none (auto does not
   * consider the row). */
  double (*estimate)(const pat_sched_params *params);
  /* A lower bound of estimate in O(P), where estimate itself is costly
   * (clairvoyant's plan); NULL: estimate is cheap. */
  double (*bound)(const pat_sched_params *params);
  /* A row whose estimate this row's is never below for the same call
   * (native's is binomial's, localredirect's binomial's with more
   * latency), balanced, and under arrivals too unless this row absorbs
   * them (below): auto does not weigh this row while it weighs that one,
   * which wins the ties anyway (the earlier row).  NULL: none.
   * unit_estimate checks the claim. */
  const struct pat_alg_row *never_below;
  /* 1: its estimate under arrivals walks how it absorbs late ranks
   * without a prediction (localredirect's tree protocol gives a late
   * child up and forwards its data): there it can be below never_below's,
   * and auto weighs it as it is, like binomial's walk, not at its
   * balanced estimate plus the arrivals' spread.  unit_estimate checks
   * that a rank late by many rounds costs it about two rounds after its
   * arrival. */
  int absorbs;
  /* 1: arrivals only delay it: its estimate under arrivals is never below
   * its balanced one (ring, butterfly, radix-k: their balanced formula
   * plus the arrivals' spread; pipeline: a maximum that starts from it),
   * so auto does not compute it under arrivals where the balanced one
   * cannot win.  Not binomial, whose tree is walked: in rank order the
   * root's two receives share its port, and a later one can end sooner.
   * unit_estimate checks the claim. */
  int arrivals_delay;
  /* tunables: their variables, and the parser filling config_size bytes of
   * the configuration cache (pat_config_alg) */
  const pat_env_var *env;
  size_t config_size;
  pat_config_fn parse;
  /* per-communicator state (pat_comm_state_alg), freed with it */
  void (*state_free)(void *state);
  /* A row that learns from the PAT layer's observations (auto): called at
   * every call of a communicator on which it keeps state, whichever row
   * serves the call, where the layer's arrival observed an exchange.  The
   * layer keeps the last PAT_OBSERVED_KEPT observations only, and the
   * calls of other rows between the row's own (a rules file's lines) may
   * push the row's out before its next call.  NULL: none. */
  void (*observed)(pat_call *call);
} pat_alg_row;

/* Row i is the row of algorithm i. */
extern const pat_alg_row *const pat_alg_table[PAT_REDUCE_ALG_COUNT];

/* The earliest of params->arrivals (0 if NULL): estimates count from it. */
double pat_sched_first_arrival(const pat_sched_params *params);

/* The latest arrival after the earliest of params->arrivals (0 if NULL):
 * what a late rank adds to an algorithm in which every rank takes part
 * from the first step (ring, butterfly, radix-k, pipeline), as an
 * estimate's term. */
double pat_sched_spread(const pat_sched_params *params);

/* Why a row cannot serve a call: 0 if it can, else a PAT_NEEDS_* bit or
 * PAT_WHY_COUNT for the minimum count. */
#define PAT_WHY_COUNT (1u << 8)
unsigned pat_alg_unmet(const pat_alg_row *row, const pat_call_props *props);

/* Follows fallbacks from wanted until a row of table can serve props.
 * Writes the chosen id; returns PAT_SUCCESS or PAT_ERR_INVALID_ARG if the
 * chain loops or leaves the table. */
int pat_alg_select(const pat_alg_row *const *table, int nrows,
                   pat_reduce_alg wanted, const pat_call_props *props,
                   pat_reduce_alg *chosen);

/* The scopes (PAT_SCOPE_BITs) whose variables a call of algorithm id
 * reads: every call's, the row's own tunables, the executor's for a row
 * with a build, the PAT layer's and the model for one that uses arrival
 * times, the row's uses, and in SMPI the model (the combine charge). */
unsigned long long pat_alg_scopes(pat_reduce_alg id);

/* The scopes every call reads, whatever its algorithm. */
unsigned long long pat_base_scopes(void);

/* Writes "binomial, native, ..." into buf. */
void pat_alg_names(char *buf, size_t len);

/* Checks rank's program alone: kinds, rounds in order, peers, slots that
 * exist for the rank, element ranges inside [0, count).  (Whether sends
 * and receives pair up needs every rank's program: pat_schedule_validate.)
 * Returns PAT_SUCCESS or PAT_ERR_INVALID_SCHEDULE. */
int pat_schedule_check_program(const pat_schedule *sched, int rank);

/* Builders' shorthand: appends {kind, round, peer, src, dst, [lo, hi)} to
 * rank's program unless *err already holds an error; a failure goes to
 * *err. */
void pat_schedule_put(pat_schedule *sched, int rank, int *err,
                      pat_sched_kind kind, int round, int peer, int src,
                      int dst, int lo, int hi);

/* Builders record what they predicted (pat_schedule_predicted_time) and
 * the hash of the tree they built (pat_schedule_hash). */
void pat_schedule_set_prediction(pat_schedule *sched, double completion,
                                 unsigned long long hash);

/* A plan's transfers in order, replayable under other arrivals
 * (replay.c): what a planning builder's schedule carries so that its
 * plan can be scored under the real arrivals without planning it again.
 * pat_replay_alloc: n transfers to set, for nseg segments of one round d
 * each (NULL on bad arguments or no memory); pat_replay_set: transfer i
 * (PAT_ERR_INVALID_ARG naming nothing: a bad rank, segment or index);
 * pat_replay_time: the plan's completion after the earliest of actual's
 * arrivals (NULL: balanced; INFINITY if r is NULL or an arrival is not
 * finite); references:
 * _ref adds one, _free drops one (NULL ok). */
typedef struct pat_replay pat_replay;
pat_replay *pat_replay_alloc(int nranks, int root, int nseg, double d, int n);
int pat_replay_set(pat_replay *r, int i, int sender, int receiver, int seg);
double pat_replay_time(const pat_replay *r, const double *actual);
pat_replay *pat_replay_ref(pat_replay *r);
void pat_replay_free(pat_replay *r);

/* A planning builder attaches its plan's replay (the schedule takes the
 * reference); pat_schedule_replay: it, or NULL (borrowed: pat_replay_ref
 * to keep it beyond the schedule). */
void pat_schedule_set_replay(pat_schedule *sched, pat_replay *replay);
pat_replay *pat_schedule_replay(const pat_schedule *sched);
/* Bytes sched holds (programs, arrival copy; its replay not counted): a
 * schedule built for one rank holds O(its operations), plus P arrival
 * times if it was planned by them. */
size_t pat_schedule_footprint(const pat_schedule *sched);

/* A builder whose rounds keep every send port busy (the segmented
 * clairvoyant plan) bounds the sends of later rounds posted early to n:
 * one posted ahead shares the port with the round's own and delays it.
 * The executor and the simulator take the smaller of it and
 * PAT_REDUCE_MAX_SENDS (configured); without a bound, configured. */
void pat_schedule_set_sends_ahead(pat_schedule *sched, int n);
int pat_schedule_sends_ahead(const pat_schedule *sched, int configured);

/* ---- dataflow (src/core/dataflow.c) ------------------------------------ */

/* The dependencies of one rank's program (rule in pat_schedule.h):
 * pred[pred_start[i] .. pred_start[i+1]) are the earlier operations i waits
 * for, succ[...] the later ones waiting for i; chan_prev[i] (chan_next[i])
 * is the previous (next) SEND to / RECV from the same peer, or -1. */
typedef struct pat_deps {
  int nops, npred;
  int *pred_start, *pred;
  int *succ_start, *succ;
  int *chan_prev, *chan_next;
  /* the elements [tmp_lo[s], tmp_hi[s]) of temporary slot s that the
   * program touches (tmp_hi < tmp_lo: unused; set for every slot); the
   * temporaries up to the last one used: PAT_SLOT_TMP0 .. + ntmp - 1 */
  int tmp_lo[PAT_SLOT_MAX], tmp_hi[PAT_SLOT_MAX], ntmp;
  /* a tree node's program: receives, then at most one send, no round with
   * two transfers; it may run op by op in its order, each transfer a
   * blocking call (exec.c) */
  int in_order;
} pat_deps;

/* in_place_root: the program is the root's and it passed MPI_IN_PLACE (the
 * send slot names the receive buffer).  Returns a pat_reduce_error
 * (PAT_ERR_INVALID_ARG for a slot outside 0..PAT_SLOT_MAX-1 or a negative
 * range). */
int pat_deps_alloc(const pat_sched_op *ops, int nops, int in_place_root,
                   pat_deps **out);
void pat_deps_free(pat_deps *deps); /* accepts NULL */

/* The index of e among the n sorted cut points cut (the first >= e). */
int pat_cut_index(const int *cut, int n, int e);

/* Sorts n non-negative ints (cut points) in O(n) for large n: insertion
 * below 64, LSD radix above; tmp holds n ints. */
void pat_sort_ints(int *v, int *tmp, int n);

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
  int seg; /* segment (pat_tree_emit_segments); 0 for atomic trees */
} pat_tree_event;

/* Appends rank's operations for its events (rounds non-decreasing) to
 * sched, choosing buffer slots (src/core/tree.c).  For commutative ops
 * every receive may be given as PAT_TREE_RECV_AFTER. */
int pat_tree_emit(pat_schedule *sched, const pat_sched_params *params, int rank,
                  const pat_tree_event *events, int nevents);

/* The same for a tree over nseg segments of [0, count) (segment s covers
 * [s count / nseg, (s + 1) count / nseg)): each event names its segment,
 * each segment has its own partial and slots, events in round order. */
int pat_tree_emit_segments(pat_schedule *sched, const pat_sched_params *params,
                           int rank, int nseg, const pat_tree_event *events,
                           int nevents);

/* The least r >= 0 with 2^r >= n: the depth of a binomial tree over n
 * ranks (0 for n <= 1). */
int pat_ceil_log2(int n);

/* ---- reduce-scatter + gather (src/core/scatter.c) ---------------------- */

#define PAT_SCATTER_MAX_ROUNDS 32

/* The first 2 (P - q) ranks fold pairwise into q, which run radix rounds
 * of radix[0], radix[1], ... (product q, each >= 2), then gather to the
 * root. */
typedef struct pat_scatter_plan {
  int q;
  int nradix;
  int radix[PAT_SCATTER_MAX_ROUNDS];
} pat_scatter_plan;

/* PAT_SUCCESS if plan fits nranks (P/2 <= q <= P, radices >= 2 multiplying
 * to q), else PAT_ERR_INVALID_ARG. */
int pat_scatter_check(const pat_scatter_plan *plan, int nranks);

/* Appends rank's program (every rank's for rank == -1) of the plan. */
int pat_scatter_emit(pat_schedule *sched, const pat_sched_params *params,
                     int rank, const pat_scatter_plan *plan);

/* ---- configuration (environment, read once) --------------------------- */

/* Rows of pat_env_table, in order. */
enum {
  PAT_ENV_ALGORITHM = 0,
  PAT_ENV_RULES,
  PAT_ENV_VERBOSE,
  PAT_ENV_PREDICTOR,
  PAT_ENV_EXCHANGE_INTERVAL,
  PAT_ENV_EXCHANGE_LAG,
  PAT_ENV_CLOCK_REFRESH,
  PAT_ENV_MODEL,
  PAT_ENV_ROUND_COST,
  PAT_ENV_MAX_OUTSTANDING,
  PAT_ENV_MAX_SENDS,
  PAT_ENV_SMPI_SHARED_ABOVE,
  PAT_ENV_SCRATCH_KEEP,
  PAT_ENV_SCHEDULE_CACHE,
  PAT_ENV_PLAN_MEMO,
  PAT_ENV_SEGMENTS,
  PAT_ENV_CORES,
  PAT_ENV_COUNT
};

/* PAT_REDUCE_CORES: whether ranks share cores (PAT_NEEDS_OWN_CORES). */
typedef enum {
  PAT_CORES_DETECT = 0, /* auto: as pat_cores_shared finds */
  PAT_CORES_OWN,        /* never */
  PAT_CORES_SHARED      /* always */
} pat_cores_mode;

extern const pat_env_var pat_env_table[PAT_ENV_COUNT];

/* Every variable the library reads: the core's, then each algorithm's
 * tunables in table order.  Writes up to max pointers; returns how many
 * there are. */
int pat_env_all(const pat_env_var **vars, int max);

/* getenv with the signature pat_env_value and the parsers take. */
const char *pat_process_getenv(const char *name);

/* var's value as get (pat_process_getenv or a test's) gives it; unset or
 * empty: its fallback. */
const char *pat_env_value(const pat_env_var *var,
                          const char *(*get)(const char *));

/* Most variables pat_config_fingerprints reports. */
#define PAT_ENV_MAX 64

/* The variables that shape communication (not local), each with a hash of
 * its value as this process sees it now (its text, or the fallback; for
 * PAT_REDUCE_MODEL also the model read from the file).  Writes up to max;
 * returns how many. */
int pat_config_fingerprints(const pat_env_var **vars, unsigned long long *hash,
                            int max);

/* Most schedules a communicator keeps (PAT_REDUCE_SCHEDULE_CACHE). */
#define PAT_MAX_SCHEDULE_CACHE 4096

/* Most segments a segmenting algorithm cuts a message into. */
#define PAT_MAX_SEGMENTS 16384

/* PAT_REDUCE_RULES (rules.c): rules by communicator and message size,
 * each with a configuration of its own. */
typedef struct pat_rules pat_rules;
#define PAT_MAX_RULES 256

typedef struct pat_config {
  pat_reduce_alg algorithm;
  pat_rules *rules; /* PAT_REDUCE_RULES, or NULL; owned */
  /* the rows auto may pick (bit id): PAT_REDUCE_ALGORITHM as a list, all
   * by default */
  unsigned long long candidates;
  int verbose; /* 0 quiet, 1 fallbacks, 2 every call, 3 auto's reasons */
  char predictor[64];    /* a valid predictor spec */
  int exchange_interval; /* exchange the arrival stamps every N calls;
                            0: never; -1: auto (pat_exchange_interval) */
  int exchange_lag;      /* ... and use them L calls later; 0: auto */
  long clock_refresh;    /* re-estimate clock offsets every N calls, 0 never */
  int has_model;         /* PAT_REDUCE_MODEL was given and read */
  pat_model model;
  double round_cost;      /* PAT_REDUCE_ROUND_COST, or 0 if unset */
  int max_outstanding;    /* receives posted ahead of the earliest round */
  int max_sends;          /* sends posted ahead of the earliest round */
  long smpi_shared_above; /* SMPI build: larger temporaries shared; 0 never */
  long scratch_keep;      /* bytes a communicator keeps of each scratch block */
  int schedule_cache;     /* schedules a communicator keeps, >= 1 */
  long plan_memo;         /* bytes of plans the process keeps (memo.c) */
  int segments; /* PAT_REDUCE_SEGMENTS: 1..PAT_MAX_SEGMENTS, 0 automatic */
  pat_cores_mode cores; /* PAT_REDUCE_CORES */
  /* each algorithm's parsed tunables (pat_config_alg) */
  _Alignas(max_align_t) unsigned char alg[PAT_REDUCE_ALG_COUNT]
                                         [PAT_ALG_CONFIG_BYTES];
  int error;     /* PAT_SUCCESS, or PAT_ERR_BAD_ENV if any value is bad */
  char why[512]; /* the first bad value's message */
  unsigned long long bad;               /* PAT_SCOPE_BITs with a bad value */
  char scope_why[PAT_SCOPE_COUNT][512]; /* each one's first message */
} pat_config;

/* Parses a configuration from a getenv-like function (tests pass their own). */
void pat_config_parse(pat_config *cfg, const char *(*get)(const char *name));

/* The message of a bad value in one of scopes (the lowest), or NULL. */
const char *pat_config_bad(const pat_config *cfg, unsigned long long scopes);

/* The cached configuration of this process, parsed on first use; while a
 * call a rule serves runs, that rule's configuration (this thread). */
const pat_config *pat_config_get(void);

/* The process's configuration, never a rule's (what a communicator's
 * PAT state keeps). */
const pat_config *pat_config_process(void);

/* How many times pat_reduce_config_reload has run: what was derived from
 * a configuration holds while this is unchanged. */
unsigned long pat_config_generation(void);

/* Makes cfg this thread's configuration until pat_config_pop(the value
 * returned). */
const pat_config *pat_config_push(const pat_config *cfg);
void pat_config_pop(const pat_config *previous);

/* Reads a rules file; each rule's configuration is parsed with get and the
 * rule's settings over it.  PAT_SUCCESS, or a pat_reduce_error with
 * "FILE:LINE: reason" in why. */
int pat_rules_read(const char *path, const char *(*get)(const char *),
                   pat_rules **out, char *why, size_t len);
void pat_rules_free(pat_rules *rules); /* accepts NULL */
/* The configuration of the first rule matching a call of bytes per rank
 * on nranks ranks (and its line), or NULL. */
const pat_config *pat_rules_match(const pat_rules *rules, int nranks,
                                  long long bytes, int *line);
/* A hash of the file's contents (0 for NULL). */
unsigned long long pat_rules_hash(const pat_rules *rules);

/* FNV-1a of n bytes at p, continuing h (start from PAT_HASH_INIT): the
 * hash of settings' texts, messages and the rules file. */
#define PAT_HASH_INIT 0xcbf29ce484222325ull
unsigned long long pat_hash_bytes(unsigned long long h, const void *p,
                                  size_t n);

/* The parsed tunables of algorithm alg in cfg (its row's parser wrote
 * them). */
const void *pat_config_alg(const pat_config *cfg, pat_reduce_alg alg);

/* The cost model when nothing is measured or configured: the CURIE-like
 * platform of DESIGN.md (alpha 2.66 us, beta 4.8179e-10 s/B, gamma
 * 1.6654e-10 s/B). */
extern const pat_model pat_model_curie;

/* cfg's PAT_REDUCE_MODEL if one was read, else pat_model_curie. */
const pat_model *pat_config_model(const pat_config *cfg);

/* Prints a message to stderr, with a "patreduce: " prefix, once per
 * process for each distinct message text (up to PAT_WARN_MAX of them;
 * pat_reduce_config_reload forgets them). */
#define PAT_WARN_MAX 256
void pat_warn_once(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* ---- sizes and times as text (units.c) ------------------------------------
 */

/* Bytes: a whole number >= 0, optional K, M, G suffix (powers of 1024),
 * at most max.  Returns 1 and writes *bytes, -1 for a size above max, or
 * 0 for anything else. */
int pat_parse_bytes(const char *text, long long max, long long *bytes);

/* Seconds: a number >= 0, optional unit s, ms, us, ns (none: s).
 * Returns 1 and writes *seconds, or 0. */
int pat_parse_seconds(const char *text, double *seconds);

/* ---- locks --------------------------------------------------------------- */

/* The locks of the process-wide state made on first use (configuration,
 * warnings, keyvals), so that threads of an MPI_THREAD_MULTIPLE program may
 * make their first calls at once.  None in the SMPI build: its simulated
 * ranks take turns on shared threads, and a lock held by one rank when the
 * simulator switches to another would be taken again by the same thread. */
#ifdef PATREDUCE_SMPI
#define PAT_LOCK(m) ((void)(m))
#define PAT_UNLOCK(m) ((void)(m))
#else
#define PAT_LOCK(m) pthread_mutex_lock(m)
#define PAT_UNLOCK(m) pthread_mutex_unlock(m)
#endif

/* PAT_REDUCE_VERBOSE >= 1, at MPI_Finalize: prints the calls each row
 * served in this process and the fallbacks (dispatch.c), if there were
 * calls, naming the rank. */
void pat_dispatch_summary(int rank);

/* Calls served as repeats of the last call (dispatch.c: no checks, no
 * choice, the last schedule again), or with prepared != 0 those of them
 * that ran prepared (exec.c): in this process, or in this thread under
 * MPI_THREAD_MULTIPLE; 0 in the SMPI build. */
unsigned long pat_dispatch_repeats(int prepared);

/* ---- per-communicator state ------------------------------------------- */

/* Finds or creates the state of comm (collective on first use: it
 * duplicates comm).  Returns an MPI error code. */
int pat_comm_state_get(MPI_Comm comm, pat_comm_state **out);

/* Looks the state up without creating it: NULL if none. */
pat_comm_state *pat_comm_state_find(MPI_Comm comm);

MPI_Comm pat_comm_state_priv(const pat_comm_state *st);

/* Whether a communicator's ranks share cores (src/core/cores.c): shared,
 * the same on every rank; ranks and cpus, the caller's node's (its ranks
 * of comm, the CPUs they may run on).  Collective over comm.  MPI error
 * code. */
typedef struct pat_cores {
  int shared, ranks, cpus;
} pat_cores;
int pat_cores_shared(MPI_Comm comm, pat_cores *out);

/* Whether st's ranks share cores as cfg's PAT_REDUCE_CORES says: own 0,
 * shared 1, auto what pat_cores_shared found (asked at the first such
 * call, collective: every rank asks at the same call, and kept).  MPI
 * error code. */
int pat_comm_state_shares_cores(pat_comm_state *st, const pat_config *cfg,
                                int *shared);

/* Is comm the intracommunicator this thread looked up last, with its state
 * alive?  Then writes its rank and size, with no MPI call (the checks of
 * back-to-back calls); else returns 0 and writes nothing. */
int pat_comm_state_known(MPI_Comm comm, int *rank, int *size);

/* How many states have been freed so far in this process: a state known
 * alive when this count was read is alive while it has not changed. */
unsigned long pat_comm_states_freed(void);

/* Tags a call may use on the private communicator (a dynamic protocol may
 * keep its control and data messages apart). */
#define PAT_TAGS_PER_CALL 2

/* The first tag of the next call; advances the call sequence number. */
int pat_comm_state_next_tag(pat_comm_state *st);

/* A picking row's pick that stands for the communicator's calls numbered
 * next..through by its PAT layer, as long as they repeat the call that
 * set it (count, root, in place, bytes, op and datatype facts, the
 * configuration): dispatch.c runs them without asking the row (see
 * standing_pick).  through < next: none. */
typedef struct pat_standing {
  long next, through;
  pat_reduce_alg picker, row;
  int count, root, in_place, commutative, contiguous;
  double bytes;
  pat_model model;
  const pat_config *cfg;
  unsigned long generation;
} pat_standing;
pat_standing *pat_comm_state_standing(pat_comm_state *st);

void pat_comm_state_set_last(pat_comm_state *st, pat_reduce_alg alg);
int pat_comm_state_last(const pat_comm_state *st, pat_reduce_alg *alg);
unsigned long pat_comm_state_calls(const pat_comm_state *st);

/* The PAT layer state of the communicator, created on first request
 * (collective: every rank asks at the same call).  MPI error code. */
int pat_comm_state_pat(pat_comm_state *st, struct pat_state **out);

int pat_comm_state_has_pat(const pat_comm_state *st);

/* Scratch memory kept by the communicator's state between calls, one
 * block of each kind: the executor's bookkeeping, and its temporaries.
 * glibc returns blocks above its mmap threshold (128 KiB to 32 MiB) to the
 * system at free, so a fresh temporary per call paid mmap, munmap and a
 * page fault per 4 KiB page on every call; and allocating the executor's
 * kilobyte of state per call made glibc consolidate its free lists every
 * time. */
typedef enum {
  PAT_SCRATCH_EXEC = 0,
  PAT_SCRATCH_DATA,
  PAT_SCRATCH_KINDS
} pat_scratch_kind;

/* A block of at least bytes, or NULL when the block of that kind is lent
 * out already or bytes exceeds PAT_REDUCE_SCRATCH_KEEP (the caller then
 * allocates its own).  Give it back with pat_comm_state_scratch_give; it
 * is freed with the communicator. */
void *pat_comm_state_scratch_take(pat_comm_state *st, pat_scratch_kind kind,
                                  size_t bytes);
void pat_comm_state_scratch_give(pat_comm_state *st, pat_scratch_kind kind,
                                 void *block);
/* The size of the block of that kind now (0: none). */
size_t pat_comm_state_scratch_bytes(const pat_comm_state *st,
                                    pat_scratch_kind kind);

/* Algorithm alg's state on this communicator (NULL until set); set once,
 * freed with the communicator by the row's state_free. */
void *pat_comm_state_alg(const pat_comm_state *st, pat_reduce_alg alg);
void pat_comm_state_set_alg(pat_comm_state *st, pat_reduce_alg alg,
                            void *state);

/* The schedule that served the last scheduled call, or NULL. */
const pat_schedule *pat_comm_state_last_schedule(const pat_comm_state *st);
/* Frees the replay of the last call's schedule (its plan, kept for auto's
 * scoring), if it has one. */
void pat_comm_state_drop_replay(pat_comm_state *st);

/* Tracing (include/reduce/pat_trace.h): whether it is on for the call's
 * communicator, and one interval to record. */
int pat_trace_on(const pat_call *call);
void pat_trace_note(const pat_call *call, pat_trace_kind kind, int peer,
                    int count, double t0, double t1);

/* A schedule of alg for params and this rank, built or reused from the
 * state's cache (PAT_REDUCE_SCHEDULE_CACHE entries, least recently used
 * dropped first).  Owned by the state: valid until the state is freed or
 * the next call of this function on st drops the entry.  Returns a
 * pat_reduce_error. */
int pat_comm_state_schedule(pat_comm_state *st, pat_reduce_alg alg,
                            const pat_sched_params *params, int rank,
                            const pat_schedule **out, const pat_deps **deps);

/* A count that changes whenever the schedule pat_comm_state_schedule
 * returned last may have changed. */
unsigned long pat_comm_state_schedule_epoch(const pat_comm_state *st);

/* The schedule (and dependencies) pat_comm_state_schedule returned last,
 * for a call with the same alg, parameters and rank, if the epoch is still
 * epoch: then 1, as if pat_comm_state_schedule had found it; else 0, and
 * nothing written. */
int pat_comm_state_schedule_again(pat_comm_state *st, unsigned long epoch,
                                  const pat_schedule **out,
                                  const pat_deps **deps);

/* How many schedules pat_comm_state_schedule has built for st (not reused
 * from its cache). */
unsigned long pat_comm_state_builds(const pat_comm_state *st);

/* ---- buffers and local combine ---------------------------------------- */

/* A temporary buffer able to hold count elements of a datatype, whatever
 * its lower bound: base points where element 0 starts. */
typedef struct pat_tmpbuf {
  void *raw;            /* the block this buffer owns, or NULL */
  char *base;           /* element 0, or NULL when unused */
  int how;              /* where raw came from (combine.c) */
  pat_comm_state *pool; /* the state whose scratch raw is, or NULL */
} pat_tmpbuf;

int pat_tmpbuf_alloc(pat_tmpbuf *buf, int count, MPI_Datatype datatype);

/* n (1..PAT_SLOT_MAX) temporaries of counts[k] elements of datatype (none
 * where counts[k] < 0; one element's room where it is 0), carved from one
 * block: the communicator's PAT_SCRATCH_DATA scratch when st is not NULL
 * and it can serve, else a fresh allocation.  bufs[0] owns the block:
 * pat_tmpbuf_free on it frees them all (on the others it does nothing).
 * MPI error code. */
int pat_tmpbufs_alloc(pat_comm_state *st, int n, const int *counts,
                      const pat_type_info *type, pat_tmpbuf *bufs);
void pat_tmpbuf_free(pat_tmpbuf *buf);

/* base + bytes, computed in integers (base may be NULL: MPI_BOTTOM). */
char *pat_shift(const void *base, MPI_Aint bytes);

/* Address of element i of a buffer. */
char *pat_elem(char *base, int i, MPI_Aint extent);
const char *pat_celem(const char *base, int i, MPI_Aint extent);

/* Whether count elements of datatype occupy one gap-free byte range. */
int pat_type_is_contiguous(MPI_Datatype datatype, int *contiguous);

/* dst = src, count elements (any datatype).  MPI error code. */
int pat_local_copy(const void *src, void *dst, int count,
                   MPI_Datatype datatype);
/* The same with the datatype's info already read. */
int pat_local_copy_info(const void *src, void *dst, int count,
                        MPI_Datatype datatype, const pat_type_info *type);

/* inout = in (op) inout, through PMPI_Reduce_local.  MPI error code. */
int pat_local_combine(const void *in, void *inout, int count,
                      MPI_Datatype datatype, MPI_Op op);

/* ---- executor ----------------------------------------------------------- */

/* One rank's run of a schedule as a dataflow (src/core/exec.c).  The call,
 * and its buffers, must stay valid until the run is done. */
typedef struct pat_exec pat_exec;

/* Prepares the run of call->rank's program of sched and starts what can
 * start.  deps: the program's dependencies if the caller keeps them (the
 * schedule cache does), else NULL and they are computed.  Writes NULL for
 * an empty program.  MPI error code. */
int pat_exec_start(const pat_schedule *sched, const pat_call *call,
                   const pat_deps *deps, pat_exec **out);

/* Starts and completes what it can without blocking; *done = 1 once the
 * whole program has finished (at once for NULL).  MPI error code. */
int pat_exec_progress(pat_exec *exec, int *done);

/* Blocks until the program has finished, then frees exec (accepts NULL).
 * MPI error code. */
int pat_exec_wait(pat_exec *exec);

/* Frees an unfinished run without waiting (after an error). */
void pat_exec_free(pat_exec *exec);

/* start + wait.  MPI error code. */
int pat_exec_run(const pat_schedule *sched, const pat_call *call,
                 const pat_deps *deps);

/* A prepared run (exec.c): the operations of a program that runs in
 * order, with their buffers resolved once, for the repeats of one call
 * (dispatch.c); it reads the clock only for the PAT layer's samples.
 * nops == 0: none. */
#define PAT_PREP_MAX_OPS 40
typedef struct pat_exec_prep {
  int nops;
  void *block;  /* the temporaries' scratch block when prepared, or NULL */
  size_t bytes; /* its size then */
  struct pat_prep_op {
    pat_sched_kind kind;
    int peer, count;
    const char *from; /* SEND, COMBINE, COPY */
    char *to;         /* RECV, COMBINE, COPY */
  } op[PAT_PREP_MAX_OPS];
} pat_exec_prep;

/* Prepares call's run of sched (its rank's program, deps as
 * pat_exec_run's) into prep, if the program runs in order, with no trace,
 * in at most PAT_PREP_MAX_OPS operations, with its temporaries in the
 * communicator's scratch; else prep->nops = 0. */
void pat_exec_prepare(const pat_schedule *sched, const pat_call *call,
                      const pat_deps *deps, pat_exec_prep *prep);

/* Runs a prepared call: MPI error code, or PAT_EXEC_NOT_PREPARED (nothing
 * done) when the preparation no longer holds (a trace was started; the
 * scratch block changed or is lent).  A call whose measurements the PAT
 * layer will exchange (pat_state_sampling) has its receives and combines
 * timed. */
#define PAT_EXEC_NOT_PREPARED (-1)
int pat_exec_run_prepared(const pat_exec_prep *prep, const pat_call *call);

#endif /* PAT_INTERNAL_H */
