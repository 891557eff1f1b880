/*
 * patbench's figures (see plot.h): the points are kept in memory, then
 * written into one gnuplot script as inline data blocks and drawn by
 * running gnuplot on it.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

extern char **environ;

#include "plot.h"

typedef struct point {
  size_t bytes;
  char pattern[64], alg[32];
  double imbalance, median, ci_lo, ci_hi, speedup, absorption;
} point;

struct pb_plot {
  point *p;
  size_t n, cap;
};

pb_plot *pb_plot_alloc(void) { return calloc(1, sizeof(pb_plot)); }

void pb_plot_free(pb_plot *plot) {
  if (plot != NULL)
    free(plot->p);
  free(plot);
}

int pb_plot_add(pb_plot *plot, size_t bytes, const char *pattern,
                double imbalance, const char *alg, double median,
                double ci_lo, double ci_hi, double speedup,
                double absorption) {
  point *q;
  if (plot->n == plot->cap) {
    size_t want = plot->cap ? 2 * plot->cap : 64;
    point *bigger = realloc(plot->p, want * sizeof *bigger);
    if (bigger == NULL)
      return 1;
    plot->p = bigger;
    plot->cap = want;
  }
  q = &plot->p[plot->n++];
  q->bytes = bytes;
  snprintf(q->pattern, sizeof q->pattern, "%s", pattern);
  snprintf(q->alg, sizeof q->alg, "%s", alg);
  q->imbalance = imbalance;
  q->median = median;
  q->ci_lo = ci_lo;
  q->ci_hi = ci_hi;
  q->speedup = speedup;
  q->absorption = absorption;
  return 0;
}

static int same_group(const point *a, const point *b) {
  return a->bytes == b->bytes && strcmp(a->pattern, b->pattern) == 0;
}

/* s as a gnuplot single-quoted string (a quote doubled): file names and
 * patterns are the user's text. */
static void gp_string(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s != '\0'; s++) {
    if (*s == '\'')
      fputc('\'', f);
    if (*s != '\n' && *s != '\r')
      fputc(*s, f);
  }
  fputc('\'', f);
}

/* A file-name-safe copy of a pattern spec. */
static void safe(const char *in, char *out, size_t len) {
  size_t i = 0;
  for (; in[i] != '\0' && i + 1 < len; i++)
    out[i] = (in[i] == ':' || in[i] == '/' || in[i] == ' ') ? '_' : in[i];
  out[i] = '\0';
}

/* Writes the figures of the group starting at point g0. */
/* One line of a figure's data: imbalance, median, speedup, absorption,
 * CI low, CI high (ms where a time). */
static void data_row(FILE *f, const point *q) {
  fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g\n", q->imbalance * 1e3,
          q->median * 1e3, q->speedup, q->absorption * 1e3, q->ci_lo * 1e3,
          q->ci_hi * 1e3);
}

/* The balanced point (pattern none, this size) of alg, for a group whose
 * imbalances lack 0: the figures start from it.  NULL if the group has its
 * own point at 0, or nothing balanced was measured. */
static const point *balanced_point(const pb_plot *plot, const point *g,
                                   const char *alg) {
  const point *none = NULL;
  for (size_t i = 0; i < plot->n; i++) {
    const point *q = &plot->p[i];
    if (strcmp(q->alg, alg) != 0 || q->bytes != g->bytes)
      continue;
    if (same_group(q, g) && q->imbalance == 0)
      return NULL;
    if (strcmp(q->pattern, "none") == 0)
      none = q;
  }
  return none;
}

static void group_script(FILE *f, const pb_plot *plot, size_t g0,
                         const char *prefix, int nranks, int *figures) {
  static const struct {
    const char *name, *ylabel;
    int column;
  } kinds[] = {{"runtime", "median time-to-solution (ms), 95% CI", 2},
               {"speedup", "speedup over the reference (median ratio)", 3},
               {"absorption", "absorption (ms)", 4}};
  const point *g = &plot->p[g0];
  char algs[16][32], pat[64];
  int nalgs = 0, several = 0;
  for (size_t i = g0; i < plot->n; i++) {
    int seen = 0;
    if (!same_group(&plot->p[i], g))
      continue;
    for (int a = 0; a < nalgs; a++)
      seen |= strcmp(algs[a], plot->p[i].alg) == 0;
    if (!seen && nalgs < 16)
      snprintf(algs[nalgs++], sizeof algs[0], "%s", plot->p[i].alg);
    several |= plot->p[i].imbalance != g->imbalance;
  }
  if (!several)
    return;
  for (int a = 0; a < nalgs; a++) {
    const point *zero = balanced_point(plot, g, algs[a]);
    fprintf(f, "$g%zu_%d << EOD\n", g0, a);
    if (zero != NULL)
      data_row(f, zero);
    for (size_t i = g0; i < plot->n; i++)
      if (same_group(&plot->p[i], g) && strcmp(plot->p[i].alg, algs[a]) == 0)
        data_row(f, &plot->p[i]);
    fprintf(f, "EOD\n");
  }
  safe(g->pattern, pat, sizeof pat);
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    for (int t = 0; t < 2; t++) {
      fprintf(f, "set terminal %s\n",
              t ? "svg size 800,500" : "png size 800,500");
      char text[4400];
      snprintf(text, sizeof text, "%s-%zuB-%s-%s.%s", prefix, g->bytes, pat,
               kinds[k].name, t ? "svg" : "png");
      fprintf(f, "set output ");
      gp_string(f, text);
      snprintf(text, sizeof text, "P = %d, %zu B, pattern %s", nranks,
               g->bytes, g->pattern);
      fprintf(f, "\nset title ");
      gp_string(f, text);
      fprintf(f, "\n");
      fprintf(f, "set xlabel 'imbalance (ms)'\nset ylabel '%s'\n",
              kinds[k].ylabel);
      /* room at both ends, so the first and last error bars show */
      fprintf(f, "set key outside right top\nset grid\n"
                 "set offsets graph 0.03, graph 0.03, 0, 0\nplot ");
      for (int a = 0; a < nalgs; a++) /* the runtime with its CI */
        fprintf(f, "%s$g%zu_%d using 1:%d%s with %s linetype %d title '%s'",
                a ? ", " : "", g0, a, kinds[k].column, k == 0 ? ":5:6" : "",
                k == 0 ? "yerrorlines" : "linespoints", a % 8 + 1, algs[a]);
      fprintf(f, "\n");
      (*figures)++;
    }
}

/* gnuplot SCRIPT, without a shell (any file name is one argument);
 * 0 when it ran and succeeded. */
static int run_gnuplot(const char *script) {
  char *argv[] = {"gnuplot", (char *)script, NULL};
  pid_t pid;
  int status = 0;
  if (posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ) != 0)
    return -1;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int pb_plot_write(const pb_plot *plot, const char *prefix, int nranks,
                  char *msg, size_t len) {
  char script[4096];
  FILE *f;
  int rc = 1, figures = 0;
  snprintf(script, sizeof script, "%s.gp", prefix);
  f = fopen(script, "w");
  if (f == NULL) {
    snprintf(msg, len, "cannot write %s", script);
    goto out;
  }
  fprintf(f, "# patbench figures: gnuplot %s\n", script);
  /* Okabe and Ito's palette, told apart with colour blindness too */
  {
    static const char *colours[8] = {"#0072b2", "#d55e00", "#009e73",
                                     "#cc79a7", "#e69f00", "#56b4e9",
                                     "#000000", "#f0e442"};
    for (int t = 0; t < 8; t++)
      fprintf(f, "set linetype %d lc rgb '%s' lw 2 pt %d\n", t + 1,
              colours[t], t + 4);
  }
  for (size_t i = 0; i < plot->n; i++) {
    int first = 1;
    for (size_t j = 0; j < i && first; j++)
      first = !same_group(&plot->p[j], &plot->p[i]);
    if (first)
      group_script(f, plot, i, prefix, nranks, &figures);
  }
  fclose(f);
  if (figures == 0) {
    snprintf(msg, len,
             "nothing to plot: no message size and pattern has two or more "
             "imbalances");
    goto out;
  }
  if (run_gnuplot(script) != 0) {
    snprintf(msg, len, "gnuplot %s failed (is gnuplot installed?)", script);
    goto out;
  }
  snprintf(msg, len, "wrote %d figures %s-*.png/.svg (script %s)", figures,
           prefix, script);
  rc = 0;
out:
  return rc;
}
