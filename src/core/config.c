/*
 * Configuration from the environment, parsed once per process and cached
 * (the only mutable global state besides the attribute keyvals).  A bad
 * value is not ignored: it is kept as an error that every call reports.
 */
#include <ctype.h>
#include <stdarg.h>
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
         "0 quiet; 1 report each fallback once; 2 also report every call "
         "(rank, call number, algorithm) on stderr"},
};

static const char *env_value(const char *(*get)(const char *), int index) {
  const char *v = get(pat_env_table[index].name);
  if (v == NULL || v[0] == '\0')
    v = pat_env_table[index].fallback;
  return v;
}

void pat_config_parse(pat_config *cfg, const char *(*get)(const char *name)) {
  const char *alg = env_value(get, PAT_ENV_ALGORITHM);
  const char *verbose = env_value(get, PAT_ENV_VERBOSE);
  char names[256];
  char *end = NULL;
  long level;

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
  level = strtol(verbose, &end, 10);
  if (!isdigit((unsigned char)verbose[0]) || *end != '\0' || level > 2) {
    snprintf(cfg->why, sizeof cfg->why,
             "%s=%s is not a verbosity level; valid: 0, 1, 2",
             pat_env_table[PAT_ENV_VERBOSE].name, verbose);
    cfg->error = PAT_ERR_BAD_ENV;
    goto out;
  }
  cfg->verbose = (int)level;
out:
  return;
}

static const char *process_getenv(const char *name) { return getenv(name); }

static struct {
  int loaded;
  pat_config cfg;
  unsigned long long warned; /* one bit per pat_warn_once key */
} pat_config_cache;

const pat_config *pat_config_get(void) {
  if (!pat_config_cache.loaded) {
    pat_config_parse(&pat_config_cache.cfg, process_getenv);
    pat_config_cache.loaded = 1;
  }
  return &pat_config_cache.cfg;
}

void pat_reduce_config_reload(void) {
  pat_config_cache.loaded = 0;
  pat_config_cache.warned = 0;
}

void pat_warn_once(int key, const char *fmt, ...) {
  unsigned long long bit = 1ull << (key & 63);
  va_list ap;
  if (pat_config_cache.warned & bit)
    return;
  pat_config_cache.warned |= bit;
  va_start(ap, fmt);
  fputs("patreduce: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  fflush(stderr);
  va_end(ap);
}
