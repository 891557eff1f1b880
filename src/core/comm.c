/*
 * Per-communicator state, kept as an attribute of the user's communicator:
 * a private communicator (a duplicate; in SMPI one made from the group,
 * private_comm) for all internal traffic (so no message of ours can
 * match one of the application's), the call sequence number that goes into
 * every tag (so back-to-back calls never cross-match), the algorithm that
 * served the last call, the schedule cache, the PAT layer's state and one
 * slot per algorithm for its own state (freed through its table row).
 *
 * At the communicator's first call its ranks agree that the variables
 * that shape communication have the same values everywhere (agree), one
 * allreduce, or the call fails on every rank naming the variable and the
 * ranks.  The attribute is deleted, and the duplicate freed, when the user
 * frees the communicator; a finalize hook on MPI_COMM_SELF releases
 * MPI_COMM_WORLD's state and the keyvals.
 *
 * Schedule cache.  PAT_REDUCE_SCHEDULE_CACHE entries (default 16; at most
 * 16384 / P on P ranks, at least 1: each schedule holds a few words per
 * rank), most recently used first, the least recently used dropped when a
 * new one is built; an entry is reused only for bitwise the same
 * parameters.  One entry was not enough: IMB's reduce rotates the root
 * every call, so every call rebuilt its schedule and dependencies
 * (measured, Open MPI, P = 2, 8 B back to back: 30% of a call's CPU in the
 * build's malloc and free).
 *
 * Lookup.  Each thread remembers the last communicator it looked up and
 * its state, valid while no state has been freed since (a global count of
 * frees), so that a handle reused for a new communicator never finds a
 * freed state.  Measured: the attribute lookup was about 9% of an 8-byte
 * binomial call's CPU.  The same memory tells the argument checks the
 * communicator's rank and size with no MPI call (pat_comm_state_known).
 * This assumes every rank has its own thread-local storage (processes, or
 * MPI threads that are OS threads); not in the SMPI build, whose ranks
 * share threads.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memo.h"
#include "pat_internal.h"
#include "pat/pat_layer.h"

/* Ranks times cached schedules a communicator may hold (cache_cap). */
#define PAT_SCHEDULE_CACHE_RANKS 16384

/* A cached schedule: alg's for its parameters, with the dependencies of
 * rank's program. */
typedef struct sched_entry {
  pat_schedule *sched;
  pat_deps *deps;
  pat_reduce_alg alg;
  int rank;
} sched_entry;

struct pat_comm_state {
  MPI_Comm priv;
  int rank, size;      /* in the communicator */
  unsigned long calls; /* calls started on this communicator */
  int tag_next;        /* the next call's first tag */
  int tag_ub;
  int has_last;
  pat_reduce_alg last;
  /* schedule cache: entries 0 .. ncached - 1, most recently used first,
   * an array of cache_cap (PAT_REDUCE_SCHEDULE_CACHE) */
  sched_entry *cache;
  int ncached, cache_cap;
  unsigned long builds;     /* schedules built for this communicator */
  struct pat_state *pat;    /* PAT layer, created on first use */
  int sched_used;           /* the last call ran cache[0].sched */
  unsigned long epoch;      /* changes whenever cache[0] may have changed */
  unsigned long generation; /* of the configuration the cache was built in */
  /* each algorithm's state, freed by its row's state_free */
  void *alg[PAT_REDUCE_ALG_COUNT];
  /* scratch blocks kept between calls, each lent to one user at a time */
  struct {
    void *block;
    size_t bytes;
    int lent;
  } scratch[PAT_SCRATCH_KINDS];
  pat_standing standing; /* a picking row's standing pick (dispatch.c) */
  /* whether the ranks share cores, found once (pat_comm_state_shares_cores) */
  int cores_found;
  pat_cores cores;
  /* tracing (pat_trace_start): the caller's buffer, NULL when off */
  int trace_on;
  pat_trace_event *trace;
  size_t trace_cap, trace_n, trace_dropped;
};

/* Made by the first call of any thread (ensure_keyvals, under
 * keyval_lock); keyvals_made (release, acquire) publishes them. */
static int pat_state_keyval = MPI_KEYVAL_INVALID;
static int pat_finalize_keyval = MPI_KEYVAL_INVALID;
static atomic_int keyvals_made;
static pthread_mutex_t keyval_lock = PTHREAD_MUTEX_INITIALIZER;

/* True once MPI_Finalize has marked MPI finalized.  Open MPI and MPICH
 * delete MPI_COMM_SELF's attributes before that, with MPI usable; SimGrid
 * SMPI deletes attributes after it, when no MPI call may be made, so then
 * the state (memory only: SMPI's ranks are threads of one process about
 * to exit) is left to the process's exit. */
static int mpi_finalized(void) {
  int done = 0;
  PMPI_Finalized(&done);
  return done;
}

/* States freed so far: a thread's remembered lookup is valid while this
 * has not changed. */
static atomic_ulong states_freed;

#ifndef PATREDUCE_SMPI
static _Thread_local struct {
  MPI_Comm comm;
  pat_comm_state *st;
  unsigned long freed; /* states_freed when remembered */
} last_lookup;

/* This thread's last state, if it was comm's and no state has been freed
 * since (freed: states_freed now). */
static pat_comm_state *remembered(MPI_Comm comm, unsigned long freed) {
  return last_lookup.comm == comm && last_lookup.freed == freed ? last_lookup.st
                                                                : NULL;
}
#endif

static void entry_free(sched_entry *e) {
  pat_schedule_free(e->sched);
  pat_deps_free(e->deps);
}

static int state_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  pat_comm_state *st = value;
  int rc = MPI_SUCCESS;
  (void)comm;
  (void)keyval;
  (void)extra;
  atomic_fetch_add(&states_freed, 1);
  if (st != NULL && !mpi_finalized()) {
    pat_state_free(st->pat);
    if (st->priv != MPI_COMM_NULL)
      rc = PMPI_Comm_free(&st->priv);
    for (int i = 0; i < st->ncached; i++)
      entry_free(&st->cache[i]);
    free(st->cache);
    for (int k = 0; k < PAT_SCRATCH_KINDS; k++)
      free(st->scratch[k].block);
    for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++)
      if (st->alg[i] != NULL && pat_alg_table[i]->state_free != NULL)
        pat_alg_table[i]->state_free(st->alg[i]);
    free(st);
  }
  return rc;
}

/* Runs at the start of MPI_Finalize, when MPI_COMM_SELF's attributes are
 * deleted: MPI is still fully usable here (except in SMPI, see above). */
static int finalize_hook(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  if (mpi_finalized())
    return MPI_SUCCESS;
  if (pat_config_get()->verbose >=
      1) { /* one summary: MPI_COMM_WORLD's rank 0 */
    int wrank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0)
      pat_dispatch_summary(wrank);
  }
  pat_memo_clear(); /* the plans kept for the process (memo.c) */
  if (pat_state_keyval != MPI_KEYVAL_INVALID) {
    if (pat_comm_state_find(MPI_COMM_WORLD) != NULL)
      PMPI_Comm_delete_attr(MPI_COMM_WORLD, pat_state_keyval);
    PMPI_Comm_free_keyval(&pat_state_keyval);
  }
  /* freeing a keyval only marks it; MPI drops it with this attribute */
  if (pat_finalize_keyval != MPI_KEYVAL_INVALID)
    PMPI_Comm_free_keyval(&pat_finalize_keyval);
  atomic_store(&keyvals_made, 0);
  return MPI_SUCCESS;
}

static int ensure_keyvals(void) {
  int rc = MPI_SUCCESS;
  if (atomic_load_explicit(&keyvals_made, memory_order_acquire))
    return rc;
  PAT_LOCK(&keyval_lock);
  if (atomic_load_explicit(&keyvals_made, memory_order_relaxed))
    goto out;
  if (pat_state_keyval == MPI_KEYVAL_INVALID)
    rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, state_delete,
                                 &pat_state_keyval, NULL);
  if (rc == MPI_SUCCESS && pat_finalize_keyval == MPI_KEYVAL_INVALID) {
    rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook,
                                 &pat_finalize_keyval, NULL);
    if (rc == MPI_SUCCESS)
      rc = PMPI_Comm_set_attr(MPI_COMM_SELF, pat_finalize_keyval, NULL);
  }
  if (rc == MPI_SUCCESS)
    atomic_store_explicit(&keyvals_made, 1, memory_order_release);
out:
  PAT_UNLOCK(&keyval_lock);
  return rc;
}

pat_comm_state *pat_comm_state_find(MPI_Comm comm) {
  pat_comm_state *st = NULL;
  void *value = NULL;
  int found = 0;
  if (atomic_load_explicit(&keyvals_made, memory_order_acquire) &&
      PMPI_Comm_get_attr(comm, pat_state_keyval, &value, &found) ==
          MPI_SUCCESS &&
      found)
    st = value;
  return st;
}

/* Every rank of a communicator must see the same values of the variables
 * that shape communication (pat_config_fingerprints), or calls would take
 * different paths on different ranks and hang (algorithm binomial here,
 * native there).  One allreduce of their hashes (and complements: max and
 * min in one) at the communicator's first call, with a flag for a bad
 * value (one rank's PAT_REDUCE_VERBOSE=loud must not leave the others
 * waiting for it); on a difference an allgather of the first differing
 * variable's hash names the ranks, and every rank fails alike with
 * MPI_ERR_ARG, its own value in the message. */
static int agree(MPI_Comm priv) {
  const pat_env_var *vars[PAT_ENV_MAX];
  const pat_config *cfg = pat_config_get();
  unsigned long long mine[PAT_ENV_MAX], h[2 * PAT_ENV_MAX + 1], *all = NULL;
  const char *why;
  int n = pat_config_fingerprints(vars, mine, PAT_ENV_MAX), bad = -1;
  int rc, rank, size;
  char ranks[160] = "";
  size_t len = 0;
  for (int i = 0; i < n; i++) {
    h[i] = mine[i];
    h[n + i] = ~mine[i];
  }
  /* a bad value every call reads (one that only some rows read is the
   * same on every rank once the values agree: dispatch.c fails or
   * ignores it alike) */
  why = pat_config_bad(cfg, pat_base_scopes());
  h[2 * n] = why != NULL;
  rc = PMPI_Allreduce(MPI_IN_PLACE, h, 2 * n + 1, MPI_UNSIGNED_LONG_LONG,
                      MPI_MAX, priv);
  if (rc == MPI_SUCCESS && h[2 * n] != 0) {
    /* every rank fails, the one with the bad value saying which */
    if (why != NULL)
      pat_warn_once("%s", why);
    else
      pat_warn_once("a PAT_REDUCE_* variable has a bad value on another "
                    "rank of this communicator (that rank says which)");
    rc = MPI_ERR_ARG;
    goto out;
  }
  for (int i = 0; rc == MPI_SUCCESS && i < n && bad < 0; i++)
    if (h[i] != ~h[n + i]) /* max != min */
      bad = i;
  if (rc != MPI_SUCCESS || bad < 0)
    goto out;
  PMPI_Comm_rank(priv, &rank);
  PMPI_Comm_size(priv, &size);
  all = malloc((size_t)size * sizeof *all);
  rc = all == NULL ? MPI_ERR_NO_MEM
                   : PMPI_Allgather(&mine[bad], 1, MPI_UNSIGNED_LONG_LONG, all,
                                    1, MPI_UNSIGNED_LONG_LONG, priv);
  for (int r = 1, listed = 0; rc == MPI_SUCCESS && r < size; r++)
    if (all[r] != all[0] && len < sizeof ranks - 24) {
      len += (size_t)snprintf(ranks + len, sizeof ranks - len, "%s%d",
                              listed++ ? ", " : "", r);
      if (len >= sizeof ranks - 24)
        snprintf(ranks + len, sizeof ranks - len, ", ...");
    }
  if (rc == MPI_SUCCESS) {
    pat_warn_once("%s is not the same on every rank of a communicator: "
                  "ranks %s differ from rank 0 (rank %d has '%s'%s); set it "
                  "alike on every rank",
                  vars[bad]->name, ranks, rank,
                  pat_env_value(vars[bad], pat_process_getenv),
                  vars[bad] == &pat_env_table[PAT_ENV_MODEL]
                      ? ", a file that must read alike everywhere"
                      : "");
    rc = MPI_ERR_ARG;
  }
out:
  free(all);
  return rc;
}

/* The private communicator: the same ranks as comm in a new context.
 * Elsewhere a duplicate.  In the SMPI build a communicator made from
 * comm's own group: SMPI's MPI_Comm_dup copies the group for every rank
 * (P ranks in one process, O(P^2) memory: 6 GB for two duplicates at
 * P = 16384), where MPI_Comm_create shares it.  Only intracommunicators
 * get here (dispatch.c sends the others to PMPI_Reduce). */
static int private_comm(MPI_Comm comm, MPI_Comm *priv) {
#ifdef PATREDUCE_SMPI
  MPI_Group group = MPI_GROUP_NULL;
  int rc = PMPI_Comm_group(comm, &group);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Comm_create(comm, group, priv);
  if (group != MPI_GROUP_NULL)
    PMPI_Group_free(&group);
  return rc;
#else
  return PMPI_Comm_dup(comm, priv);
#endif
}

int pat_comm_state_get(MPI_Comm comm, pat_comm_state **out) {
  pat_comm_state *st = NULL;
  int rc = ensure_keyvals();
  void *tag_ub = NULL;
  int found = 0;
#ifndef PATREDUCE_SMPI
  unsigned long freed;
#endif

  if (rc != MPI_SUCCESS)
    goto out;
#ifndef PATREDUCE_SMPI
  freed = atomic_load(&states_freed); /* before the lookup it vouches for */
  st = remembered(comm, freed);
  if (st != NULL)
    goto out;
#endif
  st = pat_comm_state_find(comm);
  if (st != NULL)
    goto remember;

  st = calloc(1, sizeof *st);
  if (st == NULL) {
    rc = MPI_ERR_NO_MEM;
    goto out;
  }
  st->priv = MPI_COMM_NULL;
  st->standing.through = -1;
  rc = private_comm(comm, &st->priv);
  if (rc != MPI_SUCCESS)
    goto fail;
  /* Internal errors come back to us; we raise them on the user's comm. */
  rc = PMPI_Comm_set_errhandler(st->priv, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS)
    goto fail;
  rc = PMPI_Comm_get_attr(st->priv, MPI_TAG_UB, &tag_ub, &found);
  if (rc != MPI_SUCCESS)
    goto fail;
  /* the largest tag is kept for clock synchronisation */
  st->tag_ub = found ? *(int *)tag_ub : 32767;
  PMPI_Comm_rank(st->priv, &st->rank);
  PMPI_Comm_size(st->priv, &st->size);
  rc = agree(st->priv);
  if (rc != MPI_SUCCESS)
    goto fail;
  rc = PMPI_Comm_set_attr(comm, pat_state_keyval, st);
  if (rc != MPI_SUCCESS)
    goto fail;
remember:
#ifndef PATREDUCE_SMPI
  last_lookup.comm = comm;
  last_lookup.st = st;
  last_lookup.freed = freed;
#endif
  goto out;
fail:
  state_delete(comm, pat_state_keyval, st, NULL);
  st = NULL;
out:
  *out = st;
  return rc;
}

MPI_Comm pat_comm_state_priv(const pat_comm_state *st) { return st->priv; }

unsigned long pat_comm_states_freed(void) { return atomic_load(&states_freed); }

int pat_comm_state_known(MPI_Comm comm, int *rank, int *size) {
  int known = 0;
#ifndef PATREDUCE_SMPI
  const pat_comm_state *st = remembered(comm, atomic_load(&states_freed));
  if (st != NULL) {
    *rank = st->rank;
    *size = st->size;
    known = 1;
  }
#else
  (void)comm;
  (void)rank;
  (void)size;
#endif
  return known;
}

void *pat_comm_state_scratch_take(pat_comm_state *st, pat_scratch_kind kind,
                                  size_t bytes) {
  void *block = NULL;
  if (kind < 0 || kind >= PAT_SCRATCH_KINDS || st->scratch[kind].lent ||
      bytes > (size_t)pat_config_get()->scratch_keep)
    goto out;
  if (st->scratch[kind].bytes < bytes) {
    /* free first: the old block's contents are not needed */
    free(st->scratch[kind].block);
    st->scratch[kind].block = malloc(bytes);
    st->scratch[kind].bytes = st->scratch[kind].block != NULL ? bytes : 0;
  }
  block = st->scratch[kind].block;
  st->scratch[kind].lent = block != NULL;
out:
  return block;
}

size_t pat_comm_state_scratch_bytes(const pat_comm_state *st,
                                    pat_scratch_kind kind) {
  return kind >= 0 && kind < PAT_SCRATCH_KINDS ? st->scratch[kind].bytes : 0;
}

void pat_comm_state_scratch_give(pat_comm_state *st, pat_scratch_kind kind,
                                 void *block) {
  if (kind >= 0 && kind < PAT_SCRATCH_KINDS && block != NULL &&
      block == st->scratch[kind].block)
    st->scratch[kind].lent = 0;
}

/* Call k owns tags t .. t + PAT_TAGS_PER_CALL - 1 with
 * t = (k mod (limit / PAT_TAGS_PER_CALL)) * PAT_TAGS_PER_CALL, all below
 * limit = tag_ub - PAT_EXCHANGE_TAGS: the tags from limit up are the PAT
 * layer's stamp exchange's, tag_ub its clock's. */
_Static_assert(PAT_EXCHANGE_TAGS + 2 * PAT_TAGS_PER_CALL < 32767,
               "the reduction keeps tags below the exchange's in MPI's "
               "smallest MPI_TAG_UB");
int pat_comm_state_next_tag(pat_comm_state *st) {
  int tag = st->tag_next;
  /* (calls mod slots) * PAT_TAGS_PER_CALL, without a division per call */
  st->tag_next += PAT_TAGS_PER_CALL;
  if (st->tag_next / PAT_TAGS_PER_CALL >=
      (st->tag_ub - PAT_EXCHANGE_TAGS) / PAT_TAGS_PER_CALL)
    st->tag_next = 0;
  st->calls++;
  return tag;
}

void *pat_comm_state_alg(const pat_comm_state *st, pat_reduce_alg alg) {
  return st != NULL && (int)alg >= 0 && alg < PAT_REDUCE_ALG_COUNT
             ? st->alg[alg]
             : NULL;
}

void pat_comm_state_set_alg(pat_comm_state *st, pat_reduce_alg alg,
                            void *state) {
  if ((int)alg >= 0 && alg < PAT_REDUCE_ALG_COUNT && st->alg[alg] == NULL)
    st->alg[alg] = state;
}

int pat_comm_state_pat(pat_comm_state *st, struct pat_state **out) {
  int rc = MPI_SUCCESS;
  if (st->pat == NULL)
    rc = pat_state_alloc(st->priv, st->tag_ub, st->tag_ub - PAT_EXCHANGE_TAGS,
                         pat_config_process(), &st->pat);
  *out = st->pat;
  return rc;
}

int pat_comm_state_has_pat(const pat_comm_state *st) { return st->pat != NULL; }

const pat_schedule *pat_comm_state_last_schedule(const pat_comm_state *st) {
  return st && st->sched_used ? st->cache[0].sched : NULL;
}

int pat_reduce_last_schedule(MPI_Comm comm, const pat_schedule **sched) {
  const pat_schedule *s = NULL;
  int err = PAT_ERR_INVALID_ARG;
  if (sched != NULL && comm != MPI_COMM_NULL) {
    s = pat_comm_state_last_schedule(pat_comm_state_find(comm));
    err = s != NULL ? PAT_SUCCESS : PAT_ERR_NO_CALL_YET;
    *sched = s;
  }
  return err;
}

unsigned long pat_comm_state_builds(const pat_comm_state *st) {
  return st->builds;
}

int pat_comm_state_shares_cores(pat_comm_state *st, const pat_config *cfg,
                                int *shared) {
  if (cfg->cores != PAT_CORES_DETECT) {
    *shared = cfg->cores == PAT_CORES_SHARED;
    return MPI_SUCCESS;
  }
  if (!st->cores_found) {
    int rc = pat_cores_shared(st->priv, &st->cores);
    if (rc != MPI_SUCCESS)
      return rc;
    st->cores_found = 1;
    if (st->cores.shared && st->rank == 0 && cfg->verbose >= 1)
      fprintf(stderr,
              "patreduce: a communicator of %d ranks shares cores (%d of its "
              "ranks on %d CPUs on rank 0's node): binomial serves auto's "
              "calls there (PAT_REDUCE_CORES=own: not)\n",
              st->size, st->cores.ranks, st->cores.cpus);
  }
  *shared = st->cores.shared;
  return MPI_SUCCESS;
}

unsigned long pat_comm_state_calls(const pat_comm_state *st) {
  return st->calls;
}

pat_standing *pat_comm_state_standing(pat_comm_state *st) {
  return &st->standing;
}

void pat_comm_state_set_last(pat_comm_state *st, pat_reduce_alg alg) {
  st->last = alg;
  st->has_last = 1;
  st->sched_used = 0;
}

int pat_comm_state_last(const pat_comm_state *st, pat_reduce_alg *alg) {
  int err = PAT_ERR_NO_CALL_YET;
  if (st != NULL && st->has_last) {
    *alg = st->last;
    err = PAT_SUCCESS;
  }
  return err;
}

int pat_reduce_last_algorithm(MPI_Comm comm, pat_reduce_alg *alg) {
  int err = PAT_ERR_INVALID_ARG;
  if (alg != NULL && comm != MPI_COMM_NULL)
    err = pat_comm_state_last(pat_comm_state_find(comm), alg);
  return err;
}

static int same_params(const pat_sched_params *a, const pat_sched_params *b) {
  int same = a->nranks == b->nranks && a->root == b->root &&
             a->count == b->count && a->commutative == b->commutative &&
             a->in_place == b->in_place &&
             (a->arrivals == NULL) == (b->arrivals == NULL);
  /* bitwise: a schedule is reused only for exactly the same inputs */
  if (same)
    same = memcmp(&a->model, &b->model, sizeof a->model) == 0 &&
           memcmp(&a->elem_size, &b->elem_size, sizeof a->elem_size) == 0;
  if (same && a->arrivals != NULL)
    same = memcmp(a->arrivals, b->arrivals,
                  (size_t)a->nranks * sizeof *a->arrivals) == 0;
  return same;
}

/* Builds alg's schedule for params and rank with its dependencies. */
static int entry_build(pat_reduce_alg alg, const pat_sched_params *params,
                       int rank, sched_entry *e) {
  int err = pat_schedule_build(alg, params, rank, &e->sched);
  e->deps = NULL;
  e->alg = alg;
  e->rank = rank;
  if (err == PAT_SUCCESS)
    err = pat_deps_alloc(pat_schedule_ops(e->sched, rank),
                         pat_schedule_nops(e->sched, rank),
                         params->in_place && rank == params->root, &e->deps);
  if (err != PAT_SUCCESS) {
    entry_free(e);
    e->sched = NULL;
    e->deps = NULL;
  }
  return err;
}

/* Entries a communicator of nranks keeps: PAT_REDUCE_SCHEDULE_CACHE, but
 * no more than PAT_SCHEDULE_CACHE_RANKS / nranks (at least 1), since every
 * schedule holds a few words per rank (a program slot, an arrival time):
 * in SMPI all ranks' caches share one process's memory. */
static int cache_cap(int nranks) {
  int cap = pat_config_get()->schedule_cache;
  int by_size = PAT_SCHEDULE_CACHE_RANKS / (nranks > 0 ? nranks : 1);
  return by_size < 1 ? 1 : by_size < cap ? by_size : cap;
}

int pat_comm_state_schedule(pat_comm_state *st, pat_reduce_alg alg,
                            const pat_sched_params *params, int rank,
                            const pat_schedule **out, const pat_deps **deps) {
  int err = PAT_SUCCESS, i = 0;
  unsigned long generation = pat_config_generation();
  sched_entry e;
  if (st->generation != generation) {
    /* a reloaded configuration may shape schedules differently (their
     * tunables are not in params) */
    while (st->ncached > 0)
      entry_free(&st->cache[--st->ncached]);
    st->generation = generation;
  }
  while (i < st->ncached &&
         !(st->cache[i].alg == alg && st->cache[i].rank == rank &&
           same_params(pat_schedule_params(st->cache[i].sched), params)))
    i++;
  if (i == 0 && st->ncached > 0)
    goto out;  /* the last call's: already first */
  st->epoch++; /* cache[0] changes below, or the call fails */
  if (i < st->ncached) {
    e = st->cache[i];
  } else {
    int cap = cache_cap(params->nranks);
    if (st->cache_cap != cap) { /* first use, or a reloaded configuration */
      while (st->ncached > cap)
        entry_free(&st->cache[--st->ncached]);
      sched_entry *c = realloc(st->cache, (size_t)cap * sizeof *c);
      if (c == NULL) {
        err = PAT_ERR_NO_MEMORY;
        goto out;
      }
      st->cache = c;
      st->cache_cap = cap;
    }
    err = entry_build(alg, params, rank, &e);
    if (err != PAT_SUCCESS)
      goto out;
    st->builds++;
    if (st->ncached == st->cache_cap) /* drop the least recently used */
      entry_free(&st->cache[--st->ncached]);
    i = st->ncached++;
  }
  /* most recently used first */
  memmove(st->cache + 1, st->cache, (size_t)i * sizeof *st->cache);
  st->cache[0] = e;
out:
  st->sched_used = err == PAT_SUCCESS;
  *out = err == PAT_SUCCESS ? st->cache[0].sched : NULL;
  *deps = err == PAT_SUCCESS ? st->cache[0].deps : NULL;
  return err;
}

unsigned long pat_comm_state_schedule_epoch(const pat_comm_state *st) {
  return st->epoch;
}

int pat_comm_state_schedule_again(pat_comm_state *st, unsigned long epoch,
                                  const pat_schedule **out,
                                  const pat_deps **deps) {
  int again = st->ncached > 0 && st->epoch == epoch;
  if (again) {
    *out = st->cache[0].sched;
    *deps = st->cache[0].deps;
    st->sched_used = 1;
  }
  return again;
}

void pat_comm_state_drop_replay(pat_comm_state *st) {
  if (st->sched_used)
    pat_schedule_set_replay(st->cache[0].sched, NULL);
}

/* ---- tracing ------------------------------------------------------------ */

int pat_trace_start(MPI_Comm comm, pat_trace_event *events, size_t capacity) {
  pat_comm_state *st = NULL;
  int rc = pat_comm_state_get(comm, &st);
  if (rc != MPI_SUCCESS)
    goto out;
  if (events == NULL && capacity > 0) {
    rc = MPI_ERR_ARG;
    goto out;
  }
  st->trace_on = 1;
  st->trace = events;
  st->trace_cap = events != NULL ? capacity : 0;
  st->trace_n = st->trace_dropped = 0;
out:
  return rc;
}

int pat_trace_stop(MPI_Comm comm, size_t *stored, size_t *dropped) {
  pat_comm_state *st = pat_comm_state_find(comm);
  int rc = MPI_SUCCESS;
  if (st == NULL || !st->trace_on) {
    rc = MPI_ERR_OTHER;
    goto out;
  }
  if (stored != NULL)
    *stored = st->trace_n;
  if (dropped != NULL)
    *dropped = st->trace_dropped;
  st->trace_on = 0;
  st->trace = NULL;
  st->trace_cap = st->trace_n = st->trace_dropped = 0;
out:
  return rc;
}

const char *pat_trace_kind_name(pat_trace_kind kind) {
  static const char *const names[PAT_TRACE_KIND_COUNT] = {
      "send", "recv", "combine", "unexpected"};
  return (unsigned)kind < PAT_TRACE_KIND_COUNT ? names[kind] : "unknown";
}

int pat_trace_on(const pat_call *call) {
  return call->state != NULL && call->state->trace_on;
}

void pat_trace_note(const pat_call *call, pat_trace_kind kind, int peer,
                    int count, double t0, double t1) {
  pat_comm_state *st = call->state;
  if (st == NULL || !st->trace_on)
    return;
  if (st->trace_n < st->trace_cap)
    st->trace[st->trace_n++] = (pat_trace_event){
        .t0 = t0, .t1 = t1, .kind = kind, .peer = peer, .count = count};
  else
    st->trace_dropped++;
}
