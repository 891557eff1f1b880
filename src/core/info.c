/*
 * patreduce_info: prints the algorithm table with each algorithm's
 * tunables, and every environment variable the library reads, from the
 * tables themselves (no MPI run needed).
 *
 *   patreduce_info           the tables
 *   patreduce_info --check   this environment: every variable's effective
 *                            value, and each bad one with the message a
 *                            call would fail with (each variable is parsed
 *                            alone, the others at their defaults, so every
 *                            bad one is named, not only the first) and the
 *                            algorithms whose calls it fails, and
 *                            every PAT_REDUCE_* name that is no variable
 *                            (a typo the library would silently ignore);
 *                            exit 2 if anything is wrong, else 0
 *   patreduce_info --explain P m [arrivals-file]
 *                            what auto weighs: every row's estimate for P
 *                            ranks and m bytes per rank, balanced and under
 *                            the file's arrival times, and auto's pick
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auto/auto.h"
#include "core/pat_internal.h"

extern char **environ;

#define VARS_MAX 128

/* "every algorithm", or the algorithms whose calls read a variable of
 * one of scopes. */
static const char *readers(unsigned long long scopes, char *buf, size_t len) {
  size_t used = 0;
  int all = 1;
  buf[0] = '\0';
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
    if (!(pat_alg_scopes((pat_reduce_alg)a) & scopes)) {
      all = 0;
      continue;
    }
    if (used < len)
      used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                               pat_alg_table[a]->name);
  }
  return all ? "every algorithm" : used ? buf : "no algorithm";
}

static int print_tables(void) {
  char who[256];
  const pat_env_var *vars[VARS_MAX];
  int n = pat_env_all(vars, VARS_MAX);
  printf("Algorithms (PAT_REDUCE_ALGORITHM, case-insensitive):\n");
  for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
    const pat_alg_row *row = pat_alg_table[i];
    /* one line per algorithm (scripts read the names), tunables at its end */
    printf("  %-14s %s", row->name, row->description);
    for (const pat_env_var *v = row->env; v && v->name; v++)
      printf("%s%s", v == row->env ? " [tunables: " : ", ", v->name);
    printf("%s\n", row->env && row->env->name ? "]" : "");
  }
  printf("\nPredictors (PAT_REDUCE_PREDICTOR: name, or name:X where it takes "
         "X):\n");
  for (int i = 0; pat_predictor_type_name(i) != NULL; i++)
    printf("  %-14s %s\n", pat_predictor_type_name(i),
           pat_predictor_type_description(i));
  printf("\nEnvironment variables:\n");
  for (int i = 0; i < n && i < VARS_MAX; i++) {
    printf("  %-26s (default %s) %s [read by: %s]\n", vars[i]->name,
           vars[i]->fallback[0] ? vars[i]->fallback : "none",
           vars[i]->description,
           readers(PAT_SCOPE_BIT(vars[i]->scope), who, sizeof who));
  }
  return 0;
}

/* The variable parsed alone: the process's value of it, nothing else. */
static const char *alone_name;
static const char *alone_getenv(const char *name) {
  return strcmp(name, alone_name) == 0 ? getenv(name) : NULL;
}

/* Is the NAME=... entry of environ one of the library's variables? */
static int known(const char *entry, const pat_env_var *const *vars, int n) {
  size_t len = strcspn(entry, "=");
  for (int i = 0; i < n; i++)
    if (strlen(vars[i]->name) == len && strncmp(vars[i]->name, entry, len) == 0)
      return 1;
  return 0;
}

static int check(void) {
  const pat_env_var *vars[VARS_MAX];
  int n = pat_env_all(vars, VARS_MAX), bad = 0;
  pat_config *cfg = malloc(sizeof *cfg);
  if (cfg == NULL || n > VARS_MAX) {
    fprintf(stderr, "patreduce_info: out of memory\n");
    free(cfg);
    return 2;
  }
  printf("patreduce settings of this environment:\n");
  for (int i = 0; i < n; i++) {
    const char *v = getenv(vars[i]->name);
    int set = v != NULL && v[0] != '\0';
    alone_name = vars[i]->name;
    pat_config_parse(cfg, alone_getenv);
    printf("  %-29s %s%s", vars[i]->name,
           set                    ? v
           : vars[i]->fallback[0] ? vars[i]->fallback
                                  : "none",
           set ? "" : " (default)");
    if (set && cfg->error != PAT_SUCCESS) {
      char who[256];
      const char *r = readers(cfg->bad, who, sizeof who);
      printf("  BAD: %s (calls of %s fail%s)", cfg->why, r,
             strcmp(r, "every algorithm") == 0
                 ? ""
                 : "; the others say so once and ignore it");
      bad++;
    }
    printf("\n");
  }
  for (char **e = environ; e != NULL && *e != NULL; e++)
    if (strncmp(*e, "PAT_REDUCE_", 11) == 0 && !known(*e, vars, n)) {
      printf("  %.*s is not a patreduce variable (ignored); see "
             "patreduce_info for the list\n",
             (int)strcspn(*e, "="), *e);
      bad++;
    }
  printf("%s\n", bad == 0 ? "OK"
                          : "BAD SETTINGS: calls would fail, or a "
                            "setting would be ignored");
  free(cfg);
  return bad == 0 ? 0 : 2;
}

/* Reads P arrival times (seconds, optional unit: 1ms) from path into a;
 * returns 1, or 0 after saying why. */
static int read_arrivals(const char *path, double *a, int P) {
  FILE *f = fopen(path, "r");
  char word[64];
  int n = 0, ok = f != NULL;
  if (f == NULL)
    fprintf(stderr, "patreduce_info: --explain: cannot open %s\n", path);
  while (ok && fscanf(f, "%63s", word) == 1) {
    if (n >= P || !pat_parse_seconds(word, &a[n]) || !isfinite(a[n])) {
      fprintf(stderr,
              "patreduce_info: --explain: %s: '%s' (value %d) is not %s\n",
              path, word, n + 1,
              n >= P ? "expected: the file holds more than P times"
                     : "a time (a number with an optional unit s, ms, us, "
                       "ns)");
      ok = 0;
    }
    n++;
  }
  if (ok && n != P) {
    fprintf(stderr,
            "patreduce_info: --explain: %s holds %d times, not P = %d\n", path,
            n, P);
    ok = 0;
  }
  if (f != NULL)
    fclose(f);
  return ok;
}

/* What auto weighs for P ranks and m bytes per rank (doubles, a
 * commutative op, root 0) under the configured model: every row's
 * estimate, balanced and under the arrivals, and auto's two picks. */
static int explain(const char *ranks, const char *bytes, const char *file) {
  long long m = 0;
  char *end = NULL;
  long P = strtol(ranks, &end, 10);
  double *a = NULL;
  int rc = 2, sw;
  pat_auto *au = NULL;
  if (end == ranks || *end != '\0' || P < 1 || P > 1 << 20) {
    fprintf(stderr,
            "patreduce_info: --explain: P=%s is not a rank count; "
            "valid: 1..1048576\n",
            ranks);
    return 2;
  }
  if (pat_parse_bytes(bytes, 1LL << 40, &m) != 1 || m < 8) {
    fprintf(stderr,
            "patreduce_info: --explain: m=%s is not a message size; "
            "valid: bytes >= 8 (doubles) with an optional K, M or G\n",
            bytes);
    return 2;
  }
  a = calloc((size_t)P, sizeof *a);
  if (a == NULL || (file != NULL && !read_arrivals(file, a, (int)P)))
    goto out;
  {
    const pat_config *cfg = pat_config_get();
    pat_sched_params p = {.nranks = (int)P,
                          .root = 0,
                          .count = (int)(m / 8),
                          .commutative = 1,
                          .model = *pat_config_model(cfg),
                          .elem_size = 8,
                          .arrivals = a};
    pat_call_props props = {
        .commutative = 1, .contiguous = 1, .count = p.count};
    pat_reduce_alg aware, blind;
    if (cfg->error != PAT_SUCCESS)
      printf("(a bad setting: %s)\n", cfg->why);
    printf("P = %ld, %lld B per rank (%d doubles, MPI_SUM, root 0), model "
           "alpha %.4g s, beta %.4g s/B, gamma %.4g s/B%s\n",
           P, m, p.count, p.model.alpha, p.model.beta, p.model.gamma,
           cfg->has_model ? " (PAT_REDUCE_MODEL)" : " (CURIE-like reference)");
    printf("arrivals: %s\n\n", file != NULL ? file : "balanced");
    printf("  %-14s %14s %14s\n", "row", "balanced (s)",
           file != NULL ? "arrivals (s)" : "");
    for (int i = 0; i < PAT_REDUCE_ALG_COUNT; i++) {
      const pat_alg_row *row = pat_alg_table[i];
      pat_sched_params q = p;
      q.arrivals = NULL;
      if (row->estimate == NULL) {
        if (row->choose == NULL)
          printf("  %-14s %14s\n", row->name, "(no estimate)");
        continue;
      }
      printf("  %-14s %14.4g", row->name, row->estimate(&q));
      if (file != NULL)
        printf(" %14.4g", row->estimate(&p));
      printf("\n");
    }
    au = pat_auto_alloc((int)P);
    if (au == NULL)
      goto out;
    aware = pat_auto_decide(au, &p, &props, -1, 1, NULL, -1, &sw);
    p.arrivals = NULL;
    pat_auto_free(au);
    au = pat_auto_alloc((int)P);
    if (au == NULL)
      goto out;
    blind = pat_auto_decide(au, &p, &props, -1, 1, NULL, -1, &sw);
    printf("\nauto picks %s%s%s\n", pat_alg_table[aware]->name,
           file != NULL ? " for these arrivals; balanced: " : "",
           file != NULL ? pat_alg_table[blind]->name : "");
    rc = 0;
  }
out:
  pat_auto_free(au);
  free(a);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 1)
    return print_tables();
  if (argc == 2 && strcmp(argv[1], "--check") == 0)
    return check();
  if ((argc == 4 || argc == 5) && strcmp(argv[1], "--explain") == 0)
    return explain(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
  fprintf(stderr,
          "usage: patreduce_info [--check | --explain P m [arrivals-file]]\n"
          "  (none)     the algorithms and the environment variables\n"
          "  --check    this environment's settings, each bad one named "
          "(exit 2)\n"
          "  --explain  what auto weighs for P ranks and m bytes per rank "
          "(64K): each row's\n"
          "             modeled time, balanced and under the arrival times "
          "of the file\n"
          "             (P times, seconds, optional unit: 1ms), and its "
          "pick\n");
  return argc == 2 &&
                 (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
             ? 0
             : 2;
}
