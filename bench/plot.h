/*
 * patbench's figures: runtime, speedup and absorption against the
 * imbalance, one line per algorithm (the runtime with its 95% CI as error
 * bars, a colour-blind-safe palette, the legend outside the plot; the
 * balanced run, pattern none, as the point at 0 when a pattern has none), one
 * figure set per message size and arrival pattern (the thesis' Fig. 5.4,
 * 5.5 and 5.8), drawn by gnuplot as PNG and SVG.
 */
#ifndef PATBENCH_PLOT_H
#define PATBENCH_PLOT_H

#include <stddef.h>

typedef struct pb_plot pb_plot;

pb_plot *pb_plot_alloc(void);
void pb_plot_free(pb_plot *plot); /* accepts NULL */
/* One point: median time-to-solution with its 95% confidence interval
 * [ci_lo, ci_hi], speedup against the reference and absorption (seconds)
 * of `alg` at imbalance `imbalance` seconds. */
int pb_plot_add(pb_plot *plot, size_t bytes, const char *pattern,
                double imbalance, const char *alg, double median,
                double ci_lo, double ci_hi, double speedup,
                double absorption);
/* Writes PREFIX.gp (script with the data) and runs gnuplot on it, for
 * every (size, pattern) with at least two imbalances.  On success `msg`
 * says what was written; on failure why. */
int pb_plot_write(const pb_plot *plot, const char *prefix, int nranks,
                  char *msg, size_t len);

#endif /* PATBENCH_PLOT_H */
