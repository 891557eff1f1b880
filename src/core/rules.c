/*
 * PAT_REDUCE_RULES: a file of rules that pin the algorithm (and any of
 * its settings) by communicator size and message size, as Open MPI's
 * dynamic rules file and MPICH's JSON tuning files do.
 *
 * Format: one rule per line, '#' starts a comment, blank lines are
 * skipped.  A rule is whitespace-separated fields:
 *
 *   RANKS  BYTES  ALGORITHM  [VAR=value ...]
 *
 *   RANKS      communicator sizes: N, N-M, N- (N and up) or * (any)
 *   BYTES      message sizes per rank (count x the datatype's size), the
 *              same forms, with K, M, G suffixes: 0-64K, 1M-, *
 *   ALGORITHM  what PAT_REDUCE_ALGORITHM takes: a row, auto, a list for
 *              auto to pick from (binomial,ring) or ^ to leave rows out
 *   VAR=value  a setting for the calls this rule serves, as the variable
 *              PAT_REDUCE_VAR (the prefix may be written or not):
 *              SEGMENTS=8, RADIXK=4,8, MAX_SENDS=2; not ALGORITHM
 *              (that is the third field), RULES, nor the PAT layer's
 *              (PREDICTOR, EXCHANGE_*, CLOCK_REFRESH, MODEL, ROUND_COST),
 *              which a communicator's PAT state keeps for its life
 *
 * The first rule that matches a call of pat_reduce() or MPI_Reduce serves
 * it; a call no rule matches uses PAT_REDUCE_ALGORITHM.  pat_reduce_using
 * and the per-algorithm entry points name their algorithm and ignore the
 * rules.  For an intercommunicator RANKS is the local group's size.
 *
 * Each rule's settings are parsed once, when the configuration is, into a
 * whole configuration of their own (the environment with the rule's
 * values over it), so a bad value is an error at parse time, reported as
 * FILE:LINE: and the reason; a call the rule serves runs with that
 * configuration (pat_config_get returns it while the call runs,
 * pat_config_push).  The file's contents are part of the settings every
 * rank must share (the agreement at a communicator's first call).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pat_internal.h"

#define PREFIX "PAT_REDUCE_"
#define MAX_LINE 1024
#define MAX_SETTINGS 16

typedef struct pat_rule {
  long long ranks_lo, ranks_hi; /* inclusive */
  long long bytes_lo, bytes_hi; /* inclusive */
  int line;
  pat_config *cfg;
} pat_rule;

struct pat_rules {
  int n;
  unsigned long long hash; /* of the file's bytes */
  pat_rule rule[PAT_MAX_RULES];
};

/* The settings a rule's configuration is parsed with: its own values over
 * the outer getter's (one parse at a time per thread). */
typedef struct layer {
  const char *(*outer)(const char *name);
  int n;
  char name[MAX_SETTINGS][64];
  const char *value[MAX_SETTINGS];
} layer;

static _Thread_local const layer *current;

static const char *layered_get(const char *name) {
  for (int i = 0; i < current->n; i++)
    if (strcmp(current->name[i], name) == 0)
      return current->value[i];
  if (strcmp(name, PREFIX "RULES") == 0)
    return ""; /* a rule's configuration has no rules of its own */
  return current->outer(name);
}

/* One end of a range: a size in bytes (units.c) or an integer >= 1. */
static int parse_bound(const char *text, int bytes, long long max,
                       long long *out) {
  char *end = NULL;
  if (bytes)
    return pat_parse_bytes(text, max, out) == 1;
  errno = 0;
  *out = isdigit((unsigned char)text[0]) ? strtoll(text, &end, 10) : -1;
  return end != NULL && *end == '\0' && errno == 0 && *out >= 1 && *out <= max;
}

/* A range field: *, N, N-, N-M (lo <= hi), with sizes in bytes when bytes
 * is set. */
static int parse_range(const char *f, int bytes, long long *lo, long long *hi) {
  char a[64], *dash;
  long long max = bytes ? LLONG_MAX : INT_MAX;
  if (strcmp(f, "*") == 0) {
    *lo = bytes ? 0 : 1;
    *hi = max;
    return 1;
  }
  if (strlen(f) >= sizeof a)
    return 0;
  strcpy(a, f);
  dash = strchr(a, '-');
  if (dash != NULL)
    *dash = '\0';
  if (!parse_bound(a, bytes, max, lo))
    return 0;
  if (dash == NULL)
    *hi = *lo;
  else if (dash[1] == '\0')
    *hi = max;
  else if (strchr(dash + 1, '-') != NULL ||
           !parse_bound(dash + 1, bytes, max, hi))
    return 0;
  return *lo <= *hi;
}

/* The variable name (with the prefix) stands for, or NULL. */
static const pat_env_var *variable(const char *name) {
  const pat_env_var *all[PAT_ENV_MAX];
  int n = pat_env_all(all, PAT_ENV_MAX);
  for (int i = 0; i < n && i < PAT_ENV_MAX; i++)
    if (strcmp(all[i]->name, name) == 0)
      return all[i];
  return NULL;
}

/* A rule may set a variable a call reads.  Not ALGORITHM (the third
 * field), RULES, nor what the PAT layer reads (PAT_SCOPE_ARRIVALS) or
 * plans with (PAT_SCOPE_MODEL): it keeps those for a communicator's
 * life, from the environment, whatever call comes first. */
static int settable(const pat_env_var *v) {
  return v != NULL && v != &pat_env_table[PAT_ENV_ALGORITHM] &&
         v != &pat_env_table[PAT_ENV_RULES] && v->scope != PAT_SCOPE_ARRIVALS &&
         v->scope != PAT_SCOPE_MODEL;
}

/* Writes why a range field is bad; returns 0. */
static int bad_range(char *why, size_t len, const char *field, const char *what,
                     const char *forms) {
  snprintf(why, len, "'%s' is not a range of %s; valid: N, N-M, N- or * %s",
           field, what, forms);
  return 0;
}

/* Parses one rule's fields (f[0..nf-1]) into r; 0 and why on an error. */
static int parse_rule(char **f, int nf, const char *(*get)(const char *),
                      pat_rule *r, char *why, size_t len) {
  layer l = {.outer = get};
  if (nf < 3) {
    snprintf(why, len,
             "a rule is RANKS BYTES ALGORITHM [VAR=value ...], this line "
             "has %d field%s",
             nf, nf == 1 ? "" : "s");
    return 0;
  }
  if (!parse_range(f[0], 0, &r->ranks_lo, &r->ranks_hi))
    return bad_range(why, len, f[0], "communicator sizes", "(N >= 1, N <= M)");
  if (!parse_range(f[1], 1, &r->bytes_lo, &r->bytes_hi))
    return bad_range(why, len, f[1], "message sizes",
                     "in bytes with an optional K, M or G suffix (0-64K, "
                     "1M-)");
  snprintf(l.name[l.n], sizeof l.name[l.n], PREFIX "ALGORITHM");
  l.value[l.n++] = f[2];
  for (int i = 3; i < nf; i++) {
    char *eq = strchr(f[i], '=');
    if (eq == NULL || eq == f[i]) {
      snprintf(why, len, "'%s' is not a setting; valid: VAR=value", f[i]);
      return 0;
    }
    if (l.n == MAX_SETTINGS) {
      snprintf(why, len, "more than %d settings in one rule", MAX_SETTINGS - 1);
      return 0;
    }
    *eq = '\0';
    snprintf(l.name[l.n], sizeof l.name[l.n], "%s%s",
             strncmp(f[i], PREFIX, strlen(PREFIX)) == 0 ? "" : PREFIX, f[i]);
    if (!settable(variable(l.name[l.n]))) {
      snprintf(why, len,
               "%s is not a setting a rule can give; valid: the "
               "PAT_REDUCE_ variables patreduce_info lists but ALGORITHM "
               "(the third field), RULES and the PAT layer's (PREDICTOR, "
               "EXCHANGE_*, CLOCK_REFRESH, MODEL, ROUND_COST: a "
               "communicator keeps those from the environment)",
               f[i]);
      return 0;
    }
    l.value[l.n++] = eq + 1;
  }
  r->cfg = malloc(sizeof *r->cfg);
  if (r->cfg == NULL) {
    snprintf(why, len, "out of memory");
    return 0;
  }
  current = &l;
  pat_config_parse(r->cfg, layered_get);
  current = NULL;
  if (r->cfg->error != PAT_SUCCESS) {
    snprintf(why, len, "%s", r->cfg->why);
    return 0;
  }
  return 1;
}

int pat_rules_read(const char *path, const char *(*get)(const char *),
                   pat_rules **out, char *why, size_t len) {
  FILE *f = fopen(path, "r");
  pat_rules *rs = NULL;
  char line[MAX_LINE + 2], msg[512];
  int lineno = 0, ok = 1;
  *out = NULL;
  if (f == NULL) {
    snprintf(why, len, "PAT_REDUCE_RULES=%s cannot be opened: %s", path,
             strerror(errno));
    return PAT_ERR_BAD_ENV;
  }
  rs = calloc(1, sizeof *rs);
  if (rs == NULL) {
    fclose(f);
    snprintf(why, len, "PAT_REDUCE_RULES=%s: out of memory", path);
    return PAT_ERR_NO_MEMORY;
  }
  rs->hash = PAT_HASH_INIT;
  while (ok && fgets(line, sizeof line, f) != NULL) {
    char *fields[3 + MAX_SETTINGS], *save = NULL, *tok;
    size_t n = strlen(line);
    int nf = 0;
    lineno++;
    rs->hash = pat_hash_bytes(rs->hash, line, n);
    if (n > MAX_LINE && line[n - 1] != '\n') {
      snprintf(msg, sizeof msg, "a line is longer than %d characters",
               MAX_LINE);
      ok = 0;
      break;
    }
    line[strcspn(line, "#\n")] = '\0';
    for (tok = strtok_r(line, " \t\r", &save); tok != NULL;
         tok = strtok_r(NULL, " \t\r", &save))
      if (nf < (int)(sizeof fields / sizeof *fields))
        fields[nf++] = tok;
      else
        nf++;
    if (nf == 0)
      continue;
    if (nf > (int)(sizeof fields / sizeof *fields)) {
      snprintf(msg, sizeof msg, "more than %d settings in one rule",
               MAX_SETTINGS - 1);
      ok = 0;
    } else if (rs->n == PAT_MAX_RULES) {
      snprintf(msg, sizeof msg, "more than %d rules", PAT_MAX_RULES);
      ok = 0;
    } else {
      pat_rule *r = &rs->rule[rs->n];
      r->line = lineno;
      ok = parse_rule(fields, nf, get, r, msg, sizeof msg);
      if (ok)
        rs->n++;
      else {
        free(r->cfg);
        r->cfg = NULL;
      }
    }
  }
  fclose(f);
  if (!ok) {
    snprintf(why, len, "%s:%d: %s", path, lineno, msg);
    pat_rules_free(rs);
    return PAT_ERR_BAD_ENV;
  }
  *out = rs;
  return PAT_SUCCESS;
}

void pat_rules_free(pat_rules *rs) {
  if (rs == NULL)
    return;
  for (int i = 0; i < rs->n; i++)
    free(rs->rule[i].cfg);
  free(rs);
}

const pat_config *pat_rules_match(const pat_rules *rs, int nranks,
                                  long long bytes, int *line) {
  for (int i = 0; rs != NULL && i < rs->n; i++) {
    const pat_rule *r = &rs->rule[i];
    if (nranks >= r->ranks_lo && nranks <= r->ranks_hi &&
        bytes >= r->bytes_lo && bytes <= r->bytes_hi) {
      if (line != NULL)
        *line = r->line;
      return r->cfg;
    }
  }
  return NULL;
}

unsigned long long pat_rules_hash(const pat_rules *rs) {
  return rs != NULL ? rs->hash : 0;
}
