/*
 * Configuration from the environment, parsed once per process and cached
 * (the only mutable global state besides the attribute keyvals), by the
 * first thread that needs it (MPI_THREAD_MULTIPLE: tests/mpi/test_threads.c
 * under ThreadSanitizer).  A bad value is not ignored: it is kept as an
 * error that every call reports.  pat_reduce_config_reload must not run
 * while other threads call the library.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pat_internal.h"

const pat_env_var pat_env_table[PAT_ENV_COUNT] = {
    [PAT_ENV_ALGORITHM] = {"PAT_REDUCE_ALGORITHM", "binomial",
                           "algorithm used by pat_reduce() and the MPI_Reduce "
                           "override; a name from "
                           "the algorithm table, case-insensitive"},
    [PAT_ENV_VERBOSE] =
        {"PAT_REDUCE_VERBOSE", "0",
         "0 quiet; 1 one line per communicator at its first call (rank 0: "
         "the algorithm that served it), each fallback once, and at "
         "MPI_Finalize rank 0's calls per algorithm and fallbacks; 2 also "
         "every call (rank, call number, count, root, algorithm), on stderr",
         1},
    [PAT_ENV_PREDICTOR] = {"PAT_REDUCE_PREDICTOR", "sma:5",
                           "arrival-time predictor of the clairvoyant "
                           "algorithm: sma, sma:W (moving average of W "
                           "calls) or last"},
    [PAT_ENV_EXCHANGE_INTERVAL] = {"PAT_REDUCE_EXCHANGE_INTERVAL", "1",
                                   "exchange the arrival stamps every N "
                                   "calls (N >= 1); 0: never (the "
                                   "predictor then sees no arrivals)"},
    [PAT_ENV_EXCHANGE_LAG] = {"PAT_REDUCE_EXCHANGE_LAG", "1",
                              "an exchange started in call k is completed "
                              "and used in call k + L (1 <= L <= 64)"},
    [PAT_ENV_CLOCK_REFRESH] = {"PAT_REDUCE_CLOCK_REFRESH", "0",
                               "re-estimate the clock offsets to rank 0 "
                               "every N calls (0: only at first use); a "
                               "refresh is a blocking ping-pong of every "
                               "rank with rank 0 at the end of a call; "
                               "unused when MPI_WTIME_IS_GLOBAL is set"},
    [PAT_ENV_MODEL] = {"PAT_REDUCE_MODEL", "",
                       "round-cost model file (alpha, beta, gamma) for the "
                       "clairvoyant algorithm; default: measured"},
    [PAT_ENV_ROUND_COST] = {"PAT_REDUCE_ROUND_COST", "",
                            "a constant cost per message (a time > 0: 2.5us), "
                            "whatever its size (alpha = c, beta = gamma = "
                            "0); overrides PAT_REDUCE_MODEL"},
    [PAT_ENV_MAX_OUTSTANDING] = {"PAT_REDUCE_MAX_OUTSTANDING", "1",
                                 "schedule executor: a receive of a later "
                                 "round than the earliest unfinished one is "
                                 "posted only while fewer receives are in "
                                 "flight (0..1000000); those of that round "
                                 "are always posted"},
    [PAT_ENV_MAX_SENDS] = {"PAT_REDUCE_MAX_SENDS", "4",
                           "schedule executor: a send of a later round "
                           "than the earliest unfinished one is posted "
                           "only while fewer sends are in flight "
                           "(0..1000000); those of that round are always "
                           "posted"},
    [PAT_ENV_SMPI_SHARED_ABOVE] = {"PAT_REDUCE_SMPI_SHARED_ABOVE", "0",
                                   "SMPI build only: temporaries of more "
                                   "than this many bytes (8M) come from "
                                   "SMPI_SHARED_MALLOC (one block shared by "
                                   "all ranks: simulated times stay right, "
                                   "results do not); 0: never",
                                   1},
    [PAT_ENV_SCRATCH_KEEP] = {"PAT_REDUCE_SCRATCH_KEEP", "67108864",
                              "most bytes (64M) of temporaries, and of "
                              "executor state, that each communicator "
                              "keeps between calls (larger needs are "
                              "allocated and freed per call); 0: none",
                              1},
    [PAT_ENV_SCHEDULE_CACHE] = {"PAT_REDUCE_SCHEDULE_CACHE", "16",
                                "schedules each communicator keeps for "
                                "reuse, least recently used dropped first "
                                "(1..4096): calls that alternate between "
                                "roots, counts or algorithms (IMB rotates "
                                "the root) reuse theirs",
                                1},
    [PAT_ENV_SEGMENTS] = {"PAT_REDUCE_SEGMENTS", "0",
                          "segmenting algorithms (pipeline, clairvoyant): "
                          "number of segments the message is cut into "
                          "(1..16384, at most the count; clairvoyant at "
                          "most 1024); 0 = automatic, each algorithm's "
                          "choice under the cost model"},
};

const pat_model pat_model_curie = {
    .alpha = 2.66e-6, .beta = 4.8179e-10, .gamma = 1.6654e-10};

const pat_model *pat_config_model(const pat_config *cfg) {
  return cfg->has_model ? &cfg->model : &pat_model_curie;
}

int pat_env_all(const pat_env_var **vars, int max) {
  int n = 0;
  for (int i = 0; i < PAT_ENV_COUNT; i++, n++)
    if (n < max)
      vars[n] = &pat_env_table[i];
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    for (const pat_env_var *v = pat_alg_table[a]->env; v && v->name; v++, n++)
      if (n < max)
        vars[n] = v;
  return n;
}

static const char *env_value(const char *(*get)(const char *), int index) {
  const char *v = get(pat_env_table[index].name);
  if (v == NULL || v[0] == '\0')
    v = pat_env_table[index].fallback;
  return v;
}

/* A size in bytes (units.c: 64K, 4M) or an error naming the variable and
 * the valid values. */
static int parse_bytes(pat_config *cfg, int var, const char *v, long *out) {
  long long b;
  if (pat_parse_bytes(v, LONG_MAX, &b) == 1) {
    *out = (long)b;
    return 1;
  }
  snprintf(cfg->why, sizeof cfg->why,
           "%s=%s is not a size in bytes; valid: a whole number >= 0 with an "
           "optional K, M or G suffix (powers of 1024), e.g. 64M",
           pat_env_table[var].name, v);
  cfg->error = PAT_ERR_BAD_ENV;
  return 0;
}

/* An integer in [lo, hi] or an error naming the variable and the valid
 * values: "is not <valid>", by default "an integer in lo..hi". */
static int parse_long_as(pat_config *cfg, int var, const char *v, long lo,
                         long hi, const char *valid, long *out) {
  char *end = NULL;
  long x = isdigit((unsigned char)v[0]) ? strtol(v, &end, 10) : lo - 1;
  if (end == NULL || *end != '\0' || x < lo || x > hi) {
    if (valid != NULL)
      snprintf(cfg->why, sizeof cfg->why, "%s=%s is not %s",
               pat_env_table[var].name, v, valid);
    else
      snprintf(cfg->why, sizeof cfg->why, "%s=%s is not an integer in %ld..%ld",
               pat_env_table[var].name, v, lo, hi);
    cfg->error = PAT_ERR_BAD_ENV;
    return 0;
  }
  *out = x;
  return 1;
}

static int parse_long(pat_config *cfg, int var, const char *v, long lo, long hi,
                      long *out) {
  return parse_long_as(cfg, var, v, lo, hi, NULL, out);
}

void pat_config_parse(pat_config *cfg, const char *(*get)(const char *name)) {
  const char *alg = env_value(get, PAT_ENV_ALGORITHM);
  const char *predictor = env_value(get, PAT_ENV_PREDICTOR);
  const char *model = env_value(get, PAT_ENV_MODEL);
  const char *cost = env_value(get, PAT_ENV_ROUND_COST);
  char names[256];
  long x;
  pat_predictor *probe = NULL;

  memset(cfg, 0, sizeof *cfg);
  cfg->algorithm = PAT_REDUCE_ALG_BINOMIAL;
  cfg->error = PAT_SUCCESS;

  if (pat_reduce_algorithm_lookup(alg, &cfg->algorithm) != PAT_SUCCESS) {
    pat_alg_names(names, sizeof names);
    snprintf(cfg->why, sizeof cfg->why, "%s=%s is not an algorithm; valid: %s",
             pat_env_table[PAT_ENV_ALGORITHM].name, alg, names);
    cfg->error = PAT_ERR_BAD_ENV;
    goto out;
  }
  if (!parse_long(cfg, PAT_ENV_VERBOSE, env_value(get, PAT_ENV_VERBOSE), 0, 2,
                  &x))
    goto out;
  cfg->verbose = (int)x;
  if (pat_predictor_alloc(predictor, 1, &probe, cfg->why, sizeof cfg->why) !=
      PAT_SUCCESS) {
    cfg->error = PAT_ERR_BAD_ENV;
    goto out;
  }
  if (strlen(predictor) >= sizeof cfg->predictor) {
    snprintf(cfg->why, sizeof cfg->why,
             "%s=%.40s... is longer than %zu "
             "characters",
             pat_env_table[PAT_ENV_PREDICTOR].name, predictor,
             sizeof cfg->predictor - 1);
    cfg->error = PAT_ERR_BAD_ENV;
    goto out;
  }
  snprintf(cfg->predictor, sizeof cfg->predictor, "%s", predictor);
  if (!parse_long(cfg, PAT_ENV_EXCHANGE_INTERVAL,
                  env_value(get, PAT_ENV_EXCHANGE_INTERVAL), 0, 1000000, &x))
    goto out;
  cfg->exchange_interval = (int)x;
  if (!parse_long(cfg, PAT_ENV_EXCHANGE_LAG,
                  env_value(get, PAT_ENV_EXCHANGE_LAG), 1, 64, &x))
    goto out;
  cfg->exchange_lag = (int)x;
  if (!parse_long(cfg, PAT_ENV_CLOCK_REFRESH,
                  env_value(get, PAT_ENV_CLOCK_REFRESH), 0, 1000000000, &x))
    goto out;
  cfg->clock_refresh = x;
  if (model[0] != '\0') {
    if (pat_model_read(model, &cfg->model, cfg->why, sizeof cfg->why) !=
        PAT_SUCCESS) {
      cfg->error = PAT_ERR_BAD_ENV;
      goto out;
    }
    cfg->has_model = 1;
  }
  if (cost[0] != '\0') {
    if (!pat_parse_seconds(cost, &cfg->round_cost) || !(cfg->round_cost > 0)) {
      snprintf(cfg->why, sizeof cfg->why,
               "%s=%s is not a time > 0; valid: a number with an optional "
               "unit s, ms, us or ns (none: seconds), e.g. 2.5us",
               pat_env_table[PAT_ENV_ROUND_COST].name, cost);
      cfg->error = PAT_ERR_BAD_ENV;
      goto out;
    }
  }
  if (!parse_long(cfg, PAT_ENV_MAX_OUTSTANDING,
                  env_value(get, PAT_ENV_MAX_OUTSTANDING), 0, 1000000, &x))
    goto out;
  cfg->max_outstanding = (int)x;
  if (!parse_long(cfg, PAT_ENV_MAX_SENDS, env_value(get, PAT_ENV_MAX_SENDS), 0,
                  1000000, &x))
    goto out;
  cfg->max_sends = (int)x;
  if (!parse_bytes(cfg, PAT_ENV_SMPI_SHARED_ABOVE,
                   env_value(get, PAT_ENV_SMPI_SHARED_ABOVE),
                   &cfg->smpi_shared_above) ||
      !parse_bytes(cfg, PAT_ENV_SCRATCH_KEEP,
                   env_value(get, PAT_ENV_SCRATCH_KEEP), &cfg->scratch_keep))
    goto out;
  if (!parse_long(cfg, PAT_ENV_SCHEDULE_CACHE,
                  env_value(get, PAT_ENV_SCHEDULE_CACHE), 1,
                  PAT_MAX_SCHEDULE_CACHE, &x))
    goto out;
  cfg->schedule_cache = (int)x;
  {
    char valid[96];
    snprintf(valid, sizeof valid,
             "a segment count; valid: 0 (automatic) or 1..%d",
             PAT_MAX_SEGMENTS);
    if (!parse_long_as(cfg, PAT_ENV_SEGMENTS, env_value(get, PAT_ENV_SEGMENTS),
                       0, PAT_MAX_SEGMENTS, valid, &x))
      goto out;
    cfg->segments = (int)x;
  }
  /* each algorithm parses its own tunables into its block */
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
    const pat_alg_row *row = pat_alg_table[i];
    if (row->parse == NULL)
      continue;
    if (row->config_size > PAT_ALG_CONFIG_BYTES) {
      snprintf(cfg->why, sizeof cfg->why,
               "algorithm %s keeps %zu bytes of tunables, more than "
               "PAT_ALG_CONFIG_BYTES (%d)",
               row->name, row->config_size, PAT_ALG_CONFIG_BYTES);
      cfg->error = PAT_ERR_BAD_ENV;
      goto out;
    }
    if (row->parse(cfg->alg[i], get, cfg->why, sizeof cfg->why) !=
        PAT_SUCCESS) {
      cfg->error = PAT_ERR_BAD_ENV;
      goto out;
    }
  }
out:
  pat_predictor_free(probe);
}

static const char *process_getenv(const char *name) { return getenv(name); }

/* The configuration is parsed once, by the first thread that needs it,
 * under config_lock; loaded (release, acquire) publishes it to the others
 * with no lock on the way in.  The warnings table has a lock of its own:
 * parsing may warn. */
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  atomic_int loaded;
  pat_config cfg;
  unsigned long long warned[PAT_WARN_MAX]; /* hashes of messages printed */
  int nwarned;
} pat_config_cache;

const pat_config *pat_config_get(void) {
  if (!atomic_load_explicit(&pat_config_cache.loaded, memory_order_acquire)) {
    PAT_LOCK(&config_lock);
    if (!atomic_load_explicit(&pat_config_cache.loaded,
                              memory_order_relaxed)) {
      pat_config_parse(&pat_config_cache.cfg, process_getenv);
      atomic_store_explicit(&pat_config_cache.loaded, 1, memory_order_release);
    }
    PAT_UNLOCK(&config_lock);
  }
  return &pat_config_cache.cfg;
}

const void *pat_config_alg(const pat_config *cfg, pat_reduce_alg alg) {
  return (int)alg >= 0 && alg < PAT_REDUCE_ALG_COUNT ? cfg->alg[alg] : NULL;
}

void pat_reduce_config_reload(void) {
  PAT_LOCK(&config_lock);
  atomic_store_explicit(&pat_config_cache.loaded, 0, memory_order_release);
  PAT_UNLOCK(&config_lock);
  PAT_LOCK(&warn_lock);
  pat_config_cache.nwarned = 0;
  PAT_UNLOCK(&warn_lock);
}

/* FNV-1a: messages are told apart by their text. */
static unsigned long long bytes_hash(unsigned long long h, const void *p,
                                     size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
  return h;
}

static unsigned long long text_hash(const char *s) {
  return bytes_hash(0xcbf29ce484222325ull, s, strlen(s));
}

int pat_config_fingerprints(const pat_env_var **vars, unsigned long long *hash,
                            int max) {
  const pat_env_var *all[PAT_ENV_MAX];
  const pat_config *cfg = pat_config_get();
  int n = pat_env_all(all, PAT_ENV_MAX), k = 0;
  for (int i = 0; i < n && i < PAT_ENV_MAX && k < max; i++) {
    const char *v = getenv(all[i]->name);
    unsigned long long h;
    if (all[i]->local)
      continue;
    h = text_hash(v != NULL && v[0] != '\0' ? v : all[i]->fallback);
    if (all[i] == &pat_env_table[PAT_ENV_MODEL] && cfg->has_model)
      h = bytes_hash(h, &cfg->model, sizeof cfg->model);
    vars[k] = all[i];
    hash[k++] = h;
  }
  return k;
}

void pat_warn_once(const char *fmt, ...) {
  char msg[1024];
  unsigned long long h;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  h = text_hash(msg);
  PAT_LOCK(&warn_lock);
  for (int i = 0; i < pat_config_cache.nwarned; i++)
    if (pat_config_cache.warned[i] == h)
      goto out;
  if (pat_config_cache.nwarned < PAT_WARN_MAX)
    pat_config_cache.warned[pat_config_cache.nwarned++] = h;
  fprintf(stderr, "patreduce: %s\n", msg);
  fflush(stderr);
out:
  PAT_UNLOCK(&warn_lock);
}
