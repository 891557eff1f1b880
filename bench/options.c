/*
 * patbench's command line (GNU long options).  Algorithm names come from
 * the library's algorithm table, pattern names from pattern.c's table,
 * datatypes and ops from the tables below: no list is typed twice.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/pat_internal.h"
#include "patbench.h"
#include "reduce/pat_reduce.h"

const pb_type_row pb_types[] = {{"double", MPI_DOUBLE, sizeof(double)},
                                {"float", MPI_FLOAT, sizeof(float)},
                                {"int", MPI_INT, sizeof(int)},
                                {"long", MPI_LONG, sizeof(long)},
                                {NULL, MPI_DATATYPE_NULL, 0}};
const pb_op_row pb_ops[] = {
    {"sum", MPI_SUM, 0, 0},         {"sum-charged", MPI_SUM, 1, 0},
    {"sum-ordered", MPI_SUM, 1, 1}, {"max", MPI_MAX, 0, 0},
    {"min", MPI_MIN, 0, 0},         {NULL, MPI_OP_NULL, 0, 0},
};

static const char *const oracle_name = "oracle";

const char *pb_alg_name(int alg) {
  return alg == PB_ALG_ORACLE ? oracle_name
                              : pat_reduce_algorithm_name((pat_reduce_alg)alg);
}

static void alg_names(char *buf, size_t len) {
  size_t used = 0;
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT && used < len; a++)
    used += (size_t)snprintf(buf + used, len - used, "%s, ", pb_alg_name(a));
  if (used < len)
    snprintf(buf + used, len - used, "%s, all", oracle_name);
}

static int alg_lookup(const char *name, int *alg) {
  pat_reduce_alg a;
  if (strcasecmp(name, oracle_name) == 0) {
    *alg = PB_ALG_ORACLE;
    return 0;
  }
  if (pat_reduce_algorithm_lookup(name, &a) != PAT_SUCCESS)
    return 1;
  *alg = (int)a;
  return 0;
}

static void usage(FILE *out) {
  char algs[300];
  if (out == NULL)
    return;
  alg_names(algs, sizeof algs);
  fprintf(
      out,
      "usage: mpiexec -n P patbench [options]\n"
      "Times reductions under injected arrival imbalance: per repetition "
      "every rank\nsleeps its delay, stamps its arrival, reduces, stamps "
      "its exit; time-to-solution\nis max(exit) - min(arrival).  "
      "Algorithms are interleaved per repetition.\n\n"
      "  -a, --algorithms LIST   comma-separated (default all): %s\n"
      "      --reference NAME    algorithm the ratios refer to (default "
      "binomial)\n"
      "  -s, --sizes LIST        message sizes in bytes, K/M/G suffixes "
      "(default 512K)\n"
      "  -t, --datatype NAME     double, float, int, long (default "
      "double)\n"
      "  -o, --op NAME           sum, sum-charged, sum-ordered, max, min "
      "(default sum);\n"
      "                          sum-charged: native gets a user-defined "
      "sum that\n"
      "                          charges gamma per byte in SMPI like the "
      "library's\n"
      "                          combine; sum-ordered: the same, declared "
      "non-commutative\n"
      "                          for every row (their rank-order paths)\n"
      "  -r, --root N            root rank, 'last', or 'rotate' (call i of a\n"
      "                          burst at rank i mod P, as IMB does; default "
      "0)\n"
      "  -n, --reps N            timed repetitions, >= 2; the first is "
      "dropped (default 30)\n"
      "  -w, --warmup N          untimed calls per algorithm first "
      "(default 5)\n"
      "      --seed N            seed of the random patterns (default "
      "1)\n"
      "  -p, --pattern SPEC      arrival pattern, repeatable (default "
      "single):\n",
      algs);
  pb_pattern_usage(out);
  fprintf(out,
          "  -i, --imbalance LIST    late ranks' delay for single, odd, "
          "k-random\n"
          "                          (default 0,0.5x,1x,2x,4x); times as in "
          "pattern\n"
          "                          parameters: 250us, 1.5ms, 0.002 (s), or "
          "2x =\n"
          "                          twice the balanced runtime of --unit\n"
          "      --unit NAME         algorithm whose balanced median is the "
          "x of delays\n"
          "                          (default binomial; runs balanced "
          "always)\n"
          "      --sync MODE         barrier (double barrier, default) or "
          "window[:SECONDS]\n"
          "                          (start on the global clock every "
          "SECONDS, default auto)\n"
          "      --burst K           time K calls back to back per repetition, "
          "with no\n"
          "                          synchronisation between them (IMB-style; "
          "the delay\n"
          "                          comes before the first); times are per "
          "call (default 1)\n"
          "      --bootstrap N       resamples for the median's 95%% CI "
          "(default 1000)\n"
          "      --permutations N    for the p-value against the reference "
          "(default 1000)\n"
          "  -O, --output FILE       CSV, one row per configuration and "
          "algorithm\n"
          "      --plot PREFIX       gnuplot figures PREFIX-*.png and .svg\n"
          "      --trace FILE        Chrome trace-event JSON of one call per "
          "configuration\n"
          "      --tag TEXT          first CSV column (e.g. the platform)\n"
          "      --shared-above SIZE SMPI build: buffers of more than SIZE "
          "bytes are shared\n"
          "                          by all ranks (SMPI_SHARED_MALLOC), "
          "results not checked\n"
          "                          (default 8M; no effect outside SMPI)\n"
          "  -q, --quiet             no progress line on stderr\n"
          "  -h, --help              this text\n");
}

static int parse_long(const char *opt, const char *text, long lo, long hi,
                      long *v, char *why, size_t whylen) {
  char *end;
  errno = 0;
  *v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || *v < lo || *v > hi) {
    snprintf(why, whylen, "%s: '%s' is not an integer in %ld..%ld", opt, text,
             lo, hi);
    return 1;
  }
  return 0;
}

/* Sizes as everywhere in patreduce (src/core/units.c). */
static int parse_size(const char *opt, const char *text, size_t *bytes,
                      char *why, size_t whylen) {
  long long v;
  if (pat_parse_bytes(text, 1LL << 40, &v) != 1) {
    snprintf(why, whylen,
             "%s: '%s' is not a size in bytes; valid: a whole number "
             ">= 0 with an optional K, M or G suffix",
             opt, text);
    return 1;
  }
  *bytes = (size_t)v;
  return 0;
}

/* Splits a comma-separated list in place; calls item() on each. */
static int each_item(char *list,
                     int (*item)(const char *, void *, char *, size_t),
                     void *ctx, char *why, size_t whylen) {
  char *save = NULL;
  int rc = 0;
  for (char *t = strtok_r(list, ",", &save); t != NULL && rc == 0;
       t = strtok_r(NULL, ",", &save))
    rc = item(t, ctx, why, whylen);
  return rc;
}

static int add_alg(const char *name, void *ctx, char *why, size_t whylen) {
  pb_options *o = ctx;
  char names[300];
  int alg;
  if (strcasecmp(name, "all") == 0) {
    for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
      add_alg(pb_alg_name(a), ctx, why, whylen);
    return add_alg(oracle_name, ctx, why, whylen);
  }
  if (alg_lookup(name, &alg)) {
    alg_names(names, sizeof names);
    snprintf(why, whylen, "--algorithms: '%s' is not an algorithm; valid: %s",
             name, names);
    return 1;
  }
  for (int i = 0; i < o->nalgs; i++)
    if (o->algs[i] == alg)
      return 0;
  o->algs[o->nalgs++] = alg;
  return 0;
}

static int add_size(const char *text, void *ctx, char *why, size_t whylen) {
  pb_options *o = ctx;
  if (o->nsizes == PB_MAX_LIST) {
    snprintf(why, whylen, "--sizes: more than %d sizes", PB_MAX_LIST);
    return 1;
  }
  return parse_size("--sizes", text, &o->sizes[o->nsizes++], why, whylen);
}

static int add_imbalance(const char *text, void *ctx, char *why,
                         size_t whylen) {
  pb_options *o = ctx;
  char tbuf[300];
  if (o->nimbalance == PB_MAX_LIST) {
    snprintf(why, whylen, "--imbalance: more than %d values", PB_MAX_LIST);
    return 1;
  }
  if (pb_time_parse(text, &o->imbalance[o->nimbalance], tbuf, sizeof tbuf)) {
    snprintf(why, whylen, "--imbalance: %s", tbuf);
    return 1;
  }
  o->nimbalance++;
  return 0;
}

/* A comma-separated option value: copy, then split. */
static int parse_list(const char *text,
                      int (*item)(const char *, void *, char *, size_t),
                      void *ctx, char *why, size_t whylen) {
  char *copy = strdup(text);
  int rc = 1;
  if (copy == NULL)
    snprintf(why, whylen, "out of memory");
  else
    rc = each_item(copy, item, ctx, why, whylen);
  free(copy);
  return rc;
}

static int table_index(const char *opt, const char *text, const char *names[],
                       int n, int *index, char *why, size_t whylen) {
  size_t used;
  for (int i = 0; i < n; i++)
    if (strcasecmp(text, names[i]) == 0) {
      *index = i;
      return 0;
    }
  used =
      (size_t)snprintf(why, whylen, "%s: '%s' is not valid; valid:", opt, text);
  for (int i = 0; i < n && used < whylen; i++)
    used += (size_t)snprintf(why + used, whylen - used, "%s %s", i ? "," : "",
                             names[i]);
  return 1;
}

int pb_options_parse(int argc, char **argv, pb_options *o, FILE *out, char *why,
                     size_t whylen) {
  enum {
    OPT_REFERENCE = 256,
    OPT_UNIT,
    OPT_SEED,
    OPT_SYNC,
    OPT_BOOT,
    OPT_PERMS,
    OPT_PLOT,
    OPT_TRACE,
    OPT_TAG,
    OPT_SHARED,
    OPT_BURST
  };
  static const struct option longopts[] = {
      {"algorithms", required_argument, NULL, 'a'},
      {"reference", required_argument, NULL, OPT_REFERENCE},
      {"unit", required_argument, NULL, OPT_UNIT},
      {"sizes", required_argument, NULL, 's'},
      {"datatype", required_argument, NULL, 't'},
      {"op", required_argument, NULL, 'o'},
      {"root", required_argument, NULL, 'r'},
      {"reps", required_argument, NULL, 'n'},
      {"warmup", required_argument, NULL, 'w'},
      {"seed", required_argument, NULL, OPT_SEED},
      {"pattern", required_argument, NULL, 'p'},
      {"imbalance", required_argument, NULL, 'i'},
      {"sync", required_argument, NULL, OPT_SYNC},
      {"burst", required_argument, NULL, OPT_BURST},
      {"bootstrap", required_argument, NULL, OPT_BOOT},
      {"permutations", required_argument, NULL, OPT_PERMS},
      {"output", required_argument, NULL, 'O'},
      {"plot", required_argument, NULL, OPT_PLOT},
      {"trace", required_argument, NULL, OPT_TRACE},
      {"tag", required_argument, NULL, OPT_TAG},
      {"shared-above", required_argument, NULL, OPT_SHARED},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0}};
  const char *type_names[8], *op_names[8];
  const char *reference = "binomial", *unit = "binomial";
  int ntypes = 0, nops = 0, c, rc = 2;
  long v;
  char names[300];

  for (; pb_types[ntypes].name != NULL; ntypes++)
    type_names[ntypes] = pb_types[ntypes].name;
  for (; pb_ops[nops].name != NULL; nops++)
    op_names[nops] = pb_ops[nops].name;
  memset(o, 0, sizeof *o);
  o->reps = 30;
  o->warmup = 5;
  o->burst = 1;
  o->seed = 1;
  o->boot = 1000;
  o->perms = 1000;
  o->tag = "";
  o->shared_above = PB_SHARED_ABOVE_DEFAULT;
  why[0] = '\0';
  optind = 0; /* GNU: full re-initialisation, so tests can parse again */
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":a:s:t:o:r:n:w:p:i:O:qh", longopts,
                          NULL)) != -1) {
    switch (c) {
    case 'a':
      if (parse_list(optarg, add_alg, o, why, whylen))
        goto out;
      break;
    case OPT_REFERENCE:
      reference = optarg;
      break;
    case OPT_UNIT:
      unit = optarg;
      break;
    case 's':
      if (parse_list(optarg, add_size, o, why, whylen))
        goto out;
      break;
    case 't':
      if (table_index("--datatype", optarg, type_names, ntypes, &o->type, why,
                      whylen))
        goto out;
      break;
    case 'o':
      if (table_index("--op", optarg, op_names, nops, &o->op, why, whylen))
        goto out;
      break;
    case 'r':
      if (strcasecmp(optarg, "last") == 0)
        o->root = -1;
      else if (strcasecmp(optarg, "rotate") == 0)
        o->root = PB_ROOT_ROTATE;
      else if (parse_long("--root", optarg, 0, 1 << 30, &v, why, whylen))
        goto out;
      else
        o->root = (int)v;
      break;
    case 'n':
      if (parse_long("--reps", optarg, 2, 1 << 24, &v, why, whylen))
        goto out;
      o->reps = (int)v;
      break;
    case 'w':
      if (parse_long("--warmup", optarg, 0, 1 << 24, &v, why, whylen))
        goto out;
      o->warmup = (int)v;
      break;
    case OPT_SEED:
      if (parse_long("--seed", optarg, 0, 1L << 31, &v, why, whylen))
        goto out;
      o->seed = (unsigned long)v;
      break;
    case 'p':
      if (o->npatterns == PB_MAX_LIST) {
        snprintf(why, whylen, "--pattern: more than %d patterns", PB_MAX_LIST);
        goto out;
      }
      if (pb_pattern_parse(optarg, &o->patterns[o->npatterns], why, whylen)) {
        pb_pattern_clear(&o->patterns[o->npatterns]);
        goto out;
      }
      o->npatterns++;
      break;
    case 'i':
      if (parse_list(optarg, add_imbalance, o, why, whylen))
        goto out;
      break;
    case OPT_BURST:
      if (parse_long("--burst", optarg, 1, 1 << 20, &v, why, whylen))
        goto out;
      o->burst = (int)v;
      break;
    case OPT_SYNC:
      if (strcasecmp(optarg, "barrier") == 0)
        o->sync = PB_SYNC_BARRIER;
      else if (strncasecmp(optarg, "window", 6) == 0 &&
               (optarg[6] == '\0' || optarg[6] == ':')) {
        pb_time t = {0, 0};
        o->sync = PB_SYNC_WINDOW;
        if (optarg[6] == ':' && (pb_time_parse(optarg + 7, &t, why, whylen) ||
                                 t.relative || t.value <= 0)) {
          snprintf(why, whylen,
                   "--sync: '%s': the window is a time > 0 in s, ms, us or "
                   "ns",
                   optarg);
          goto out;
        }
        o->window = t.value;
      } else {
        snprintf(why, whylen,
                 "--sync: '%s' is not valid; valid: barrier, window, "
                 "window:SECONDS",
                 optarg);
        goto out;
      }
      break;
    case OPT_BOOT:
    case OPT_PERMS:
      if (parse_long(c == OPT_BOOT ? "--bootstrap" : "--permutations", optarg,
                     0, 1 << 24, &v, why, whylen))
        goto out;
      *(c == OPT_BOOT ? &o->boot : &o->perms) = (size_t)v;
      break;
    case 'O':
      o->output = optarg;
      break;
    case OPT_PLOT:
      o->plot = optarg;
      break;
    case OPT_TRACE:
      o->trace = optarg;
      break;
    case OPT_TAG:
      o->tag = optarg;
      break;
    case OPT_SHARED:
      if (parse_size("--shared-above", optarg, &o->shared_above, why, whylen))
        goto out;
      break;
    case 'q':
      o->quiet = 1;
      break;
    case 'h':
      usage(out);
      rc = 1;
      goto out;
    case ':':
      snprintf(why, whylen, "option '%s' needs a value (see --help)",
               argv[optind - 1]);
      goto out;
    default:
      snprintf(why, whylen, "unknown option '%s' (see --help)",
               argv[optind - 1]);
      goto out;
    }
  }
  if (optind < argc) {
    snprintf(why, whylen, "unexpected argument '%s' (see --help)",
             argv[optind]);
    goto out;
  }
  if (o->nalgs == 0)
    add_alg("all", o, why, whylen);
  if (o->nsizes == 0)
    o->sizes[o->nsizes++] = 512 * 1024;
  if (o->npatterns == 0)
    pb_pattern_parse("single", &o->patterns[o->npatterns++], why, whylen);
  if (o->nimbalance == 0) {
    char list[] = "0,0.5x,1x,2x,4x";
    each_item(list, add_imbalance, o, why, whylen);
  }
  if (alg_lookup(reference, &o->reference)) {
    alg_names(names, sizeof names);
    snprintf(why, whylen, "--reference: '%s' is not an algorithm; valid: %s",
             reference, names);
    goto out;
  }
  if (alg_lookup(unit, &o->unit)) {
    alg_names(names, sizeof names);
    snprintf(why, whylen, "--unit: '%s' is not an algorithm; valid: %s", unit,
             names);
    goto out;
  }
  for (c = 0; c < o->nalgs && o->algs[c] != o->reference; c++)
    ;
  if (c == o->nalgs) {
    snprintf(why, whylen, "--reference: '%s' is not among --algorithms",
             reference);
    goto out;
  }
  for (int s = 0; s < o->nsizes; s++)
    if (o->sizes[s] % pb_types[o->type].size != 0) {
      snprintf(why, whylen,
               "--sizes: %zu bytes is not a whole number of %s (%zu bytes)",
               o->sizes[s], pb_types[o->type].name, pb_types[o->type].size);
      goto out;
    }
  why[0] = '\0';
  rc = 0;
out:
  return rc;
}

void pb_options_clear(pb_options *o) {
  for (int i = 0; i < o->npatterns; i++)
    pb_pattern_clear(&o->patterns[i]);
  o->npatterns = 0;
}
