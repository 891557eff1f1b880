/*
 * Arrival patterns of patbench: how late each rank reaches the reduction,
 * call after call (Marendić 2016, chapter 4).  Random patterns draw from
 * GSL's distributions with the benchmark's seeded generator, on rank 0, so
 * every algorithm of a repetition sees the same delays.
 *
 * One table below lists the patterns (name, parameters, description); the
 * parser and --help read it.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_randist.h>

#include "core/pat_internal.h"
#include "patbench.h"

static const struct {
  const char *name;
  pb_pattern_kind kind;
  int min_params, max_params;
  const char *usage, *desc;
} patterns[] = {
    {"none", PB_PAT_NONE, 0, 0, "none", "balanced: nobody is late"},
    {"single", PB_PAT_SINGLE, 0, 1, "single[:RANK]",
     "rank RANK (default the last) is late by the --imbalance value"},
    {"odd", PB_PAT_ODD, 0, 0, "odd",
     "every odd rank is late by the --imbalance value"},
    {"k-random", PB_PAT_KRANDOM, 1, 1, "k-random:K",
     "K ranks drawn anew each call are late by the --imbalance value"},
    {"uniform", PB_PAT_UNIFORM, 1, 1, "uniform:MAX",
     "every rank late by U(0, MAX)"},
    {"normal", PB_PAT_NORMAL, 2, 2, "normal:MEAN:SD",
     "every rank late by N(MEAN, SD), negative draws taken as 0"},
    {"gamma", PB_PAT_GAMMA, 2, 2, "gamma:MEAN:CV",
     "every rank late by a gamma variate of mean MEAN and coefficient of "
     "variation CV"},
    {"truncgamma", PB_PAT_TRUNCGAMMA, 2, 3, "truncgamma:MEAN:MAX[:CV]",
     "gamma of mean MEAN and CV (default 1) redrawn until <= MAX"},
    {"bernoulli", PB_PAT_BERNOULLI, 2, 2, "bernoulli:P:DELAY",
     "every rank late by DELAY with probability P"},
    {"trace", PB_PAT_TRACE, 1, 1, "trace:FILE",
     "call i uses line i (cyclically) of FILE: P delays in seconds"},
};
#define NPATTERNS ((int)(sizeof patterns / sizeof patterns[0]))
_Static_assert(sizeof patterns / sizeof patterns[0] == (size_t)PB_PAT_COUNT,
               "one row per pattern kind");

/* ---- times -------------------------------------------------------------- */

/* A time as everywhere in patreduce (src/core/units.c), or a multiple of
 * the reference runtime: 2x. */
int pb_time_parse(const char *text, pb_time *t, char *why, size_t whylen) {
  size_t n = strlen(text);
  int rc = 1;
  if (n > 1 && text[n - 1] == 'x' && n < 64 &&
      (isdigit((unsigned char)text[n - 2]) || text[n - 2] == '.')) {
    char num[64];
    memcpy(num, text, n - 1);
    num[n - 1] = '\0';
    if (pat_parse_seconds(num, &t->value)) { /* a plain number */
      t->relative = 1;
      rc = 0;
      goto out;
    }
  } else if (pat_parse_seconds(text, &t->value)) {
    t->relative = 0;
    rc = 0;
    goto out;
  }
  snprintf(why, whylen,
           "'%s' is not a time; valid: a number >= 0 with a unit s, ms, us, "
           "ns (none = s), or x (multiples of the --unit algorithm's balanced "
           "runtime, default binomial)",
           text);
out:
  return rc;
}

double pb_time_seconds(pb_time t, double ref) {
  return t.relative ? t.value * ref : t.value;
}

void pb_time_format(pb_time t, char *out, size_t len) {
  if (t.relative)
    snprintf(out, len, "%gx", t.value);
  else if (t.value == 0)
    snprintf(out, len, "0");
  else if (t.value < 1e-3)
    snprintf(out, len, "%gus", t.value * 1e6);
  else if (t.value < 1)
    snprintf(out, len, "%gms", t.value * 1e3);
  else
    snprintf(out, len, "%gs", t.value);
}

/* ---- patterns ---------------------------------------------------------------
 */

void pb_pattern_usage(FILE *out) {
  for (int i = 0; i < NPATTERNS; i++)
    fprintf(out, "    %-26s %s\n", patterns[i].usage, patterns[i].desc);
}

static void valid_names(char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < NPATTERNS && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                             patterns[i].usage);
}

static int parse_count(const char *text, long lo, long *v) {
  char *end;
  errno = 0;
  *v = strtol(text, &end, 10);
  return end != text && *end == '\0' && errno == 0 && *v >= lo;
}

static int parse_real(const char *text, double lo, double hi, double *v) {
  char *end;
  errno = 0;
  *v = strtod(text, &end);
  return end != text && *end == '\0' && errno == 0 && isfinite(*v) &&
         *v >= lo && *v <= hi;
}

/* Parameters of one pattern (params[0..n-1]) into pat. */
static int parse_params(pb_pattern *pat, char **params, int n, char *why,
                        size_t whylen) {
  int rc = 1;
  long v;
  char tbuf[200];
  switch (pat->kind) {
  case PB_PAT_SINGLE:
    pat->rank = -1;
    if (n == 1) {
      if (!parse_count(params[0], 0, &v) || v > 1 << 30) {
        snprintf(why, whylen, "single: rank '%s' is not an integer >= 0",
                 params[0]);
        goto out;
      }
      pat->rank = (int)v;
    }
    break;
  case PB_PAT_KRANDOM:
    if (!parse_count(params[0], 1, &v) || v > 1 << 30) {
      snprintf(why, whylen, "k-random: K '%s' is not an integer >= 1",
               params[0]);
      goto out;
    }
    pat->k = (int)v;
    break;
  case PB_PAT_UNIFORM:
  case PB_PAT_NORMAL:
  case PB_PAT_GAMMA:
  case PB_PAT_TRUNCGAMMA:
    if (pb_time_parse(params[0], &pat->t1, tbuf, sizeof tbuf)) {
      snprintf(why, whylen, "%s: %s", pat->spec, tbuf);
      goto out;
    }
    if (pat->kind == PB_PAT_GAMMA) {
      if (!parse_real(params[1], 1e-6, 1e6, &pat->cv)) {
        snprintf(why, whylen, "gamma: CV '%s' is not a number in (0, 1e6]",
                 params[1]);
        goto out;
      }
    } else if (n > 1 && pb_time_parse(params[1], &pat->t2, tbuf, sizeof tbuf)) {
      snprintf(why, whylen, "%s: %s", pat->spec, tbuf);
      goto out;
    }
    if (pat->kind == PB_PAT_TRUNCGAMMA) {
      pat->cv = 1;
      if (n == 3 && !parse_real(params[2], 1e-6, 1e6, &pat->cv)) {
        snprintf(why, whylen, "truncgamma: CV '%s' is not a number in (0, 1e6]",
                 params[2]);
        goto out;
      }
      if (pat->t1.relative != pat->t2.relative || pat->t2.value <= 0) {
        snprintf(why, whylen,
                 "truncgamma: MAX must be > 0 and in the same kind of unit "
                 "as MEAN (both absolute or both x)");
        goto out;
      }
    }
    if (pat->kind == PB_PAT_NORMAL && pat->t1.relative != pat->t2.relative) {
      snprintf(why, whylen,
               "normal: MEAN and SD must both be absolute or "
               "both multiples (x)");
      goto out;
    }
    break;
  case PB_PAT_BERNOULLI:
    if (!parse_real(params[0], 0, 1, &pat->p)) {
      snprintf(why, whylen, "bernoulli: P '%s' is not a probability in [0, 1]",
               params[0]);
      goto out;
    }
    if (pb_time_parse(params[1], &pat->t1, tbuf, sizeof tbuf)) {
      snprintf(why, whylen, "bernoulli: %s", tbuf);
      goto out;
    }
    break;
  case PB_PAT_TRACE: {
    FILE *in = fopen(params[0], "r");
    if (in == NULL) {
      snprintf(why, whylen, "trace: cannot open '%s': %s", params[0],
               strerror(errno));
      goto out;
    }
    rc = pb_trace_read(in, params[0], pat, why, whylen);
    fclose(in);
    goto out;
  }
  default:
    break;
  }
  rc = 0;
out:
  return rc;
}

int pb_pattern_parse(const char *spec, pb_pattern *pat, char *why,
                     size_t whylen) {
  char copy[256], *params[4] = {NULL}, *p;
  int n = 0, rc = 1, row = -1;
  size_t namelen;
  char names[600];
  memset(pat, 0, sizeof *pat);
  pat->rank = -1;
  if (strlen(spec) >= sizeof copy) {
    snprintf(why, whylen, "pattern '%.40s...' is too long", spec);
    goto out;
  }
  snprintf(pat->spec, sizeof pat->spec, "%s", spec);
  snprintf(copy, sizeof copy, "%s", spec);
  namelen = strcspn(copy, ":");
  for (int i = 0; i < NPATTERNS; i++)
    if (strlen(patterns[i].name) == namelen &&
        strncasecmp(copy, patterns[i].name, namelen) == 0)
      row = i;
  if (row < 0) {
    valid_names(names, sizeof names);
    snprintf(why, whylen, "'%s' is not an arrival pattern; valid: %s", spec,
             names);
    goto out;
  }
  pat->kind = patterns[row].kind;
  p = copy + namelen;
  /* trace:FILE keeps any ':' of the file name */
  while (*p == ':' && n < 4) {
    *p++ = '\0';
    params[n++] = p;
    if (pat->kind == PB_PAT_TRACE)
      break;
    p += strcspn(p, ":");
  }
  if (*p == ':' || n < patterns[row].min_params ||
      n > patterns[row].max_params) {
    snprintf(why, whylen, "'%s' has %d parameter(s); usage: %s", spec, n,
             patterns[row].usage);
    goto out;
  }
  rc = parse_params(pat, params, n, why, whylen);
out:
  return rc;
}

void pb_pattern_clear(pb_pattern *pat) {
  if (pat != NULL) {
    free(pat->trace);
    pat->trace = NULL;
    pat->rows = pat->cols = 0;
  }
}

/* Appends v to the growing array *data of *len values (capacity *cap). */
static int push(double **data, size_t *len, size_t *cap, double v) {
  if (*len == *cap) {
    size_t want = *cap ? 2 * *cap : 64;
    double *bigger = realloc(*data, want * sizeof *bigger);
    if (bigger == NULL)
      return 1;
    *data = bigger;
    *cap = want;
  }
  (*data)[(*len)++] = v;
  return 0;
}

int pb_trace_read(FILE *in, const char *name, pb_pattern *pat, char *why,
                  size_t whylen) {
  char *line = NULL;
  size_t linecap = 0, nrows = 0, ncols = 0, lineno = 0, len = 0, cap = 0;
  double *data = NULL;
  int rc = 1;
  while (getline(&line, &linecap, in) > 0) {
    char *p = line, *end;
    size_t cols = 0;
    lineno++;
    p[strcspn(p, "#\n")] = '\0';
    while (isspace((unsigned char)*p))
      p++;
    if (*p == '\0')
      continue;
    while (*p != '\0') {
      double v;
      errno = 0;
      v = strtod(p, &end);
      if (end == p || errno != 0 || !isfinite(v) || v < 0 ||
          !(isspace((unsigned char)*end) || *end == ',' || *end == '\0')) {
        snprintf(why, whylen,
                 "%s:%zu: column %zu is not a delay in seconds >= 0 ('%.20s')",
                 name, lineno, cols + 1, p);
        goto out;
      }
      if (push(&data, &len, &cap, v)) {
        snprintf(why, whylen, "%s: out of memory", name);
        goto out;
      }
      cols++;
      p = end;
      while (isspace((unsigned char)*p) || *p == ',')
        p++;
    }
    if (nrows == 0)
      ncols = cols;
    if (cols != ncols) {
      snprintf(why, whylen,
               "%s:%zu: %zu delays, but the first data line has %zu", name,
               lineno, cols, ncols);
      goto out;
    }
    nrows++;
  }
  if (nrows == 0) {
    snprintf(why, whylen, "%s: no data lines", name);
    goto out;
  }
  pat->trace = data;
  pat->rows = nrows;
  pat->cols = ncols;
  data = NULL;
  rc = 0;
out:
  free(data);
  free(line);
  return rc;
}

int pb_pattern_takes_magnitude(const pb_pattern *pat) {
  return pat->kind == PB_PAT_SINGLE || pat->kind == PB_PAT_ODD ||
         pat->kind == PB_PAT_KRANDOM;
}

int pb_pattern_check(const pb_pattern *pat, int nranks, char *why,
                     size_t whylen) {
  int rc = 1;
  if (pat->kind == PB_PAT_SINGLE && pat->rank >= nranks)
    snprintf(why, whylen, "%s: rank %d does not exist; valid: 0..%d", pat->spec,
             pat->rank, nranks - 1);
  else if (pat->kind == PB_PAT_KRANDOM && pat->k > nranks)
    snprintf(why, whylen, "%s: K = %d > %d ranks", pat->spec, pat->k, nranks);
  else if (pat->kind == PB_PAT_TRACE && pat->cols != (size_t)nranks)
    snprintf(why, whylen,
             "%s: the trace has %zu delays per line, but %d ranks "
             "run",
             pat->spec, pat->cols, nranks);
  else
    rc = 0;
  return rc;
}

/* A gamma variate of the given mean and coefficient of variation:
 * shape 1/cv^2, scale mean cv^2. */
static double gamma_draw(gsl_rng *rng, double mean, double cv) {
  return mean > 0 ? gsl_ran_gamma(rng, 1 / (cv * cv), mean * cv * cv) : 0;
}

void pb_pattern_delays(const pb_pattern *pat, int nranks, double magnitude,
                       double ref, gsl_rng *rng, size_t call, double *delays) {
  double a = pb_time_seconds(pat->t1, ref), b = pb_time_seconds(pat->t2, ref);
  for (int i = 0; i < nranks; i++)
    delays[i] = 0;
  switch (pat->kind) {
  case PB_PAT_NONE:
  case PB_PAT_COUNT:
    break;
  case PB_PAT_SINGLE:
    delays[pat->rank < 0 ? nranks - 1 : pat->rank] = magnitude;
    break;
  case PB_PAT_ODD:
    for (int i = 1; i < nranks; i += 2)
      delays[i] = magnitude;
    break;
  case PB_PAT_KRANDOM: {
    /* a partial Fisher-Yates shuffle of the ranks */
    int *ranks = malloc((size_t)nranks * sizeof *ranks);
    if (ranks == NULL)
      break;
    for (int i = 0; i < nranks; i++)
      ranks[i] = i;
    for (int i = 0; i < pat->k && i < nranks; i++) {
      int j = i + (int)gsl_rng_uniform_int(rng, (unsigned long)(nranks - i));
      int t = ranks[i];
      ranks[i] = ranks[j];
      ranks[j] = t;
      delays[ranks[i]] = magnitude;
    }
    free(ranks);
    break;
  }
  case PB_PAT_UNIFORM:
    for (int i = 0; i < nranks; i++)
      delays[i] = gsl_ran_flat(rng, 0, a);
    break;
  case PB_PAT_NORMAL:
    for (int i = 0; i < nranks; i++)
      delays[i] = fmax(0, a + gsl_ran_gaussian(rng, b));
    break;
  case PB_PAT_GAMMA:
    for (int i = 0; i < nranks; i++)
      delays[i] = gamma_draw(rng, a, pat->cv);
    break;
  case PB_PAT_TRUNCGAMMA:
    for (int i = 0; i < nranks; i++) {
      double d;
      int tries = 0;
      do
        d = gamma_draw(rng, a, pat->cv);
      while (d > b && ++tries < 1000);
      delays[i] = fmin(d, b);
    }
    break;
  case PB_PAT_BERNOULLI:
    for (int i = 0; i < nranks; i++)
      delays[i] = gsl_ran_bernoulli(rng, pat->p) ? a : 0;
    break;
  case PB_PAT_TRACE:
    for (int i = 0; i < nranks && (size_t)i < pat->cols; i++)
      delays[i] = pat->trace[(call % pat->rows) * pat->cols + (size_t)i];
    break;
  }
}
