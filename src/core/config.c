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

/* PAT_REDUCE_PLAN_MEMO's default: a process of one rank shares nothing,
 * so little; an SMPI process holds every simulated rank (memo.c). */
#ifdef PATREDUCE_SMPI
#define PAT_PLAN_MEMO_DEFAULT "1G"
#else
#define PAT_PLAN_MEMO_DEFAULT "16M"
#endif

const pat_env_var pat_env_table[PAT_ENV_COUNT] = {
    [PAT_ENV_ALGORITHM] = {"PAT_REDUCE_ALGORITHM", "binomial",
                           "algorithm used by pat_reduce() and the MPI_Reduce "
                           "override: a name from the algorithm table "
                           "(case-insensitive), or a comma-separated list of "
                           "them for auto to pick from (^ first: all but "
                           "those)",
                           0, PAT_SCOPE_ALL},
    [PAT_ENV_RULES] = {"PAT_REDUCE_RULES", "",
                       "a rules file: per line a range of communicator "
                       "sizes, of message sizes per rank, an algorithm "
                       "(as PAT_REDUCE_ALGORITHM) and VAR=value settings; "
                       "the first matching line serves a call of "
                       "pat_reduce or MPI_Reduce, PAT_REDUCE_ALGORITHM the "
                       "others",
                       0, PAT_SCOPE_ALL},
    [PAT_ENV_VERBOSE] =
        {"PAT_REDUCE_VERBOSE", "0",
         "0 quiet; 1 one line per communicator at its first call (rank 0: "
         "the algorithm that served it), each fallback once, and at "
         "MPI_Finalize rank 0's calls per algorithm and fallbacks; 2 also "
         "every call (rank, call number, count, root, algorithm); 3 also "
         "why auto chose each call's row (rank 0: its state, scores and "
         "pace); on stderr",
         1, PAT_SCOPE_ALL},
    [PAT_ENV_PREDICTOR] = {"PAT_REDUCE_PREDICTOR", "cycle:5",
                           "arrival-time predictor of the clairvoyant "
                           "algorithm and auto: a name from the predictor "
                           "table (cycle:W, sma:W, ema:A, trend:W, last, "
                           "best; patreduce_info lists them)",
                           0, PAT_SCOPE_ARRIVALS},
    [PAT_ENV_EXCHANGE_INTERVAL] = {"PAT_REDUCE_EXCHANGE_INTERVAL", "auto",
                                   "exchange the arrival stamps every N "
                                   "calls (N >= 1); 0: never (the "
                                   "predictor then sees no arrivals); "
                                   "auto: every call, every 8th for "
                                   "messages whose round cost is under "
                                   "10 latencies",
                                   0, PAT_SCOPE_ARRIVALS},
    [PAT_ENV_EXCHANGE_LAG] = {"PAT_REDUCE_EXCHANGE_LAG", "0",
                              "an exchange started in call k is completed "
                              "and used in call k + L (1 <= L <= 64); 0: "
                              "automatic, the calls its rounds need: "
                              "ceil(log2 P) for messages whose round cost "
                              "is under 10 latencies, else "
                              "ceil(ceil(log2 P) / 2)",
                              0, PAT_SCOPE_ARRIVALS},
    [PAT_ENV_CLOCK_REFRESH] = {"PAT_REDUCE_CLOCK_REFRESH", "0",
                               "re-estimate the clock offsets to rank 0 "
                               "every N calls (0: only at first use); a "
                               "refresh is a blocking ping-pong of every "
                               "rank with rank 0 at the end of a call; "
                               "unused when MPI_WTIME_IS_GLOBAL is set",
                               0, PAT_SCOPE_ARRIVALS},
    [PAT_ENV_MODEL] = {"PAT_REDUCE_MODEL", "",
                       "round-cost model file (alpha, beta, gamma) of the "
                       "algorithms that plan with a cost model; default: "
                       "measured (clairvoyant), else CURIE-like",
                       0, PAT_SCOPE_MODEL},
    [PAT_ENV_ROUND_COST] = {"PAT_REDUCE_ROUND_COST", "",
                            "a constant cost per message (a time > 0: 2.5us), "
                            "whatever its size (alpha = c, beta = gamma = "
                            "0); overrides PAT_REDUCE_MODEL",
                            0, PAT_SCOPE_ARRIVALS},
    [PAT_ENV_MAX_OUTSTANDING] = {"PAT_REDUCE_MAX_OUTSTANDING", "1",
                                 "schedule executor: a receive of a later "
                                 "round than the earliest unfinished one is "
                                 "posted only while fewer receives are in "
                                 "flight (0..1000000); those of that round "
                                 "are always posted",
                                 0, PAT_SCOPE_SCHEDULE},
    [PAT_ENV_MAX_SENDS] = {"PAT_REDUCE_MAX_SENDS", "4",
                           "schedule executor: a send of a later round "
                           "than the earliest unfinished one is posted "
                           "only while fewer sends are in flight "
                           "(0..1000000); those of that round are always "
                           "posted",
                           0, PAT_SCOPE_SCHEDULE},
    [PAT_ENV_SMPI_SHARED_ABOVE] = {"PAT_REDUCE_SMPI_SHARED_ABOVE", "0",
                                   "SMPI build only: temporaries of more "
                                   "than this many bytes (8M) come from "
                                   "SMPI_SHARED_MALLOC (one block shared by "
                                   "all ranks: simulated times stay right, "
                                   "results do not); 0: never",
                                   1, PAT_SCOPE_ALL},
    [PAT_ENV_SCRATCH_KEEP] = {"PAT_REDUCE_SCRATCH_KEEP", "67108864",
                              "most bytes (64M) of temporaries, and of "
                              "executor state, that each communicator "
                              "keeps between calls (larger needs are "
                              "allocated and freed per call); 0: none",
                              1, PAT_SCOPE_ALL},
    [PAT_ENV_SCHEDULE_CACHE] = {"PAT_REDUCE_SCHEDULE_CACHE", "16",
                                "schedules each communicator keeps for "
                                "reuse, least recently used dropped first "
                                "(1..4096): calls that alternate between "
                                "roots, counts or algorithms (IMB rotates "
                                "the root) reuse theirs",
                                1, PAT_SCOPE_SCHEDULE},
    [PAT_ENV_PLAN_MEMO] = {"PAT_REDUCE_PLAN_MEMO", PAT_PLAN_MEMO_DEFAULT,
                           "most bytes (16M; SMPI build 1G) of plans kept "
                           "for the process, so that its ranks (SMPI: all "
                           "simulated ranks) planning from the same inputs "
                           "plan once; the least recently used dropped "
                           "first; 0: none",
                           1, PAT_SCOPE_ARRIVALS},
    [PAT_ENV_SEGMENTS] = {"PAT_REDUCE_SEGMENTS", "0",
                          "segmenting algorithms (pipeline, clairvoyant): "
                          "number of segments the message is cut into "
                          "(1..16384, at most the count; clairvoyant at "
                          "most 1024); 0 = automatic, each algorithm's "
                          "choice under the cost model",
                          0, PAT_SCOPE_SEGMENTS},
    [PAT_ENV_CORES] = {"PAT_REDUCE_CORES", "auto",
                       "whether the ranks share cores (more of a "
                       "communicator's ranks on a node than CPUs they may "
                       "run on), where binomial then serves auto's calls: "
                       "auto (found at auto's first call on a "
                       "communicator), own (never), shared (always)",
                       0, PAT_SCOPE_ALL},
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

const char *pat_env_value(const pat_env_var *var,
                          const char *(*get)(const char *)) {
  const char *v = get(var->name);
  return v == NULL || v[0] == '\0' ? var->fallback : v;
}

static const char *env_value(const char *(*get)(const char *), int index) {
  return pat_env_value(&pat_env_table[index], get);
}

/* Records a bad value in scope: its message is the scope's first one
 * and, if no value was bad before, the configuration's.  Parsing goes on,
 * the variable keeping its fallback, so that every bad value is known. */
static void bad(pat_config *cfg, int scope, const char *fmt, ...) {
  char msg[sizeof cfg->why];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!(cfg->bad & PAT_SCOPE_BIT(scope)))
    snprintf(cfg->scope_why[scope], sizeof cfg->scope_why[scope], "%s", msg);
  if (cfg->error == PAT_SUCCESS)
    snprintf(cfg->why, sizeof cfg->why, "%s", msg);
  cfg->bad |= PAT_SCOPE_BIT(scope);
  cfg->error = PAT_ERR_BAD_ENV;
}

const char *pat_config_bad(const pat_config *cfg, unsigned long long scopes) {
  unsigned long long hit = cfg->bad & scopes;
  const char *why = NULL;
  for (int s = 0; s < PAT_SCOPE_COUNT && why == NULL; s++)
    if (hit & PAT_SCOPE_BIT(s))
      why = cfg->scope_why[s];
  return why;
}

/* A size in bytes (units.c: 64K, 4M) or an error naming the variable and
 * the valid values. */
static int parse_bytes(pat_config *cfg, const char *(*get)(const char *),
                       int var, long *out) {
  const char *v = env_value(get, var);
  long long b = 0;
  if (pat_parse_bytes(v, LONG_MAX, &b) == 1) {
    *out = (long)b;
    return 1;
  }
  pat_parse_bytes(pat_env_table[var].fallback, LONG_MAX, &b);
  *out = (long)b;
  bad(cfg, pat_env_table[var].scope,
      "%s=%s is not a size in bytes; valid: a whole number >= 0 with an "
      "optional K, M or G suffix (powers of 1024), e.g. 64M",
      pat_env_table[var].name, v);
  return 0;
}

/* An integer in [lo, hi] or an error naming the variable and the valid
 * values: "is not <valid>", by default "an integer in lo..hi". */
static int parse_long_as(pat_config *cfg, const char *(*get)(const char *),
                         int var, long lo, long hi, const char *valid,
                         long *out) {
  const char *v = env_value(get, var);
  char *end = NULL;
  long x = isdigit((unsigned char)v[0]) ? strtol(v, &end, 10) : lo - 1;
  if (end == NULL || *end != '\0' || x < lo || x > hi) {
    *out = strtol(pat_env_table[var].fallback, NULL, 10);
    if (valid != NULL)
      bad(cfg, pat_env_table[var].scope, "%s=%s is not %s",
          pat_env_table[var].name, v, valid);
    else
      bad(cfg, pat_env_table[var].scope, "%s=%s is not an integer in %ld..%ld",
          pat_env_table[var].name, v, lo, hi);
    return 0;
  }
  *out = x;
  return 1;
}

/* As parse_long_as, into an int. */
static void parse_int(pat_config *cfg, const char *(*get)(const char *),
                      int var, long lo, long hi, const char *valid, int *out) {
  long x;
  parse_long_as(cfg, get, var, lo, hi, valid, &x);
  *out = (int)x;
}

/* PAT_REDUCE_ALGORITHM: one row's name; or a comma-separated list of rows
 * (auto picks among them) or of rows after a '^' (auto picks among the
 * others), NCCL's way.  auto itself cannot be listed. */
static void parse_algorithm(pat_config *cfg, const char *v) {
  const char *name = pat_env_table[PAT_ENV_ALGORITHM].name, *p;
  char msg[sizeof cfg->why];
  int except = v[0] == '^', n = 0;
  unsigned long long listed = 0;
  cfg->candidates = ~0ull;
  if (strchr(v, ',') == NULL && !except) {
    if (pat_reduce_algorithm_lookup(v, &cfg->algorithm) != PAT_SUCCESS) {
      pat_alg_names(msg, sizeof msg);
      bad(cfg, PAT_SCOPE_ALL,
          "%s=%s is not an algorithm; valid: %s, or a list of them for auto "
          "to pick from (binomial,clairvoyant; ^ring,pipeline: all but those)",
          name, v, msg);
    }
    return;
  }
  for (p = v + except; *p != '\0' || n == 0; n++) {
    size_t len = strcspn(p, ",");
    char one[64];
    pat_reduce_alg id;
    snprintf(one, sizeof one, "%.*s", (int)(len < 63 ? len : 63), p);
    if (len == 0 || len > 63 ||
        pat_reduce_algorithm_lookup(one, &id) != PAT_SUCCESS ||
        pat_alg_table[id]->choose != NULL) {
      pat_alg_names(msg, sizeof msg);
      bad(cfg, PAT_SCOPE_ALL,
          "%s=%s: '%s' is not an algorithm auto can pick; valid in a list: "
          "the names of %s but auto, comma-separated, after an optional ^",
          name, v, one, msg);
      return;
    }
    listed |= 1ull << id;
    p += len + (p[len] == ',');
    if (p[-1] == ',' && *p == '\0') {
      bad(cfg, PAT_SCOPE_ALL, "%s=%s ends with a comma", name, v);
      return;
    }
  }
  cfg->algorithm = PAT_REDUCE_ALG_AUTO;
  cfg->candidates = except ? ~listed : listed;
}

/* PAT_REDUCE_CORES: auto, own or shared (any case). */
static void parse_cores(pat_config *cfg, const char *(*get)(const char *)) {
  static const char *const modes[] = {[PAT_CORES_DETECT] = "auto",
                                      [PAT_CORES_OWN] = "own",
                                      [PAT_CORES_SHARED] = "shared"};
  _Static_assert(sizeof modes / sizeof modes[0] == PAT_CORES_SHARED + 1,
                 "a name per PAT_REDUCE_CORES mode");
  const char *v = env_value(get, PAT_ENV_CORES);
  for (int m = 0; m < (int)(sizeof modes / sizeof modes[0]); m++)
    if (strcasecmp(v, modes[m]) == 0) {
      cfg->cores = (pat_cores_mode)m;
      return;
    }
  cfg->cores = PAT_CORES_DETECT;
  bad(cfg, pat_env_table[PAT_ENV_CORES].scope,
      "%s=%s is not a mode; valid: auto (found at auto's first call on a "
      "communicator), own (ranks never share cores), shared (always)",
      pat_env_table[PAT_ENV_CORES].name, v);
}

void pat_config_parse(pat_config *cfg, const char *(*get)(const char *name)) {
  const char *alg, *rules, *predictor, *model, *cost;
  char msg[sizeof cfg->why], valid[96];
  pat_predictor *probe = NULL;

  memset(cfg, 0, sizeof *cfg);
  cfg->algorithm = PAT_REDUCE_ALG_BINOMIAL;
  cfg->error = PAT_SUCCESS;
  alg = env_value(get, PAT_ENV_ALGORITHM);
  predictor = env_value(get, PAT_ENV_PREDICTOR);
  model = env_value(get, PAT_ENV_MODEL);
  cost = env_value(get, PAT_ENV_ROUND_COST);

  parse_algorithm(cfg, alg);
  rules = get(pat_env_table[PAT_ENV_RULES].name);
  if (rules != NULL && rules[0] != '\0' &&
      pat_rules_read(rules, get, &cfg->rules, msg, sizeof msg) != PAT_SUCCESS)
    bad(cfg, PAT_SCOPE_ALL, "%s", msg);
  parse_int(cfg, get, PAT_ENV_VERBOSE, 0, 3, NULL, &cfg->verbose);
  snprintf(cfg->predictor, sizeof cfg->predictor, "%s",
           pat_env_table[PAT_ENV_PREDICTOR].fallback);
  if (strlen(predictor) >= sizeof cfg->predictor)
    bad(cfg, PAT_SCOPE_ARRIVALS, "%s=%.40s... is longer than %zu characters",
        pat_env_table[PAT_ENV_PREDICTOR].name, predictor,
        sizeof cfg->predictor - 1);
  else if (pat_predictor_alloc(predictor, 1, &probe, msg, sizeof msg) !=
           PAT_SUCCESS)
    bad(cfg, PAT_SCOPE_ARRIVALS, "%s", msg);
  else
    snprintf(cfg->predictor, sizeof cfg->predictor, "%s", predictor);
  {
    long every = -1; /* auto, also when the value is bad */
    if (strcasecmp(env_value(get, PAT_ENV_EXCHANGE_INTERVAL), "auto") != 0 &&
        !parse_long_as(cfg, get, PAT_ENV_EXCHANGE_INTERVAL, 0, 1000000,
                       "an interval; valid: auto, 0 (never) or 1..1000000",
                       &every))
      every = -1;
    cfg->exchange_interval = (int)every;
  }
  parse_int(cfg, get, PAT_ENV_EXCHANGE_LAG, 0, 64, NULL, &cfg->exchange_lag);
  parse_long_as(cfg, get, PAT_ENV_CLOCK_REFRESH, 0, 1000000000, NULL,
                &cfg->clock_refresh);
  if (model[0] != '\0') {
    if (pat_model_read(model, &cfg->model, msg, sizeof msg) == PAT_SUCCESS)
      cfg->has_model = 1;
    else
      bad(cfg, PAT_SCOPE_MODEL, "%s", msg);
  }
  if (cost[0] != '\0' &&
      (!pat_parse_seconds(cost, &cfg->round_cost) || !(cfg->round_cost > 0))) {
    cfg->round_cost = 0;
    bad(cfg, pat_env_table[PAT_ENV_ROUND_COST].scope,
        "%s=%s is not a time > 0; valid: a number with an optional unit s, "
        "ms, us or ns (none: seconds), e.g. 2.5us",
        pat_env_table[PAT_ENV_ROUND_COST].name, cost);
  }
  parse_int(cfg, get, PAT_ENV_MAX_OUTSTANDING, 0, 1000000, NULL,
            &cfg->max_outstanding);
  parse_int(cfg, get, PAT_ENV_MAX_SENDS, 0, 1000000, NULL, &cfg->max_sends);
  parse_bytes(cfg, get, PAT_ENV_SMPI_SHARED_ABOVE, &cfg->smpi_shared_above);
  parse_bytes(cfg, get, PAT_ENV_SCRATCH_KEEP, &cfg->scratch_keep);
  parse_int(cfg, get, PAT_ENV_SCHEDULE_CACHE, 1, PAT_MAX_SCHEDULE_CACHE, NULL,
            &cfg->schedule_cache);
  parse_bytes(cfg, get, PAT_ENV_PLAN_MEMO, &cfg->plan_memo);
  snprintf(valid, sizeof valid,
           "a segment count; valid: 0 (automatic) or 1..%d", PAT_MAX_SEGMENTS);
  parse_int(cfg, get, PAT_ENV_SEGMENTS, 0, PAT_MAX_SEGMENTS, valid,
            &cfg->segments);
  parse_cores(cfg, get);
  /* each algorithm parses its own tunables into its block */
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
    const pat_alg_row *row = pat_alg_table[i];
    if (row->parse == NULL)
      continue;
    if (row->config_size > PAT_ALG_CONFIG_BYTES)
      bad(cfg, PAT_SCOPE_ROWS + i,
          "algorithm %s keeps %zu bytes of tunables, more than "
          "PAT_ALG_CONFIG_BYTES (%d)",
          row->name, row->config_size, PAT_ALG_CONFIG_BYTES);
    else if (row->parse(cfg->alg[i], get, msg, sizeof msg) != PAT_SUCCESS)
      bad(cfg, PAT_SCOPE_ROWS + i, "%s", msg);
  }
  pat_predictor_free(probe);
}

const char *pat_process_getenv(const char *name) { return getenv(name); }

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

/* The configuration a rule's call runs with, per thread, and how many
 * pushes are in force in the process: while none is, pat_config_get
 * reads no thread-local (in a shared library each read is a call to
 * __tls_get_addr; auto reads the configuration a dozen times per call,
 * 9% of an 8 B call at P = 2).  A thread's own pushes are counted before
 * it reads, so it never misses its pushed configuration. */
static _Thread_local const pat_config *pushed;
static atomic_int pushes;
static atomic_ulong reloads;

const pat_config *pat_config_push(const pat_config *cfg) {
  const pat_config *previous = pushed;
  atomic_fetch_add_explicit(&pushes, 1, memory_order_relaxed);
  pushed = cfg;
  return previous;
}

void pat_config_pop(const pat_config *previous) {
  pushed = previous;
  atomic_fetch_sub_explicit(&pushes, 1, memory_order_relaxed);
}

const pat_config *pat_config_process(void) {
  if (!atomic_load_explicit(&pat_config_cache.loaded, memory_order_acquire)) {
    PAT_LOCK(&config_lock);
    if (!atomic_load_explicit(&pat_config_cache.loaded, memory_order_relaxed)) {
      pat_rules_free(pat_config_cache.cfg.rules); /* a reload's */
      pat_config_parse(&pat_config_cache.cfg, pat_process_getenv);
      atomic_store_explicit(&pat_config_cache.loaded, 1, memory_order_release);
    }
    PAT_UNLOCK(&config_lock);
  }
  return &pat_config_cache.cfg;
}

const pat_config *pat_config_get(void) {
  if (atomic_load_explicit(&pushes, memory_order_relaxed) == 0)
    return pat_config_process();
  return pushed != NULL ? pushed : pat_config_process();
}

const void *pat_config_alg(const pat_config *cfg, pat_reduce_alg alg) {
  return (int)alg >= 0 && alg < PAT_REDUCE_ALG_COUNT ? cfg->alg[alg] : NULL;
}

unsigned long pat_config_generation(void) {
  return atomic_load_explicit(&reloads, memory_order_acquire);
}

void pat_reduce_config_reload(void) {
  PAT_LOCK(&config_lock);
  atomic_store_explicit(&pat_config_cache.loaded, 0, memory_order_release);
  atomic_fetch_add_explicit(&reloads, 1, memory_order_release);
  PAT_UNLOCK(&config_lock);
  PAT_LOCK(&warn_lock);
  pat_config_cache.nwarned = 0;
  PAT_UNLOCK(&warn_lock);
}

/* FNV-1a: messages are told apart by their text. */
unsigned long long pat_hash_bytes(unsigned long long h, const void *p,
                                  size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
  return h;
}

static unsigned long long text_hash(const char *s) {
  return pat_hash_bytes(PAT_HASH_INIT, s, strlen(s));
}

int pat_config_fingerprints(const pat_env_var **vars, unsigned long long *hash,
                            int max) {
  const pat_env_var *all[PAT_ENV_MAX];
  const pat_config *cfg = pat_config_process(); /* not a rule's */
  int n = pat_env_all(all, PAT_ENV_MAX), k = 0;
  for (int i = 0; i < n && i < PAT_ENV_MAX && k < max; i++) {
    unsigned long long h;
    if (all[i]->local)
      continue;
    h = text_hash(pat_env_value(all[i], pat_process_getenv));
    if (all[i] == &pat_env_table[PAT_ENV_MODEL] && cfg->has_model)
      h = pat_hash_bytes(h, &cfg->model, sizeof cfg->model);
    if (all[i] == &pat_env_table[PAT_ENV_RULES] && cfg->rules != NULL) {
      unsigned long long file = pat_rules_hash(cfg->rules);
      h = pat_hash_bytes(h, &file, sizeof file);
    }
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
