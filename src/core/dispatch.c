/*
 * The dispatcher behind every entry point: checks the arguments, picks the
 * algorithm (environment or explicit), falls back when the algorithm
 * cannot serve the call, and runs it over the communicator's private
 * duplicate.  Intercommunicators go to PMPI_Reduce untouched (said once
 * with PAT_REDUCE_VERBOSE): no algorithm here spans two groups.  Errors are
 * raised through the user's communicator's error handler, after a message that
 * names the bad argument and its value.  Calls back to back on one
 * communicator with one predefined datatype and op make no PMPI query:
 * what the last call established is remembered (comm.c, combine.c); the
 * queries were a fifth of an 8-byte binomial call's instructions.  A call
 * that repeats the thread's last one argument for argument (OSU's and
 * IMB's loops, a solver's residual norm) skips the checks and the choice
 * altogether ("repeats" below).
 */
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "pat_internal.h"
#include "pat/pat_layer.h"

/* Raises code on comm after printing msg (once per distinct message). */
static int arg_error(MPI_Comm comm, int code, const char *msg) {
  pat_warn_once("%s", msg);
  PMPI_Comm_call_errhandler(comm, code);
  return code;
}

/* What the datatype and op queries found: MPI error codes. */
typedef struct type_op_rc {
  int type, op, probe; /* the datatype, the op, the op on the datatype */
} type_op_rc;

static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;

/* Gives comm back the handler h that PMPI_Comm_get_errhandler returned.
 * SimGrid SMPI returns MPI_ERRHANDLER_NULL for a communicator's default
 * handler and then refuses to set or free it (a warning per call and
 * rank, and MPI_ERRORS_RETURN left in place): that default is
 * MPI_ERRORS_ARE_FATAL. */
static void handler_restore(MPI_Comm comm, MPI_Errhandler h) {
  if (h == MPI_ERRHANDLER_NULL) {
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
    return;
  }
  PMPI_Comm_set_errhandler(comm, h);
  PMPI_Errhandler_free(&h);
}

/* Reads c's datatype facts and op commutativity, and whether the op is
 * defined on the datatype (MPI checks that even for zero elements).
 * These calls have no communicator, so their errors go to MPI_COMM_WORLD's
 * handler (MPI_COMM_SELF's in MPI 4), fatal by default: they run with both
 * returning, and the checks raise what they found on the caller's
 * communicator.  Facts established before are not read again.  (Another
 * thread's error on MPI_COMM_WORLD in that moment is returned, not
 * fatal.) */
static type_op_rc type_op_facts(pat_call *c) {
  type_op_rc rc = {MPI_SUCCESS, MPI_SUCCESS, MPI_SUCCESS};
  MPI_Errhandler world, self;
  char dummy[1] = {0};
  if (pat_type_op_known(c->datatype, c->op, &c->type, &c->commutative))
    return rc;
  /* one thread at a time swaps the handlers: two overlapping swaps would
   * leave the returning ones in place */
  PAT_LOCK(&handler_lock);
  PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
  PMPI_Comm_get_errhandler(MPI_COMM_SELF, &self);
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  rc.type = c->datatype == MPI_DATATYPE_NULL
                ? MPI_ERR_TYPE
                : pat_type_info_get(c->datatype, &c->type);
  rc.op = c->op == MPI_OP_NULL ? MPI_ERR_OP
                               : PMPI_Op_commutative(c->op, &c->commutative);
  if (rc.type == MPI_SUCCESS && rc.op == MPI_SUCCESS)
    rc.probe = PMPI_Reduce_local(dummy, dummy + 0, 0, c->datatype, c->op);
  handler_restore(MPI_COMM_WORLD, world);
  handler_restore(MPI_COMM_SELF, self);
  PAT_UNLOCK(&handler_lock);
  if (rc.type == MPI_SUCCESS && rc.op == MPI_SUCCESS && rc.probe == MPI_SUCCESS)
    pat_type_op_remember(c->datatype, c->op, &c->type, c->commutative);
  return rc;
}

/* Checks a call's arguments and fills in what the algorithms need.  An
 * intercommunicator is left to the caller: *inter = 1 and MPI_SUCCESS,
 * nothing else checked (MPI_ROOT and MPI_PROC_NULL are its roots). */
static int check_args(pat_call *c, pat_reduce_alg alg, int *inter) {
  char msg[600];
  int rc = MPI_SUCCESS, known_comm;
  type_op_rc found;

  *inter = 0;
  if (c->comm == MPI_COMM_NULL) {
    rc = arg_error(MPI_COMM_WORLD, MPI_ERR_COMM, "comm is MPI_COMM_NULL");
    goto out;
  }
  /* what the last call established needs no MPI call (back to back) */
  known_comm = pat_comm_state_known(c->comm, &c->rank, &c->nranks);
  if (!known_comm && PMPI_Comm_test_inter(c->comm, inter) != MPI_SUCCESS) {
    rc = arg_error(c->comm, MPI_ERR_COMM, "comm is not a valid communicator");
    goto out;
  }
  if (*inter)
    goto out;
  if ((int)alg < 0 || alg >= PAT_REDUCE_ALG_COUNT) {
    char names[256];
    pat_alg_names(names, sizeof names);
    snprintf(msg, sizeof msg,
             "algorithm id %d is not an algorithm; valid: "
             "0..%d (%s)",
             (int)alg, PAT_REDUCE_ALG_COUNT - 1, names);
    rc = arg_error(c->comm, MPI_ERR_ARG, msg);
    goto out;
  }
  if (!known_comm) {
    PMPI_Comm_rank(c->comm, &c->rank);
    PMPI_Comm_size(c->comm, &c->nranks);
  }
  if (c->count < 0) {
    snprintf(msg, sizeof msg, "count=%d is negative; valid: count >= 0",
             c->count);
    rc = arg_error(c->comm, MPI_ERR_COUNT, msg);
    goto out;
  }
  found = type_op_facts(c);
  if (found.type != MPI_SUCCESS) {
    rc = arg_error(c->comm, MPI_ERR_TYPE,
                   "datatype is MPI_DATATYPE_NULL or not a valid datatype");
    goto out;
  }
  if (found.op != MPI_SUCCESS) {
    rc = arg_error(c->comm, MPI_ERR_OP, "op is MPI_OP_NULL or not a valid op");
    goto out;
  }
  if (c->root < 0 || c->root >= c->nranks) {
    snprintf(msg, sizeof msg, "root=%d is out of range; valid: 0..%d", c->root,
             c->nranks - 1);
    rc = arg_error(c->comm, MPI_ERR_ROOT, msg);
    goto out;
  }
  c->in_place = c->sendbuf == MPI_IN_PLACE;
  if (c->in_place && c->rank != c->root) {
    snprintf(msg, sizeof msg,
             "sendbuf=MPI_IN_PLACE on rank %d, which is "
             "not the root (%d); only the root may pass it",
             c->rank, c->root);
    rc = arg_error(c->comm, MPI_ERR_BUFFER, msg);
    goto out;
  }
  /* NULL is MPI_BOTTOM in Open MPI: an error only for a datatype that
   * addresses from the buffer (data from true lower bound 0), as MPI's
   * own check has it */
  if (c->count > 0 && c->type.size > 0 && c->type.true_lb == 0 &&
      ((!c->in_place && c->sendbuf == NULL) ||
       (c->rank == c->root && c->recvbuf == NULL))) {
    snprintf(msg, sizeof msg,
             "%s is NULL on rank %d with count=%d and a datatype whose "
             "data starts at the buffer; MPI_BOTTOM needs absolute addresses",
             c->rank == c->root && c->recvbuf == NULL ? "recvbuf" : "sendbuf",
             c->rank, c->count);
    rc = arg_error(c->comm, MPI_ERR_BUFFER, msg);
    goto out;
  }
  if (c->count > 0 && c->rank == c->root && c->sendbuf == c->recvbuf) {
    rc = arg_error(c->comm, MPI_ERR_BUFFER,
                   "sendbuf and recvbuf are the same buffer at the root; "
                   "pass MPI_IN_PLACE as sendbuf instead");
    goto out;
  }
  if (found.probe != MPI_SUCCESS) { /* MPI's class: OP, or TYPE (uncommitted) */
    char why[MPI_MAX_ERROR_STRING];
    int len = 0, cls = MPI_ERR_OP;
    PMPI_Error_class(found.probe, &cls);
    PMPI_Error_string(found.probe, why, &len);
    snprintf(msg, sizeof msg,
             "op is not defined for datatype, or datatype cannot be "
             "used (MPI_Reduce_local: %s)",
             why);
    rc = arg_error(c->comm, cls, msg);
    goto out;
  }
  if (c->in_place)
    c->sendbuf = c->recvbuf;
  /* by type size, not extent: the same on every rank for matching type
   * signatures, so the round cost derived from it is too */
  c->bytes = (double)c->count * (double)c->type.size;
out:
  return rc;
}

static int run_alg(pat_call *c, pat_reduce_alg alg) {
  const pat_alg_row *row = pat_alg_table[alg];
  const pat_schedule *sched = NULL;
  const pat_deps *deps = NULL;
  pat_sched_params params;
  int rc = MPI_SUCCESS, err;
  if (row->run != NULL) {
    rc = row->run(c);
    goto out;
  }
  params =
      (pat_sched_params){.nranks = c->nranks,
                         .root = c->root,
                         .count = c->count,
                         .commutative = c->commutative,
                         .in_place = c->in_place,
                         .model = c->model,
                         .elem_size = c->count > 0 ? c->bytes / c->count : 0,
                         .arrivals = c->arrivals};
  err = pat_comm_state_schedule(c->state, alg, &params, c->rank, &sched, &deps);
  /* without a PAT layer no real arrivals come to score the plan against
   * (auto's use of a replay): not kept (at P = 16384 a 64 KiB plan's is
   * 1.5 MB per rank) */
  if (err == PAT_SUCCESS && c->pat == NULL)
    pat_comm_state_drop_replay(c->state);
  if (err != PAT_SUCCESS) {
    /* a bad tunable for this call: the builder said which */
    rc = err == PAT_ERR_NO_MEMORY ? MPI_ERR_NO_MEM
         : err == PAT_ERR_BAD_ENV ? MPI_ERR_ARG
                                  : MPI_ERR_INTERN;
    goto out;
  }
  rc = pat_exec_run(sched, c, deps);
out:
  return rc;
}

/* Arrival times the caller knows (pat_reduce_with_arrivals). */
typedef struct oracle {
  const double *arrivals;
  double round_cost; /* <= 0: the library's cost model */
} oracle;

/* The PAT layer's part of every call: stamp the arrival and exchange.
 * What the arrival observed goes to every row that learns from it and
 * keeps state here (pat_alg_row.observed), whichever row serves the call. */
static int pat_arrive(pat_call *c) {
  double stamp;
  long before, after;
  int rc = pat_comm_state_pat(c->state, &c->pat);
  if (rc != MPI_SUCCESS)
    return rc;
  pat_state_observed_nth(c->pat, 0, &before);
  rc = pat_state_arrive(c->pat, c->bytes, &stamp);
  pat_state_observed_nth(c->pat, 0, &after);
  if (rc != MPI_SUCCESS || after == before)
    return rc;
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    if (pat_alg_table[a]->observed != NULL &&
        pat_comm_state_alg(c->state, (pat_reduce_alg)a) != NULL)
      pat_alg_table[a]->observed(c);
  return rc;
}

/* Told arrival times and their model: the caller's round cost as a
 * constant per-message cost, else the configured model, else the PAT
 * layer's.  Returns 0 when there is none (the same on every rank: the
 * model comes from the configuration or exchanged data). */
static int told(pat_call *c, const oracle *orc) {
  int have = 1;
  c->arrivals = orc->arrivals;
  if (orc->round_cost > 0)
    c->model = (pat_model){orc->round_cost, 0, 0};
  else if (!pat_configured_model(pat_config_get(), &c->model))
    have = c->pat != NULL && pat_state_model(c->pat, &c->model);
  return have;
}

/* A call told the arrivals and a model (its own round cost or the
 * configured one) needs no PAT layer: it neither predicts nor measures.
 * Without one, the layer's exchanges measure it.  The same on every rank
 * (the configuration agrees). */
static int told_enough(const oracle *orc) {
  pat_model m;
  return orc != NULL &&
         (orc->round_cost > 0 || pat_configured_model(pat_config_get(), &m));
}

/* PAT_REDUCE_VERBOSE >= 1: the calls each row served in this process, and
 * the fallbacks among them, for the summary at MPI_Finalize. */
static atomic_ulong served[PAT_REDUCE_ALG_COUNT], fallbacks;

/* Counts call c, asked for alg and served by chosen (picked by the row
 * picker, or PAT_REDUCE_ALG_COUNT); at a communicator's first call its
 * rank 0 says which row served it and why (one line per communicator). */
static void note_served(const pat_call *c, pat_reduce_alg alg,
                        pat_reduce_alg chosen, pat_reduce_alg picker) {
  int fell = chosen != alg && picker != alg;
  atomic_fetch_add(&served[chosen], 1);
  if (fell)
    atomic_fetch_add(&fallbacks, 1);
  if (c->rank == 0 && pat_comm_state_calls(c->state) == 1) {
    fprintf(stderr,
            "patreduce: a communicator of %d ranks, first call (count %d, "
            "root %d): %s, %s%s\n",
            c->nranks, c->count, c->root, pat_alg_table[chosen]->name,
            fell                             ? "falling back from "
            : picker != PAT_REDUCE_ALG_COUNT ? "chosen by "
                                             : "as asked",
            fell                             ? pat_alg_table[alg]->name
            : picker != PAT_REDUCE_ALG_COUNT ? pat_alg_table[picker]->name
                                             : "");
    fflush(stderr);
  }
}

void pat_dispatch_summary(int rank) {
  char line[1024];
  unsigned long total = 0;
  int len = 0;
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
    unsigned long n = atomic_load(&served[a]);
    total += n;
    if (n > 0 && len < (int)sizeof line)
      len += snprintf(line + len, sizeof line - (size_t)len, "%s%s %lu",
                      len > 0 ? ", " : "", pat_alg_table[a]->name, n);
  }
  if (total > 0)
    fprintf(stderr,
            "patreduce: rank %d at MPI_Finalize: %lu calls (%s), %lu "
            "fallbacks\n",
            rank, total, line, atomic_load(&fallbacks));
}

/* A bad setting fails the call if the call would read it (the scopes of
 * the row asked for and of the one serving it, and the PAT layer's once
 * the communicator has one); any other is said once by rank 0 of the
 * communicator and ignored. */
static int settings_usable(const pat_call *c, pat_reduce_alg alg,
                           pat_reduce_alg chosen) {
  const pat_config *cfg = pat_config_get();
  unsigned long long used = pat_alg_scopes(alg) | pat_alg_scopes(chosen);
  const char *why;
  int rc = MPI_SUCCESS;
  if (pat_comm_state_has_pat(c->state))
    used |= PAT_SCOPE_BIT(PAT_SCOPE_ARRIVALS);
  why = pat_config_bad(cfg, used);
  if (why != NULL) {
    rc = arg_error(c->comm, MPI_ERR_ARG, why);
    goto out;
  }
  for (int s = 0; s < PAT_SCOPE_COUNT && c->rank == 0; s++)
    if (cfg->bad & ~used & PAT_SCOPE_BIT(s))
      pat_warn_once("%s; %s does not use it, so it is ignored "
                    "(patreduce_info --check lists every setting)",
                    cfg->scope_why[s], pat_alg_table[chosen]->name);
out:
  return rc;
}

/* ---- repeats -------------------------------------------------------------
 * A call that repeats the last call served, argument for argument, is
 * served from what that call established: the checks' facts, the
 * communicator's state, the row, the schedule.  A repeat at another root
 * (IMB moves it every call) is checked for what depends on the root and
 * looks its schedule up.  Valid while no
 * communicator state has been freed since (a handle reused for a new
 * communicator never finds the old state), the datatype and op are
 * predefined (a freed user handle may come back for another type or op),
 * the configuration is the same one, not reloaded since, and the state
 * has a PAT layer if and only if it had one then.  A call with a PAT
 * layer (auto, clairvoyant, or any call on a communicator that has one)
 * is served again from its arrival on (serve): the stamps, the
 * prediction, auto's pick are made as in any call (or skipped, as in any
 * call, where the pick stands: standing_pick).  The schedule is run
 * again without a lookup while the state's schedule cache has not changed
 * (its epoch), the row is the same and plans without arrival times, and
 * the model is the same: exactly the schedule a lookup would find.
 * Remembered only for calls with no told arrival times, no verbose
 * accounting, no bad setting, count > 0.  Every rank takes the same row
 * and schedule either way, so a repeat on one rank and not on another
 * cannot diverge (test_repeat: odd ranks that never repeat).
 *
 * Below MPI_THREAD_MULTIPLE one thread calls MPI at a time, so the
 * memory is the process's (no thread-local access: in a shared library
 * each costs a call to __tls_get_addr, which perf found to be 3% of an
 * 8-byte binomial call at P = 8); under MPI_THREAD_MULTIPLE each thread
 * has its own.  Not in the SMPI build (its ranks share the process).
 * Once repeated, a program that runs in order runs prepared (exec.c).
 * Measured, Open MPI, P = 8 on 2 cores, 8 B back to back, fixed root,
 * against Open MPI's own binomial: binomial 1.65-1.77x before repeats,
 * 1.26-1.31x with them, 1.13-1.20x without thread-local memory,
 * 1.03-1.12x with link-time optimization, 0.86-0.89x with prepared runs;
 * with the root moving every call 1.05-1.08x before repeats at another
 * root, 1.01-1.06x after.
 */
typedef struct repeat {
  int valid;
  const void *sendbuf; /* the arguments as given */
  void *recvbuf;
  int count;
  MPI_Datatype datatype;
  MPI_Op op;
  int root;
  MPI_Comm comm;
  pat_reduce_alg alg;
  const pat_config *cfg; /* and its generation */
  unsigned long generation;
  unsigned long freed; /* pat_comm_states_freed() when remembered */
  /* as the checks left it; its tag is the last call's; its pat set: the
   * call had a PAT layer (a repeat arrives and departs) */
  pat_call call;
  pat_call_props props;
  pat_reduce_alg selected; /* the row pat_alg_select gave for alg */
  pat_reduce_alg chosen;   /* the row that served the last run */
  /* it ran a schedule, the state's cache[0] while its epoch is this, for
   * a model that was this */
  int scheduled;
  unsigned long epoch;
  pat_model model;
  pat_exec_prep prep;     /* that schedule's run prepared, once repeated */
  unsigned long served;   /* repeats served from this memory */
  unsigned long prepared; /* of them, prepared runs */
} repeat;

#ifndef PATREDUCE_SMPI
static repeat process_memo;
static _Thread_local repeat thread_memo;
/* MPI's thread level: -1 until read (it does not change after MPI_Init) */
static atomic_int thread_level = -1;

/* The memory of the last call: the process's or, under
 * MPI_THREAD_MULTIPLE, this thread's; NULL outside MPI_Init ..
 * MPI_Finalize (the checks report such a call). */
static repeat *memo(void) {
  int level = atomic_load_explicit(&thread_level, memory_order_relaxed);
  if (level < 0) {
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    if (!init || fin || PMPI_Query_thread(&level) != MPI_SUCCESS)
      return NULL;
    atomic_store_explicit(&thread_level, level, memory_order_relaxed);
  }
  return level == MPI_THREAD_MULTIPLE ? &thread_memo : &process_memo;
}
#endif

unsigned long pat_dispatch_repeats(int prepared) {
#ifndef PATREDUCE_SMPI
  const repeat *r = memo();
  return r == NULL ? 0 : prepared ? r->prepared : r->served;
#else
  (void)prepared;
  return 0;
#endif
}

#ifndef PATREDUCE_SMPI
/* The remembered call r moved to another root (IMB's loop), if the checks
 * that depend on the root pass: else 0, and the full checks say what is
 * wrong.  Its schedule is looked up again. */
static int reroot(repeat *r, int root) {
  pat_call *c = &r->call;
  int at_root = c->rank == root, in_place = r->sendbuf == MPI_IN_PLACE;
  if (root < 0 || root >= c->nranks || (in_place && !at_root) ||
      (at_root && (r->recvbuf == NULL || r->sendbuf == r->recvbuf)))
    return 0;
  r->root = c->root = root;
  c->in_place = in_place;
  c->sendbuf = in_place ? r->recvbuf : r->sendbuf;
  r->scheduled = 0;
  r->prep.nops = 0;
  return 1;
}
#endif

/* The last remembered call, if this call repeats it, perhaps at another
 * root; else NULL. */
static repeat *repeated(pat_reduce_alg alg, const void *sendbuf, void *recvbuf,
                        int count, MPI_Datatype datatype, MPI_Op op, int root,
                        MPI_Comm comm) {
#ifndef PATREDUCE_SMPI
  repeat *r = memo();
  if (r == NULL || !r->valid || r->comm != comm || r->alg != alg ||
      r->sendbuf != sendbuf || r->recvbuf != recvbuf || r->count != count ||
      r->datatype != datatype || r->op != op || r->cfg != pat_config_get() ||
      r->generation != pat_config_generation() ||
      r->freed != pat_comm_states_freed() ||
      pat_comm_state_has_pat(r->call.state) != (r->call.pat != NULL) ||
      (r->root != root && !reroot(r, root)))
    r = NULL;
  return r;
#else
  (void)alg, (void)sendbuf, (void)recvbuf, (void)count, (void)datatype;
  (void)op, (void)root, (void)comm;
  return NULL;
#endif
}

/* Records what call c of r ran with row chosen: its schedule (the
 * state's cache[0], at its epoch; none for a row that plans with arrival
 * times: its schedule changes with them) and the model; the prepared run
 * is made again. */
static void ran(repeat *r, const pat_call *c, pat_reduce_alg chosen) {
  r->chosen = chosen;
  r->scheduled = !pat_alg_table[chosen]->uses_arrivals &&
                 pat_comm_state_last_schedule(c->state) != NULL;
  r->epoch = pat_comm_state_schedule_epoch(c->state);
  r->model = c->model;
  r->prep.nops = 0;
}

/* Remembers call c (checked, served; its state alive: in use) asked for
 * alg (selected: the row pat_alg_select gave) and served by chosen, if a
 * repeat of it may skip to the serving. */
static void remember_call(const pat_call *c, const pat_call_props *props,
                          pat_reduce_alg alg, pat_reduce_alg selected,
                          pat_reduce_alg chosen, const void *sendbuf,
                          const pat_config *cfg) {
#ifndef PATREDUCE_SMPI
  repeat *r = memo();
  pat_type_info info;
  int commutative;
  if (r == NULL)
    return;
  r->valid = c->count > 0 && cfg->verbose == 0 && cfg->bad == 0 &&
             pat_type_op_known(c->datatype, c->op, &info, &commutative);
  if (!r->valid)
    return;
  /* field by field: the prepared run's table is not zeroed on every
   * call that is not a repeat */
  r->sendbuf = sendbuf;
  r->recvbuf = c->recvbuf;
  r->count = c->count;
  r->datatype = c->datatype;
  r->op = c->op;
  r->root = c->root;
  r->comm = c->comm;
  r->alg = alg;
  r->cfg = cfg;
  r->generation = pat_config_generation();
  r->freed = pat_comm_states_freed();
  r->call = *c;
  r->props = *props;
  r->selected = selected;
  ran(r, c, chosen);
#else
  (void)c, (void)props, (void)alg, (void)selected, (void)chosen;
  (void)sendbuf, (void)cfg;
#endif
}

/* Runs call c, a repeat of r, with row chosen: r's schedule again if
 * it is the one a lookup would find (the same row, not planning with
 * arrivals, the same model, the cache unchanged since), prepared once
 * repeated; else as any call. */
static int run_remembered(repeat *r, pat_call *c, pat_reduce_alg chosen) {
  const pat_schedule *sched;
  const pat_deps *deps;
  int rc;
  if (r->scheduled && chosen == r->chosen &&
      memcmp(&c->model, &r->model, sizeof c->model) == 0 &&
      pat_comm_state_schedule_again(c->state, r->epoch, &sched, &deps)) {
    rc = pat_exec_run_prepared(&r->prep, c);
    r->prepared += rc != PAT_EXEC_NOT_PREPARED;
    if (rc == PAT_EXEC_NOT_PREPARED) {
      rc = pat_exec_run(sched, c, deps);
      if (rc == MPI_SUCCESS)
        pat_exec_prepare(sched, c, deps, &r->prep);
    }
  } else {
    rc = run_alg(c, chosen);
    ran(r, c, chosen);
  }
  return rc;
}

/* A quiet call of a row that picks (auto): on a communicator with a PAT
 * layer that has nothing to do at the call (pat_state_quiet), the row's
 * last pick, if it stands (pat_alg_row.standing); c->pat is set.  Such a
 * call runs that row without arriving, predicting or deciding.  Once the
 * row said its pick stands, it stands for the calls that repeat this
 * one's facts until the PAT layer has work again
 * (pat_state_quiet_through): they are not asked again (pat_standing).
 * The work skipped is a few hundred instructions, but on a node with
 * more ranks than cores the cache lines it touches are cold in every
 * call: 8 ranks on 2 cores, 8 B, balanced, the root's median time of
 * auto's calls between exchanges was 1.05x binomial's when auto decided
 * every call, 1.03x when it was asked whether its pick stands, the same
 * as binomial's with the pick kept (a loop of calls between barriers, not
 * in the tree; tests/mpi/test_patlayer.c quiet checks that no call the
 * PAT layer needs is skipped).  A row that neither picks nor plans with
 * arrival times stands for itself: 2 ranks, 4 B calls pinned to binomial
 * by a rules file between auto's 64 KiB ones, 0.182 -> 0.166 us a call
 * (binomial without the PAT layer: 0.125). */
static int standing_pick(pat_call *c, const pat_call_props *props,
                         pat_reduce_alg picker, pat_reduce_alg *chosen) {
  const pat_alg_row *row = pat_alg_table[picker];
  pat_standing *sd = pat_comm_state_standing(c->state);
  const pat_config *cfg = pat_config_get();
  long call, through = LONG_MAX, quiet;
  /* a row that neither picks nor plans with arrival times stands for
   * itself (a rules file's row pinned beside auto's: 4 B calls of
   * binomial between auto's 64 KiB ones arrived and departed every call) */
  int itself =
      row->standing == NULL && row->choose == NULL && !row->uses_arrivals;
  if ((row->standing == NULL && !itself) || c->count <= 0 ||
      !pat_comm_state_has_pat(c->state) ||
      pat_comm_state_pat(c->state, &c->pat) != MPI_SUCCESS)
    return 0;
  call = pat_state_calls(c->pat);
  /* the calls the last pick was found to stand for: not asked again */
  if (sd->next == call && call <= sd->through && sd->picker == picker &&
      sd->count == c->count && sd->root == c->root &&
      sd->in_place == c->in_place && sd->bytes == c->bytes &&
      sd->commutative == c->commutative &&
      sd->contiguous == c->type.contiguous && sd->cfg == cfg &&
      sd->generation == pat_config_generation()) {
    *chosen = sd->row;
    c->model = sd->model;
    sd->next++;
    return 1;
  }
  sd->through = -1;
  if (!pat_state_quiet(c->pat, c->bytes))
    return 0;
  if (itself)
    *chosen = picker;
  else if (!row->standing(c, props, chosen, &through))
    return 0;
  /* it stands until the PAT layer has work again (nothing is heard
   * before), or the row says: the calls after this one up to then are
   * served from here */
  quiet = pat_state_quiet_through(c->pat, c->bytes);
  *sd = (pat_standing){.next = call + 1,
                       .through = through < quiet ? through : quiet,
                       .picker = picker,
                       .row = *chosen,
                       .count = c->count,
                       .root = c->root,
                       .in_place = c->in_place,
                       .commutative = c->commutative,
                       .contiguous = c->type.contiguous,
                       .bytes = c->bytes,
                       .model = c->model,
                       .cfg = cfg,
                       .generation = pat_config_generation()};
  return 1;
}

/* A call once checked, its state found, its tag taken: the PAT layer's
 * arrival (for a row that plans with arrival times, or on a communicator
 * that has the layer), the prediction, the pick of a row that picks per
 * call (auto), the run (through r, the memory of the call it repeats, if
 * any), the departure.  selected: the row pat_alg_select gave for alg.
 * Writes the row that served the call to *served; returns an MPI error
 * code, not raised yet. */
static int serve(pat_call *c, const pat_call_props *props, pat_reduce_alg alg,
                 pat_reduce_alg selected, const oracle *orc, repeat *r,
                 pat_reduce_alg *served) {
  const pat_config *cfg = pat_config_get();
  pat_reduce_alg chosen = selected, picker = PAT_REDUCE_ALG_COUNT;
  int rc = MPI_SUCCESS, have_model = 1;
  *served = selected;
  if (orc == NULL && cfg->verbose == 0 &&
      standing_pick(c, props, selected, &chosen)) {
    pat_comm_state_set_last(c->state, chosen);
    *served = chosen;
    rc = r != NULL ? run_remembered(r, c, chosen) : run_alg(c, chosen);
    pat_state_skip(c->pat); /* counted, as pat_state_depart would */
    return rc;
  }
  /* Once an algorithm has used arrival times on this communicator, every
   * call stamps and exchanges (every rank takes the same path); a call
   * told enough starts no PAT layer (at P = 16384 its state and exchange
   * would be 2.5 MB per rank), nor one whose row is left out because the
   * ranks share cores (the same on every rank, where a datatype's layout
   * need not be): binomial serves it, and an exchange no row paces cost
   * 1.1-1.5x binomial's time per call (8 ranks on 2 cores, 8 B-4 KiB). */
  if ((pat_alg_table[alg]->uses_arrivals && !told_enough(orc) &&
       !(pat_alg_unmet(pat_alg_table[alg], props) & PAT_NEEDS_OWN_CORES)) ||
      pat_comm_state_has_pat(c->state)) {
    rc = pat_arrive(c);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  if (orc != NULL)
    have_model = told(c, orc);
  if (!have_model && pat_alg_table[alg]->uses_arrivals) {
    /* the same on every rank: the cost state comes from exchanged data */
    pat_warn_once("round_cost=0 asks for the measured round cost, "
                  "but none is measured or configured yet; pass "
                  "one, set PAT_REDUCE_ROUND_COST or "
                  "PAT_REDUCE_MODEL, or make clairvoyant calls "
                  "first");
    rc = MPI_ERR_ARG;
    goto depart;
  }
  if (c->count > 0) {
    /* predict only for an algorithm that uses arrival times */
    if (orc == NULL && pat_alg_table[chosen]->uses_arrivals)
      c->arrivals = pat_state_predict(c->pat, c->bytes, &c->model);
    /* a row that picks another per call (auto) */
    if (pat_alg_table[chosen]->choose != NULL) {
      picker = chosen;
      rc = pat_alg_table[picker]->choose(c, props, &chosen);
      if (rc != MPI_SUCCESS)
        goto depart;
    }
    /* the exchange's pace is the picker's (auto: pat_state_pace); a row
     * asked for by name that plans with arrival times (clairvoyant) puts
     * the automatic one back for the calls of its size after it */
    if (picker == PAT_REDUCE_ALG_COUNT && c->pat != NULL &&
        pat_alg_table[chosen]->uses_arrivals)
      pat_state_pace(c->pat, c->bytes, 1, -1);
    /* a predicted pattern served the pick only: a row that does not plan
     * with arrival times is run (and its schedule cached) for none */
    if (orc == NULL && !pat_alg_table[chosen]->uses_arrivals)
      c->arrivals = NULL;
  }
  if (chosen != alg && picker != alg && cfg->verbose >= 1) {
    unsigned unmet = pat_alg_unmet(pat_alg_table[alg], props);
    pat_warn_once("%s cannot serve this call (needs%s%s%s%s); using %s",
                  pat_alg_table[alg]->name,
                  unmet & PAT_NEEDS_COMMUTATIVE ? " a commutative op" : "",
                  unmet & PAT_NEEDS_CONTIGUOUS ? " a contiguous datatype" : "",
                  unmet & PAT_WHY_COUNT ? " a larger count" : "",
                  unmet & PAT_NEEDS_OWN_CORES ? " ranks with cores of their own"
                                              : "",
                  pat_alg_table[chosen]->name);
  }
  if (cfg->verbose >= 1)
    note_served(c, alg, chosen, picker);
  if (cfg->verbose >= 2)
    fprintf(stderr, "patreduce: rank %d call %lu count %d root %d: %s%s%s\n",
            c->rank, pat_comm_state_calls(c->state), c->count, c->root,
            picker != PAT_REDUCE_ALG_COUNT ? pat_alg_table[picker]->name : "",
            picker != PAT_REDUCE_ALG_COUNT ? " chose " : "",
            pat_alg_table[chosen]->name);
  pat_comm_state_set_last(c->state, chosen);
  *served = chosen;
  if (c->count > 0)
    rc = r != NULL ? run_remembered(r, c, chosen) : run_alg(c, chosen);
depart:
  if (c->pat != NULL) {
    int prc = pat_state_depart(c->pat, c->bytes);
    rc = rc != MPI_SUCCESS ? rc : prc;
  }
  return rc;
}

/* Serves a repeat of r: as the call it repeats, from its serving on (a
 * call with a PAT layer: its arrival, prediction and pick again, unless
 * the pick stands: standing_pick); its
 * schedule again unless another call has used the schedule cache since
 * (run_remembered). */
static int run_repeat(repeat *r) {
  pat_call *c = &r->call;
  pat_reduce_alg served;
  int rc;
  r->served++;
  c->tag = pat_comm_state_next_tag(c->state);
  if (c->pat != NULL) {
    /* as the checks leave a call: no model or arrivals yet */
    c->arrivals = NULL;
    c->model = (pat_model){0, 0, 0};
    rc = serve(c, &r->props, r->alg, r->selected, NULL, r, &served);
  } else {
    pat_comm_state_set_last(c->state, r->chosen);
    rc = run_remembered(r, c, r->chosen);
  }
  if (rc != MPI_SUCCESS)
    PMPI_Comm_call_errhandler(c->comm, rc);
  return rc;
}

static int dispatch(pat_reduce_alg alg, const void *sendbuf, void *recvbuf,
                    int count, MPI_Datatype datatype, MPI_Op op, int root,
                    MPI_Comm comm, const oracle *orc) {
  pat_call c;
  pat_call_props props;
  pat_reduce_alg chosen = alg, served;
  const pat_config *cfg;
  int inter, rc;
  repeat *r = orc == NULL ? repeated(alg, sendbuf, recvbuf, count, datatype, op,
                                     root, comm)
                          : NULL;

  if (r != NULL)
    return run_repeat(r);
  c = (pat_call){.sendbuf = sendbuf,
                 .recvbuf = recvbuf,
                 .count = count,
                 .datatype = datatype,
                 .op = op,
                 .root = root,
                 .comm = comm};
  cfg = pat_config_get();
  rc = check_args(&c, alg, &inter);
  if (rc != MPI_SUCCESS)
    goto out;
  if (inter) {
    /* no algorithm here spans two groups: MPI's own, which raises its
     * errors on comm itself */
    if (cfg->verbose >= 1)
      pat_warn_once("an intercommunicator: every algorithm needs an "
                    "intracommunicator; using PMPI_Reduce");
    rc = PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    goto out;
  }
  /* a bad setting is reported after the communicator's ranks have agreed
   * (comm.c): at the first call every rank then fails, not just this one */
  rc = pat_comm_state_get(comm, &c.state);
  if (rc != MPI_SUCCESS)
    goto raise;
  props = (pat_call_props){.commutative = c.commutative,
                           .contiguous = c.type.contiguous,
                           .count = count};
  /* asked only for a row that needs it (collective once: comm.c) */
  if (pat_alg_table[alg]->needs & PAT_NEEDS_OWN_CORES) {
    rc = pat_comm_state_shares_cores(c.state, cfg, &props.shared_cores);
    if (rc != MPI_SUCCESS)
      goto raise;
  }
  if (pat_alg_select(pat_alg_table, PAT_REDUCE_ALG_COUNT, alg, &props,
                     &chosen) != PAT_SUCCESS) {
    rc = MPI_ERR_INTERN;
    goto raise;
  }
  /* the same on every rank: the values agree (comm.c) */
  if (cfg->bad != 0) {
    rc = settings_usable(&c, alg, chosen);
    if (rc != MPI_SUCCESS)
      goto out;
  }
  c.priv = pat_comm_state_priv(c.state);
  c.tag = pat_comm_state_next_tag(c.state);
  rc = serve(&c, &props, alg, chosen, orc, NULL, &served);
  if (rc == MPI_SUCCESS && orc == NULL)
    remember_call(&c, &props, alg, chosen, served, sendbuf, cfg);
raise:
  if (rc != MPI_SUCCESS)
    PMPI_Comm_call_errhandler(comm, rc);
out:
  return rc;
}

int pat_reduce_using(pat_reduce_alg alg, const void *sendbuf, void *recvbuf,
                     int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm) {
  return dispatch(alg, sendbuf, recvbuf, count, datatype, op, root, comm, NULL);
}

int pat_reduce_with_arrivals(pat_reduce_alg alg, const void *sendbuf,
                             void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, int root, MPI_Comm comm,
                             const double *arrivals, double round_cost) {
  oracle orc = {.arrivals = arrivals, .round_cost = round_cost};
  int rc = MPI_SUCCESS, size = 0;
  MPI_Comm raise_on = comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm;
  if (arrivals == NULL || !isfinite(round_cost)) {
    rc = arg_error(raise_on, MPI_ERR_ARG,
                   arrivals == NULL ? "arrivals is NULL; give one arrival "
                                      "time per rank"
                                    : "round_cost is not finite; valid: "
                                      "seconds > 0, or <= 0 for the "
                                      "library's cost model");
    goto out;
  }
  if (comm != MPI_COMM_NULL && PMPI_Comm_size(comm, &size) == MPI_SUCCESS)
    for (int r = 0; r < size; r++)
      if (!isfinite(arrivals[r])) {
        rc = arg_error(comm, MPI_ERR_ARG,
                       "arrivals holds a value that is not finite");
        goto out;
      }
  rc = dispatch(alg, sendbuf, recvbuf, count, datatype, op, root, comm, &orc);
out:
  return rc;
}

int pat_reduce_clairvoyant_with(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root,
                                MPI_Comm comm, const double *arrivals,
                                double round_cost) {
  return pat_reduce_with_arrivals(PAT_REDUCE_ALG_CLAIRVOYANT, sendbuf, recvbuf,
                                  count, datatype, op, root, comm, arrivals,
                                  round_cost);
}

/* The configuration of the PAT_REDUCE_RULES line that serves this call,
 * or NULL (no rules, no line matches, or arguments the checks will
 * reject). */
static const pat_config *rule_for(const pat_config *cfg, int count,
                                  MPI_Datatype datatype, MPI_Comm comm) {
  int size = 0, type_size = 0, line = 0, rank = -1;
  const pat_config *rule;
  if (cfg->rules == NULL || count < 0 || comm == MPI_COMM_NULL ||
      datatype == MPI_DATATYPE_NULL ||
      PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
      PMPI_Type_size(datatype, &type_size) != MPI_SUCCESS)
    return NULL;
  rule = pat_rules_match(cfg->rules, size, (long long)count * type_size, &line);
  if (rule != NULL && cfg->verbose >= 1 &&
      PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == 0)
    pat_warn_once("PAT_REDUCE_RULES: line %d serves calls, with %s", line,
                  pat_alg_table[rule->algorithm]->name);
  return rule;
}

int pat_reduce(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  const pat_config *cfg = pat_config_get(), *rule, *previous;
  int rc;
  rule = rule_for(cfg, count, datatype, comm);
  if (rule == NULL)
    return pat_reduce_using(cfg->algorithm, sendbuf, recvbuf, count, datatype,
                            op, root, comm);
  previous = pat_config_push(rule);
  rc = pat_reduce_using(rule->algorithm, sendbuf, recvbuf, count, datatype, op,
                        root, comm);
  pat_config_pop(previous);
  return rc;
}

/* pat_reduce_binomial, pat_reduce_native, ...: one per algorithm. */
#define PAT_X_ENTRY(ID, name)                                                  \
  int pat_reduce_##name(const void *sendbuf, void *recvbuf, int count,         \
                        MPI_Datatype datatype, MPI_Op op, int root,            \
                        MPI_Comm comm) {                                       \
    return pat_reduce_using(PAT_REDUCE_ALG_##ID, sendbuf, recvbuf, count,      \
                            datatype, op, root, comm);                         \
  }
PAT_REDUCE_ALGORITHMS(PAT_X_ENTRY)
#undef PAT_X_ENTRY

int pat_schedule_execute(const pat_schedule *sched, const void *sendbuf,
                         void *recvbuf, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
  const pat_sched_params *p = pat_schedule_params(sched);
  pat_call c = {.sendbuf = sendbuf,
                .recvbuf = recvbuf,
                .datatype = datatype,
                .op = op,
                .comm = comm};
  const char *why;
  int rc = MPI_SUCCESS;
  if (p == NULL) {
    rc = arg_error(comm, MPI_ERR_ARG, "sched is NULL");
    goto out;
  }
  int inter;
  c.count = p->count;
  c.root = p->root;
  rc = check_args(&c, PAT_REDUCE_ALG_BINOMIAL, &inter);
  if (rc != MPI_SUCCESS)
    goto out;
  if (inter) {
    rc = arg_error(comm, MPI_ERR_COMM,
                   "comm is an intercommunicator; a schedule runs on an "
                   "intracommunicator");
    goto out;
  }
  /* in-place use matters at the root only: other ranks pass buffers */
  if (p->nranks != c.nranks || !pat_schedule_has_rank(sched, c.rank) ||
      (c.rank == c.root && p->in_place != c.in_place) ||
      (p->commutative && !c.commutative) ||
      pat_schedule_check_program(sched, c.rank) != PAT_SUCCESS) {
    rc = arg_error(comm, MPI_ERR_ARG,
                   "the schedule was built for another communicator size, "
                   "rank, in-place use at the root or op commutativity, or "
                   "this rank's program names a bad slot, peer or range");
    goto out;
  }
  rc = pat_comm_state_get(comm, &c.state);
  why = pat_config_bad(pat_config_get(),
                       pat_base_scopes() | PAT_SCOPE_BIT(PAT_SCOPE_SCHEDULE));
  if (rc == MPI_SUCCESS && why != NULL) {
    rc = arg_error(comm, MPI_ERR_ARG, why);
    goto out;
  }
  if (rc == MPI_SUCCESS) {
    c.priv = pat_comm_state_priv(c.state);
    c.tag = pat_comm_state_next_tag(c.state);
    rc = pat_exec_run(sched, &c, NULL);
  }
  if (rc != MPI_SUCCESS)
    PMPI_Comm_call_errhandler(comm, rc);
out:
  return rc;
}
