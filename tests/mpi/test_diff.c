/*
 * test_diff: differential test of every patreduce algorithm.
 *
 * Each algorithm of the table (ids 0 .. PAT_REDUCE_ALG_COUNT-1, called through
 * pat_reduce_using), and each again told the arrival times by the caller
 * (pat_reduce_with_arrivals; for clairvoyant, the "oracle"), is compared
 * with PMPI_Reduce or
 * with a reference computed locally at the root:
 *   1. predefined datatypes x predefined ops, counts {0,1,3,P-1,P,P+1,1000,
 *      262144}, roots {0,P/2,P-1}, with and without MPI_IN_PLACE; inputs are
 *      chosen so that every result is exact in any combination order, and the
 *      root's result is compared bitwise with PMPI_Reduce's (told variants
 *      of rows that do not plan with arrival times: counts up to P+1 only);
 *   2. a user-defined non-commutative op (2x2 matrix product mod 2^32 over
 *      MPI_Type_contiguous(4, MPI_INT)) against the rank-order product;
 *   3. derived datatypes with gaps (vectors, an indexed type with a nonzero
 *      lower bound, a resized type with a negative lower bound), counts 0, 1
 *      and 3, with MPI_SUM and with a user-defined commutative sum: results
 *      are compared with PMPI_Reduce and the gaps of the root's buffer must
 *      stay untouched; where PMPI_Reduce rejects the call (Open MPI rejects
 *      predefined ops on derived types) the algorithm must reject it too;
 *   4. 200 back-to-back calls with random per-rank delays and no barrier;
 *   5. calls alternating between a dup of MPI_COMM_WORLD and an even/odd
 *      split of it, without barriers;
 *   6. MPI_COMM_SELF.
 * After every call the return code must be MPI_SUCCESS, pat_reduce_last_
 * algorithm must report the requested algorithm, and the send buffer must be
 * unchanged.  Rank 0 prints "test_diff: N passed, M failed" (checks summed
 * over ranks); the exit status is 0 iff nothing failed on any rank.
 *
 * Usage: test_diff [--quick] [--shard=K/N]   (--quick skips the
 * 262144-element count; --shard runs the table rows with id % N == K)
 * TEST_DIFF_TIMEOUT=<seconds> sets the per-stage watchdog (0 disables it).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "core/pat_internal.h" /* the table: which row serves a call */
#include "reduce/pat_reduce.h"

enum { BIG_COUNT = 262144, MAX_FAIL_LINES = 100, DEFAULT_TIMEOUT = 300 };

/* ------------------------------------------------------------------------ */
/* Bookkeeping: checks, failure reports, watchdog                           */
/* ------------------------------------------------------------------------ */

static int g_rank, g_size;
static long long g_passed, g_failed;
static unsigned g_timeout = DEFAULT_TIMEOUT;
/* --shard K/N: only the table rows with id % N == K (and their told
 * variants), so that ctest can spread a large P over several runs */
static int g_shard = 0, g_nshards = 1;
static char g_stage[200] = "startup\n";

/* What a check is about; alg < 0 means the PMPI_Reduce reference itself. */
typedef struct ctx {
  const char *section;
  const char *what;
  int alg;
  int count;
  int root;
  int inplace;
} ctx;

/* Algorithms under test: every row of the table, then every row again
 * with arrival times given by the caller (ALG_TOLD + id). */
enum { ALG_TOLD = PAT_REDUCE_ALG_COUNT, NALGS = 2 * PAT_REDUCE_ALG_COUNT };

static const char *alg_name(int alg) {
  static char told[64];
  const char *name;
  if (alg < 0)
    return "PMPI_Reduce";
  name = pat_reduce_algorithm_name((pat_reduce_alg)(alg % ALG_TOLD));
  if (name != NULL && alg >= ALG_TOLD) {
    snprintf(told, sizeof told, "%s told arrivals", name);
    name = told;
  }
  return name ? name : "(unnamed)";
}

static void pass(void) { g_passed++; }

static void fail(const ctx *cx, const char *fmt, ...) {
  g_failed++;
  if (g_failed > MAX_FAIL_LINES)
    return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr,
          "test_diff: FAIL rank %d alg=%s section=%s what=%s count=%d "
          "root=%d inplace=%d: %s\n",
          g_rank, alg_name(cx->alg), cx->section, cx->what, cx->count, cx->root,
          cx->inplace, msg);
  if (g_failed == MAX_FAIL_LINES)
    fprintf(stderr, "test_diff: rank %d: further failures not printed\n",
            g_rank);
}

/* Counts one check: passes iff ok. */
static int expect(int ok, const ctx *cx, const char *fmt, ...) {
  if (ok) {
    pass();
    return 1;
  }
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fail(cx, "%s", msg);
  return 0;
}

/* Checks an MPI return code of the test's own calls. */
static int mpi_ok(int rc, const ctx *cx, const char *call) {
  if (rc == MPI_SUCCESS)
    return 1;
  char es[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, es, &len);
  fail(cx, "%s returned %d (%s)", call, rc, es);
  return 0;
}

static void on_alarm(int sig) {
  (void)sig;
  static const char head[] = "test_diff: watchdog expired, stuck in ";
  ssize_t r1 = write(STDERR_FILENO, head, sizeof head - 1);
  ssize_t r2 = write(STDERR_FILENO, g_stage, strlen(g_stage));
  (void)r1;
  (void)r2;
  _exit(2);
}

static void watchdog_init(void) {
  const char *env = getenv("TEST_DIFF_TIMEOUT");
  if (env && *env)
    g_timeout = (unsigned)strtoul(env, NULL, 10);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
}

/* Names the current stage (for the watchdog) and restarts the watchdog. */
static void stage(const char *section, const char *what) {
  snprintf(g_stage, sizeof g_stage, "rank %d section=%s what=%s\n", g_rank,
           section, what);
  alarm(g_timeout);
}

/* ------------------------------------------------------------------------ */
/* Deterministic input values                                               */
/* ------------------------------------------------------------------------ */

/* A 64-bit hash of (seed, rank, index): the source of every input value. */
static uint64_t mix(uint64_t seed, uint64_t rank, uint64_t i) {
  uint64_t x = seed * UINT64_C(0x9E3779B97F4A7C15) ^
               (rank + 1) * UINT64_C(0xC2B2AE3D27D4EB4F) ^
               (i + 1) * UINT64_C(0x165667B19E3779F9);
  x ^= x >> 30;
  x *= UINT64_C(0xBF58476D1CE4E5B9);
  x ^= x >> 27;
  x *= UINT64_C(0x94D049BB133111EB);
  x ^= x >> 31;
  return x;
}

/* Small per-rank PRNG for the random delays (xorshift64*). */
static uint64_t rng_next(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * UINT64_C(0x2545F4914F6CDD1D);
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "test_diff: rank %d: out of memory (%zu bytes)\n", g_rank,
            n);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return p;
}

/* Runs algorithm alg (a table id, or ALG_TOLD + id).  Told arrival times
 * are a function of the call's arguments, so identical on every rank of
 * comm, and different from call to call. */
static int run_alg(int alg, const void *sbuf, void *rbuf, int count,
                   MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
  double *arrivals;
  int size = 1, rc;
  if (alg < ALG_TOLD)
    return pat_reduce_using((pat_reduce_alg)alg, sbuf, rbuf, count, dt, op,
                            root, comm);
  MPI_Comm_size(comm, &size);
  arrivals = xmalloc((size_t)size * sizeof *arrivals);
  for (int i = 0; i < size; i++)
    arrivals[i] = ((i * 7 + count * 3 + root) % 5) * 1e-5;
  rc = pat_reduce_with_arrivals((pat_reduce_alg)(alg - ALG_TOLD), sbuf, rbuf,
                                count, dt, op, root, comm, arrivals, 1e-5);
  free(arrivals);
  return rc;
}

/* The row that must serve the call: the requested one, or where its
 * table row's restrictions send it (ring: non-commutative ops go to
 * butterfly). */
static int in_shard(int alg) { return (alg % ALG_TOLD) % g_nshards == g_shard; }

/* Section 1 (predefined types and ops, the bulk of the run) gives told
 * arrival times to a row that does not plan with them (uses_arrivals 0)
 * only at the small counts: they change nothing but the model such a row
 * may size its segments with, and every other section runs those told
 * variants in full. */
static int in_predefined(int alg, int count) {
  return in_shard(alg) &&
         (alg < ALG_TOLD || pat_alg_table[alg - ALG_TOLD]->uses_arrivals ||
          count <= g_size + 1);
}

static int served_id(int alg, MPI_Datatype dt, MPI_Op op, int count) {
  pat_call_props props = {.count = count};
  pat_reduce_alg chosen = PAT_REDUCE_ALG_COUNT;
  MPI_Op_commutative(op, &props.commutative);
  pat_type_is_contiguous(dt, &props.contiguous);
  if (pat_alg_select(pat_alg_table, PAT_REDUCE_ALG_COUNT,
                     (pat_reduce_alg)(alg % ALG_TOLD), &props,
                     &chosen) != PAT_SUCCESS)
    return -1;
  return (int)chosen;
}

/* Calls one algorithm and checks the return code and the served algorithm. */
static int call_alg(const ctx *cx, const void *sbuf, void *rbuf, int count,
                    MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm) {
  int rc = run_alg(cx->alg, sbuf, rbuf, count, dt, op, root, comm);
  int ok = mpi_ok(rc, cx, "pat_reduce_using");
  if (ok)
    pass();
  pat_reduce_alg served = PAT_REDUCE_ALG_COUNT;
  int prc = pat_reduce_last_algorithm(comm, &served);
  if (prc != PAT_SUCCESS)
    fail(cx, "pat_reduce_last_algorithm returned %d (%s)", prc,
         pat_strerror(prc));
  else if (served_id(cx->alg, dt, op, count) >= 0 &&
           pat_alg_table[served_id(cx->alg, dt, op, count)]->choose != NULL &&
           count > 0)
    /* a row that picks another (auto): one that can serve the call */
    expect(served < PAT_REDUCE_ALG_COUNT &&
               pat_alg_table[served]->choose == NULL &&
               served_id((int)served, dt, op, count) == (int)served,
           cx, "%s picked %s (id %d), which cannot serve the call",
           alg_name(served_id(cx->alg, dt, op, count)), alg_name((int)served),
           (int)served);
  else
    expect((int)served == served_id(cx->alg, dt, op, count), cx,
           "served by %s (id %d), expected %s", alg_name((int)served),
           (int)served, alg_name(served_id(cx->alg, dt, op, count)));
  return ok;
}

/* Checks that a send buffer still equals its copy (bytes; reports element). */
static void check_unchanged(const ctx *cx, const void *buf, const void *copy,
                            size_t nbytes, size_t elem) {
  const unsigned char *a = buf, *b = copy;
  for (size_t k = 0; k < nbytes; k++) {
    if (a[k] != b[k]) {
      fail(cx, "send buffer modified: element %zu byte %zu: 0x%02x, was 0x%02x",
           k / elem, k % elem, a[k], b[k]);
      return;
    }
  }
  pass();
}

/* counts {0,1,3,P-1,P,P+1,1000,262144}, deduplicated; returns how many. */
static int build_counts(int P, int quick, int out[8]) {
  const int cand[8] = {0, 1, 3, P - 1, P, P + 1, 1000, BIG_COUNT};
  int n = 0;
  for (int k = 0; k < 8; k++) {
    int dup = cand[k] < 0 || (quick && cand[k] == BIG_COUNT);
    for (int j = 0; j < n && !dup; j++)
      dup = out[j] == cand[k];
    if (!dup)
      out[n++] = cand[k];
  }
  return n;
}

/* roots {0, P/2, P-1}, deduplicated; returns how many. */
static int build_roots(int P, int out[3]) {
  const int cand[3] = {0, P / 2, P - 1};
  int n = 0;
  for (int k = 0; k < 3; k++) {
    int dup = 0;
    for (int j = 0; j < n; j++)
      dup |= out[j] == cand[k];
    if (!dup)
      out[n++] = cand[k];
  }
  return n;
}

/* ------------------------------------------------------------------------ */
/* Section 1: predefined datatypes and ops                                  */
/* ------------------------------------------------------------------------ */

typedef enum op_class {
  OPC_SUM,
  OPC_PROD,
  OPC_MAX,
  OPC_MIN,
  OPC_LAND,
  OPC_LOR,
  OPC_LXOR,
  OPC_BAND,
  OPC_BOR,
  OPC_BXOR,
  OPC_MINLOC,
  OPC_MAXLOC,
  OPC_COUNT
} op_class;

static const char *const op_names[OPC_COUNT] = {
    "MPI_SUM",  "MPI_PROD", "MPI_MAX", "MPI_MIN",  "MPI_LAND",   "MPI_LOR",
    "MPI_LXOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC"};

static MPI_Op op_handle(op_class o) {
  switch (o) {
  case OPC_SUM:
    return MPI_SUM;
  case OPC_PROD:
    return MPI_PROD;
  case OPC_MAX:
    return MPI_MAX;
  case OPC_MIN:
    return MPI_MIN;
  case OPC_LAND:
    return MPI_LAND;
  case OPC_LOR:
    return MPI_LOR;
  case OPC_LXOR:
    return MPI_LXOR;
  case OPC_BAND:
    return MPI_BAND;
  case OPC_BOR:
    return MPI_BOR;
  case OPC_BXOR:
    return MPI_BXOR;
  case OPC_MINLOC:
    return MPI_MINLOC;
  case OPC_MAXLOC:
    return MPI_MAXLOC;
  default:
    return MPI_OP_NULL;
  }
}

#define OPBIT(o) (1u << (o))
#define OPS_INTEGER                                                            \
  (OPBIT(OPC_SUM) | OPBIT(OPC_PROD) | OPBIT(OPC_MAX) | OPBIT(OPC_MIN) |        \
   OPBIT(OPC_LAND) | OPBIT(OPC_LOR) | OPBIT(OPC_LXOR) | OPBIT(OPC_BAND) |      \
   OPBIT(OPC_BOR) | OPBIT(OPC_BXOR))
#define OPS_REAL                                                               \
  (OPBIT(OPC_SUM) | OPBIT(OPC_PROD) | OPBIT(OPC_MAX) | OPBIT(OPC_MIN))
#define OPS_COMPLEX (OPBIT(OPC_SUM) | OPBIT(OPC_PROD))
#define OPS_LOC (OPBIT(OPC_MINLOC) | OPBIT(OPC_MAXLOC))

typedef enum kind {
  K_INT,
  K_LONG,
  K_UCHAR,
  K_FLOAT,
  K_DOUBLE,
  K_CDOUBLE,
  K_DOUBLE_INT,
  K_2INT
} kind;

typedef struct double_int {
  double v;
  int idx;
} double_int;
typedef struct two_int {
  int v;
  int idx;
} two_int;

/* The bytes of an element that carry data (pair types have padding). */
typedef struct segment {
  size_t off, len;
} segment;

typedef struct type_info {
  kind k;
  const char *name;
  size_t size; /* C size = MPI extent of one element */
  unsigned ops;
  int nseg;
  segment seg[2];
} type_info;

static const type_info types[] = {
    {K_INT, "MPI_INT", sizeof(int), OPS_INTEGER, 1, {{0, sizeof(int)}}},
    {K_LONG, "MPI_LONG", sizeof(long), OPS_INTEGER, 1, {{0, sizeof(long)}}},
    {K_UCHAR, "MPI_UNSIGNED_CHAR", 1, OPS_INTEGER, 1, {{0, 1}}},
    {K_FLOAT, "MPI_FLOAT", sizeof(float), OPS_REAL, 1, {{0, sizeof(float)}}},
    {K_DOUBLE,
     "MPI_DOUBLE",
     sizeof(double),
     OPS_REAL,
     1,
     {{0, sizeof(double)}}},
    {K_CDOUBLE,
     "MPI_C_DOUBLE_COMPLEX",
     2 * sizeof(double),
     OPS_COMPLEX,
     1,
     {{0, 2 * sizeof(double)}}},
    {K_DOUBLE_INT,
     "MPI_DOUBLE_INT",
     sizeof(double_int),
     OPS_LOC,
     2,
     {{offsetof(double_int, v), sizeof(double)},
      {offsetof(double_int, idx), sizeof(int)}}},
    {K_2INT,
     "MPI_2INT",
     sizeof(two_int),
     OPS_LOC,
     2,
     {{offsetof(two_int, v), sizeof(int)},
      {offsetof(two_int, idx), sizeof(int)}}},
};
enum { NTYPES = sizeof types / sizeof types[0], MAX_ELEM = 16 };

static MPI_Datatype type_handle(kind k) {
  switch (k) {
  case K_INT:
    return MPI_INT;
  case K_LONG:
    return MPI_LONG;
  case K_UCHAR:
    return MPI_UNSIGNED_CHAR;
  case K_FLOAT:
    return MPI_FLOAT;
  case K_DOUBLE:
    return MPI_DOUBLE;
  case K_CDOUBLE:
    return MPI_C_DOUBLE_COMPLEX;
  case K_DOUBLE_INT:
    return MPI_DOUBLE_INT;
  case K_2INT:
    return MPI_2INT;
  }
  return MPI_DATATYPE_NULL;
}

/* Integer inputs as raw bits (two's complement for negative values).  Sums
 * and products stay small, so they are exact in any order (unsigned char
 * wraps, which is exact too); logical ops see a mix of zero and nonzero. */
static uint64_t int_pattern(const type_info *t, op_class o, uint32_t a,
                            uint32_t b) {
  const int uns = t->k == K_UCHAR;
  const uint32_t width = (uint32_t)(8 * t->size);
  const uint32_t rare = 2u * (uint32_t)g_size;
  static const int64_t prod[3] = {-1, 1, 2};
  switch (o) {
  case OPC_SUM:
    return uns ? a % 256u : (uint64_t)((int64_t)(a % 11u) - 5);
  case OPC_PROD:
    return uns ? 1u + a % 3u : (uint64_t)prod[a % 3u];
  case OPC_MAX:
  case OPC_MIN:
    return uns ? a % 256u : (uint64_t)((int64_t)(a % 2001u) - 1000);
  case OPC_LAND:
    return a % rare == 0 ? 0 : 1u + b % 5u;
  case OPC_LOR:
    return a % rare == 0 ? 1u + b % 5u : 0;
  case OPC_LXOR:
    return (a & 1u) ? 1u + b % 5u : 0;
  case OPC_BAND:
    return ~(UINT64_C(1) << (a % width));
  case OPC_BOR:
    return UINT64_C(1) << (a % width);
  case OPC_BXOR:
    return (uint64_t)a << 32 | b;
  default:
    return 0;
  }
}

static void store_int_bits(kind k, uint64_t bits, void *out) {
  if (k == K_INT) {
    unsigned v = (unsigned)bits;
    memcpy(out, &v, sizeof v);
  } else if (k == K_LONG) {
    unsigned long v = (unsigned long)bits;
    memcpy(out, &v, sizeof v);
  } else {
    unsigned char v = (unsigned char)bits;
    memcpy(out, &v, sizeof v);
  }
}

/* Real inputs: small integers for SUM, +-powers of two for PROD, multiples
 * of 1/8 for MAX/MIN: all exact. */
static double real_pattern(op_class o, uint32_t a) {
  static const double prod[4] = {-1.0, 1.0, 2.0, 0.5};
  if (o == OPC_SUM)
    return (double)(a % 21u) - 10.0;
  if (o == OPC_PROD)
    return prod[a % 4u];
  return (double)(a % 2001u) / 8.0 - 125.0;
}

/* Complex inputs: small Gaussian integers; for PROD from {1, i, -1, -i, 1+i}
 * so products are Gaussian integers of modest size. */
static void complex_pattern(op_class o, uint32_t a, uint32_t b, double z[2]) {
  static const double unit[5][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}};
  if (o == OPC_PROD) {
    z[0] = unit[a % 5u][0];
    z[1] = unit[a % 5u][1];
  } else {
    z[0] = (double)(a % 21u) - 10.0;
    z[1] = (double)(b % 21u) - 10.0;
  }
}

/* One element of rank's input; pair types get few distinct values (ties)
 * and indices that are not ordered like ranks. */
static void gen_element(const type_info *t, op_class o, uint64_t h, void *out) {
  const uint32_t a = (uint32_t)h, b = (uint32_t)(h >> 32);
  unsigned char *p = out;
  switch (t->k) {
  case K_INT:
  case K_LONG:
  case K_UCHAR:
    store_int_bits(t->k, int_pattern(t, o, a, b), out);
    break;
  case K_FLOAT: {
    float f = (float)real_pattern(o, a);
    memcpy(out, &f, sizeof f);
    break;
  }
  case K_DOUBLE: {
    double d = real_pattern(o, a);
    memcpy(out, &d, sizeof d);
    break;
  }
  case K_CDOUBLE: {
    double z[2];
    complex_pattern(o, a, b, z);
    memcpy(out, z, sizeof z);
    break;
  }
  case K_DOUBLE_INT: {
    double v = (double)(a % 4u);
    int idx = (int)(b % 8u) - 2;
    memcpy(p + offsetof(double_int, v), &v, sizeof v);
    memcpy(p + offsetof(double_int, idx), &idx, sizeof idx);
    break;
  }
  case K_2INT: {
    int v = (int)(a % 4u) - 1, idx = (int)(b % 8u) - 2;
    memcpy(p + offsetof(two_int, v), &v, sizeof v);
    memcpy(p + offsetof(two_int, idx), &idx, sizeof idx);
    break;
  }
  }
}

static void format_element(const type_info *t, const void *elem, char *buf,
                           size_t n) {
  const unsigned char *p = elem;
  switch (t->k) {
  case K_INT: {
    int v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, n, "%d", v);
    break;
  }
  case K_LONG: {
    long v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, n, "%ld", v);
    break;
  }
  case K_UCHAR:
    snprintf(buf, n, "%u", (unsigned)p[0]);
    break;
  case K_FLOAT: {
    float v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, n, "%.9g", (double)v);
    break;
  }
  case K_DOUBLE: {
    double v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, n, "%.17g", v);
    break;
  }
  case K_CDOUBLE: {
    double z[2];
    memcpy(z, p, sizeof z);
    snprintf(buf, n, "(%.17g,%.17g)", z[0], z[1]);
    break;
  }
  case K_DOUBLE_INT: {
    double v;
    int idx;
    memcpy(&v, p + offsetof(double_int, v), sizeof v);
    memcpy(&idx, p + offsetof(double_int, idx), sizeof idx);
    snprintf(buf, n, "(%.17g,%d)", v, idx);
    break;
  }
  case K_2INT: {
    int v, idx;
    memcpy(&v, p + offsetof(two_int, v), sizeof v);
    memcpy(&idx, p + offsetof(two_int, idx), sizeof idx);
    snprintf(buf, n, "(%d,%d)", v, idx);
    break;
  }
  }
}

/* Whether two elements are equal: bitwise over the data segments, except
 * complex components, compared as numbers because the sign of a zero
 * component of a complex product may depend on the combination order. */
static int element_equal(const type_info *t, const unsigned char *x,
                         const unsigned char *y) {
  if (t->k == K_CDOUBLE) {
    double a[2], b[2];
    memcpy(a, x, sizeof a);
    memcpy(b, y, sizeof b);
    return a[0] == b[0] && a[1] == b[1];
  }
  for (int s = 0; s < t->nseg; s++)
    if (memcmp(x + t->seg[s].off, y + t->seg[s].off, t->seg[s].len) != 0)
      return 0;
  return 1;
}

/* Compares count elements; one check. */
static void check_elements(const ctx *cx, const type_info *t, const void *got,
                           const void *want, int count) {
  const unsigned char *g = got, *w = want;
  for (int i = 0; i < count; i++) {
    const size_t off = (size_t)i * t->size;
    if (!element_equal(t, g + off, w + off)) {
      char gs[96], ws[96];
      format_element(t, g + off, gs, sizeof gs);
      format_element(t, w + off, ws, sizeof ws);
      fail(cx, "first bad index %d: got %s, expected %s", i, gs, ws);
      return;
    }
  }
  pass();
}

typedef struct bufs {
  unsigned char *send, *copy, *ref, *recv;
} bufs;

/* Runs every algorithm, in place and not, for one (type, op, count, root);
 * ref holds PMPI_Reduce's result at the root. */
static void predefined_case(ctx cx, const type_info *t, MPI_Op op,
                            const bufs *b, int count, int root) {
  const MPI_Datatype dt = type_handle(t->k);
  const size_t nbytes = (size_t)count * t->size;
  const int is_root = g_rank == root;
  for (int a = 0; a < NALGS; a++) {
    if (!in_predefined(a, count))
      continue;
    for (int inplace = 0; inplace < 2; inplace++) {
      cx.alg = a;
      cx.inplace = inplace;
      memset(b->recv, 0xA5, nbytes);
      if (inplace && is_root)
        memcpy(b->recv, b->send, nbytes);
      const void *sbuf = inplace && is_root ? MPI_IN_PLACE : b->send;
      int ok =
          call_alg(&cx, sbuf, b->recv, count, dt, op, root, MPI_COMM_WORLD);
      if (ok && is_root)
        check_elements(&cx, t, b->recv, b->ref, count);
      if (sbuf != MPI_IN_PLACE)
        check_unchanged(&cx, b->send, b->copy, nbytes, t->size);
    }
  }
}

static void check_type_extent(const ctx *cx, const type_info *t) {
  MPI_Aint lb = -1, extent = -1;
  if (!mpi_ok(MPI_Type_get_extent(type_handle(t->k), &lb, &extent), cx,
              "MPI_Type_get_extent"))
    return;
  expect(lb == 0 && (size_t)extent == t->size, cx,
         "MPI lb/extent %ld/%ld differ from the C layout 0/%zu", (long)lb,
         (long)extent, t->size);
}

static void run_predefined(int quick) {
  int counts[8], roots[3];
  const int ncounts = build_counts(g_size, quick, counts);
  const int nroots = build_roots(g_size, roots);
  const int maxcount = quick ? 1000 : BIG_COUNT;
  const size_t maxbytes =
      (size_t)(maxcount > g_size + 1 ? maxcount : g_size + 1) * MAX_ELEM;
  bufs b = {xmalloc(maxbytes), xmalloc(maxbytes), xmalloc(maxbytes),
            xmalloc(maxbytes)};

  for (int ti = 0; ti < NTYPES; ti++) {
    const type_info *t = &types[ti];
    ctx cx = {"predefined", t->name, -1, 0, 0, 0};
    check_type_extent(&cx, t);
    for (int o = 0; o < OPC_COUNT; o++) {
      if (!(t->ops & OPBIT(o)))
        continue;
      char what[64];
      snprintf(what, sizeof what, "%s/%s", t->name, op_names[o]);
      stage("predefined", what);
      cx.what = what;
      const MPI_Op op = op_handle((op_class)o);
      for (int ci = 0; ci < ncounts; ci++) {
        const int count = counts[ci];
        const size_t nbytes = (size_t)count * t->size;
        const uint64_t seed = (uint64_t)(ti * 1000 + o * 10 + ci);
        memset(b.send, 0, nbytes); /* deterministic padding bytes */
        for (int i = 0; i < count; i++)
          gen_element(t, (op_class)o, mix(seed, (uint64_t)g_rank, (uint64_t)i),
                      b.send + (size_t)i * t->size);
        memcpy(b.copy, b.send, nbytes);
        for (int ri = 0; ri < nroots; ri++) {
          cx.alg = -1;
          cx.count = count;
          cx.root = roots[ri];
          cx.inplace = 0;
          memset(b.ref, 0x5A, nbytes);
          if (!mpi_ok(PMPI_Reduce(b.send, b.ref, count, type_handle(t->k), op,
                                  roots[ri], MPI_COMM_WORLD),
                      &cx, "PMPI_Reduce"))
            continue;
          predefined_case(cx, t, op, &b, count, roots[ri]);
        }
      }
    }
  }
  free(b.send);
  free(b.copy);
  free(b.ref);
  free(b.recv);
}

/* ------------------------------------------------------------------------ */
/* Section 2: non-commutative user op (2x2 matrix product mod 2^32)          */
/* ------------------------------------------------------------------------ */

/* r = x * y, row-major 2x2 matrices; r may alias neither. */
static void mat_mul(const unsigned *x, const unsigned *y, unsigned *r) {
  r[0] = x[0] * y[0] + x[1] * y[2];
  r[1] = x[0] * y[1] + x[1] * y[3];
  r[2] = x[2] * y[0] + x[3] * y[2];
  r[3] = x[2] * y[1] + x[3] * y[3];
}

/* MPI semantics: inout[k] = in[k] (op) inout[k], in being the left operand. */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const unsigned *x = in;
  unsigned *y = inout;
  for (int k = 0; k < *len; k++) {
    unsigned r[4];
    mat_mul(x + 4 * k, y + 4 * k, r);
    memcpy(y + 4 * k, r, sizeof r);
  }
}

static void mat_input(uint64_t seed, int rank, int count, unsigned *m) {
  for (int i = 0; i < 4 * count; i++)
    m[i] = (unsigned)(mix(seed, (uint64_t)rank, (uint64_t)i) % 4u);
}

/* x_0 * x_1 * ... * x_{n-1} per element, regenerating every rank's input. */
static void mat_reference(uint64_t seed, int n, int count, unsigned *ref,
                          unsigned *scratch) {
  mat_input(seed, 0, count, ref);
  for (int r = 1; r < n; r++) {
    mat_input(seed, r, count, scratch);
    for (int k = 0; k < count; k++) {
      unsigned p[4];
      mat_mul(ref + 4 * k, scratch + 4 * k, p);
      memcpy(ref + 4 * k, p, sizeof p);
    }
  }
}

static void check_mats(const ctx *cx, const unsigned *got, const unsigned *want,
                       int count) {
  for (int i = 0; i < 4 * count; i++) {
    if (got[i] != want[i]) {
      const int k = i / 4;
      const unsigned *g = got + 4 * k, *w = want + 4 * k;
      fail(cx,
           "first bad index %d: got [%u %u; %u %u], expected [%u %u; %u %u]", k,
           g[0], g[1], g[2], g[3], w[0], w[1], w[2], w[3]);
      return;
    }
  }
  pass();
}

static void run_noncommutative(MPI_Datatype mat, MPI_Op op) {
  static const int counts[] = {0, 1, 3, 1000};
  int roots[3];
  const int nroots = build_roots(g_size, roots);
  const size_t maxbytes = 1000 * 4 * sizeof(unsigned);
  unsigned *send = xmalloc(maxbytes), *copy = xmalloc(maxbytes);
  unsigned *ref = xmalloc(maxbytes), *recv = xmalloc(maxbytes);
  unsigned *scratch = xmalloc(maxbytes);
  stage("noncommutative", "2x2 matrix product");
  for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
    const int count = counts[ci];
    const size_t nbytes = (size_t)count * 4 * sizeof(unsigned);
    const uint64_t seed = 0x2000 + ci;
    mat_input(seed, g_rank, count, send);
    memcpy(copy, send, nbytes);
    for (int ri = 0; ri < nroots; ri++) {
      const int root = roots[ri], is_root = g_rank == root;
      ctx cx = {
          "noncommutative", "mat2x2(4xMPI_INT)/user op", -1, count, root, 0};
      if (is_root)
        mat_reference(seed, g_size, count, ref, scratch);
      /* Sanity check of the reference against the MPI library. */
      memset(recv, 0xA5, nbytes);
      if (mpi_ok(PMPI_Reduce(send, recv, count, mat, op, root, MPI_COMM_WORLD),
                 &cx, "PMPI_Reduce") &&
          is_root)
        check_mats(&cx, recv, ref, count);
      for (int a = 0; a < NALGS; a++) {
        if (!in_shard(a))
          continue;
        for (int inplace = 0; inplace < 2; inplace++) {
          cx.alg = a;
          cx.inplace = inplace;
          memset(recv, 0xA5, nbytes);
          if (inplace && is_root)
            memcpy(recv, send, nbytes);
          const void *sbuf = inplace && is_root ? MPI_IN_PLACE : (void *)send;
          if (call_alg(&cx, sbuf, recv, count, mat, op, root, MPI_COMM_WORLD) &&
              is_root)
            check_mats(&cx, recv, ref, count);
          if (sbuf != MPI_IN_PLACE)
            check_unchanged(&cx, send, copy, nbytes, 4 * sizeof(unsigned));
        }
      }
    }
  }
  free(send);
  free(copy);
  free(ref);
  free(recv);
  free(scratch);
}

/* ------------------------------------------------------------------------ */
/* Section 3: derived datatypes with gaps                                   */
/* ------------------------------------------------------------------------ */

/* A layout of ints: where one element's data lie relative to the buffer
 * (displ), and the lower bound and extent MPI must report, all in ints. */
typedef struct layout {
  const char *name;
  int ndata;
  int displ[8];
  int lb, extent;
  int (*make)(MPI_Datatype *out);
} layout;

static int make_vector(MPI_Datatype *out) {
  return MPI_Type_vector(5, 1, 2, MPI_INT, out);
}

static int make_vector_blocks(MPI_Datatype *out) {
  return MPI_Type_vector(3, 2, 5, MPI_INT, out);
}

static int make_indexed(MPI_Datatype *out) {
  static const int displ[3] = {1, 3, 4};
  return MPI_Type_create_indexed_block(3, 1, displ, MPI_INT, out);
}

static int make_resized(MPI_Datatype *out) {
  static const int displ[2] = {1, 3};
  MPI_Datatype base;
  int rc = MPI_Type_create_indexed_block(2, 1, displ, MPI_INT, &base);
  if (rc != MPI_SUCCESS)
    return rc;
  rc = MPI_Type_create_resized(base, -2 * (MPI_Aint)sizeof(int),
                               8 * (MPI_Aint)sizeof(int), out);
  MPI_Type_free(&base);
  return rc;
}

static const layout layouts[] = {
    {"vector(5,1,2,MPI_INT)", 5, {0, 2, 4, 6, 8}, 0, 9, make_vector},
    {"vector(3,2,5,MPI_INT)",
     6,
     {0, 1, 5, 6, 10, 11},
     0,
     12,
     make_vector_blocks},
    {"indexed_block{1,3,4} (lb=4B)", 3, {1, 3, 4}, 1, 4, make_indexed},
    {"resized(indexed_block{1,3},lb=-8B,extent=32B)",
     2,
     {1, 3},
     -2,
     8,
     make_resized},
};

enum { LAYOUT_PAD = 16, CANARY = 0x7EADBEEF };

/* Open MPI rejects predefined ops on derived datatypes (MPI_ERR_OP), so the
 * derived types are also reduced with a user-defined commutative integer sum
 * that knows the layout and touches only the data positions.  It counts
 * calls made with another datatype than the reduction's. */
static const layout *g_layout;
static MPI_Datatype g_layout_dt;
static long g_layout_bad_dt;

static void layout_sum_op(void *in, void *inout, int *len, MPI_Datatype *dt) {
  const int *x = in;
  int *y = inout;
  if (*dt != g_layout_dt)
    g_layout_bad_dt++;
  for (int k = 0; k < *len; k++)
    for (int d = 0; d < g_layout->ndata; d++) {
      const int p = k * g_layout->extent + g_layout->displ[d];
      y[p] = (int)((unsigned)y[p] + (unsigned)x[p]);
    }
}

/* Fills a send buffer: data from the seed, gaps with rank-specific junk
 * that must not reach the result. */
static void fill_layout(int *buf, const unsigned char *mask, int nints,
                        uint64_t seed) {
  for (int p = 0; p < nints; p++)
    buf[p] = mask[p]
                 ? (int)(mix(seed, (uint64_t)g_rank, (uint64_t)p) % 201u) - 100
                 : 1000000 + 1000 * g_rank + p;
}

/* One check: data positions equal want, gaps hold the canary. */
static void check_layout(const ctx *cx, const int *got, const int *want,
                         const unsigned char *mask, int nints) {
  for (int p = 0; p < nints; p++) {
    if (mask[p] && got[p] != want[p]) {
      fail(cx, "first bad data int %d (from buffer start): got %d, expected %d",
           p - LAYOUT_PAD, got[p], want[p]);
      return;
    }
    if (!mask[p] && got[p] != CANARY) {
      fail(cx, "gap int %d (from buffer start) overwritten: got %d (0x%x)",
           p - LAYOUT_PAD, got[p], (unsigned)got[p]);
      return;
    }
  }
  pass();
}

/* When PMPI_Reduce rejects a call (Open MPI rejects predefined ops on
 * derived datatypes), every algorithm must reject it too, with the same error
 * class; the call runs no reduction, so only the error class is checked. */
static void expect_same_error(const ctx *cx, int ref_rc, const void *sbuf,
                              void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                              int root) {
  int ref_class = -1, got_class = -1;
  MPI_Error_class(ref_rc, &ref_class);
  int rc = run_alg(cx->alg, sbuf, rbuf, count, dt, op, root, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &got_class);
  expect(rc != MPI_SUCCESS && got_class == ref_class, cx,
         "PMPI_Reduce fails with error class %d, the algorithm returned %d "
         "(class %d)",
         ref_class, rc, got_class);
}

/* One layout, op and count: every root, algorithm and in-place mode. */
static void layout_case(const layout *L, MPI_Datatype dt, MPI_Op op,
                        const char *what, int count) {
  int roots[3];
  const int nroots = build_roots(g_size, roots);
  /* ints [0, LAYOUT_PAD) before buf, count+1 extents and a pad after. */
  const int nints = 2 * LAYOUT_PAD + (count + 1) * L->extent;
  const size_t nbytes = (size_t)nints * sizeof(int);
  unsigned char *mask = xmalloc((size_t)nints);
  int *send = xmalloc(nbytes), *copy = xmalloc(nbytes);
  int *ref = xmalloc(nbytes), *recv = xmalloc(nbytes);
  memset(mask, 0, (size_t)nints);
  for (int k = 0; k < count; k++)
    for (int d = 0; d < L->ndata; d++)
      mask[LAYOUT_PAD + k * L->extent + L->displ[d]] = 1;
  const uint64_t seed = 0x3000 + (uint64_t)count * 16 + (uint64_t)(L - layouts);
  fill_layout(send, mask, nints, seed);
  memcpy(copy, send, nbytes);

  for (int ri = 0; ri < nroots; ri++) {
    const int root = roots[ri], is_root = g_rank == root;
    ctx cx = {"derived", what, -1, count, root, 0};
    for (int p = 0; p < nints; p++)
      ref[p] = CANARY;
    const int ref_rc = PMPI_Reduce(send + LAYOUT_PAD, ref + LAYOUT_PAD, count,
                                   dt, op, root, MPI_COMM_WORLD);
    for (int a = 0; a < NALGS; a++) {
      if (!in_shard(a))
        continue;
      for (int inplace = 0; inplace < 2; inplace++) {
        cx.alg = a;
        cx.inplace = inplace;
        for (int p = 0; p < nints; p++)
          recv[p] = inplace && is_root && mask[p] ? send[p] : CANARY;
        const void *sbuf =
            inplace && is_root ? MPI_IN_PLACE : (void *)(send + LAYOUT_PAD);
        if (ref_rc != MPI_SUCCESS) {
          expect_same_error(&cx, ref_rc, sbuf, recv + LAYOUT_PAD, count, dt, op,
                            root);
        } else {
          g_layout_bad_dt = 0;
          if (call_alg(&cx, sbuf, recv + LAYOUT_PAD, count, dt, op, root,
                       MPI_COMM_WORLD) &&
              is_root)
            check_layout(&cx, recv, ref, mask, nints);
          expect(g_layout_bad_dt == 0, &cx,
                 "user op called %ld times with another datatype",
                 g_layout_bad_dt);
        }
        if (sbuf != MPI_IN_PLACE)
          check_unchanged(&cx, send, copy, nbytes, sizeof(int));
      }
    }
  }
  free(mask);
  free(send);
  free(copy);
  free(ref);
  free(recv);
}

static void run_derived(void) {
  static const int counts[] = {0, 1, 3};
  ctx cx = {"derived", "setup", -1, 0, 0, 0};
  MPI_Op user_sum;
  if (!mpi_ok(MPI_Op_create(layout_sum_op, 1, &user_sum), &cx, "MPI_Op_create"))
    return;
  const struct {
    MPI_Op op;
    const char *name;
  } ops[2] = {{MPI_SUM, "MPI_SUM"}, {user_sum, "user int sum (commutative)"}};
  for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++) {
    const layout *L = &layouts[li];
    cx.what = L->name;
    stage("derived", L->name);
    MPI_Datatype dt;
    if (!mpi_ok(L->make(&dt), &cx, "type constructor"))
      continue;
    if (!mpi_ok(MPI_Type_commit(&dt), &cx, "MPI_Type_commit"))
      continue;
    MPI_Aint lb = 0, extent = 0;
    if (mpi_ok(MPI_Type_get_extent(dt, &lb, &extent), &cx,
               "MPI_Type_get_extent"))
      expect(lb == L->lb * (MPI_Aint)sizeof(int) &&
                 extent == L->extent * (MPI_Aint)sizeof(int),
             &cx, "lb/extent %ld/%ld, layout says %ld/%ld bytes", (long)lb,
             (long)extent, (long)(L->lb * (int)sizeof(int)),
             (long)(L->extent * (int)sizeof(int)));
    g_layout = L;
    g_layout_dt = dt;
    for (int o = 0; o < 2; o++) {
      char what[128];
      snprintf(what, sizeof what, "%s/%s", L->name, ops[o].name);
      for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
        layout_case(L, dt, ops[o].op, what, counts[ci]);
    }
    MPI_Type_free(&dt);
  }
  MPI_Op_free(&user_sum);
}

/* ------------------------------------------------------------------------ */
/* Sections 4-6: back-to-back calls, two communicators, MPI_COMM_SELF       */
/* ------------------------------------------------------------------------ */

static int int_input(uint64_t seed, int rank, int i) {
  return (int)(mix(seed, (uint64_t)rank, (uint64_t)i) % 1001u) - 500;
}

/* One MPI_INT reduction (SUM or MAX) of count elements on comm, checked at
 * the root against the value computed from every rank's formula. */
static void int_call(ctx cx, MPI_Comm comm, int use_max, uint64_t seed,
                     long max_sleep_us, uint64_t *rng, int *send, int *copy,
                     int *recv) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  const int count = cx.count, root = cx.root, is_root = me == root;
  const int inplace = cx.inplace && is_root;
  for (int i = 0; i < count; i++)
    send[i] = int_input(seed, me, i);
  memcpy(copy, send, (size_t)count * sizeof(int));
  for (int i = 0; i < count; i++)
    recv[i] = inplace ? send[i] : CANARY;
  if (max_sleep_us > 0)
    sleep_us((long)(rng_next(rng) % (uint64_t)(max_sleep_us + 1)));
  const void *sbuf = inplace ? MPI_IN_PLACE : (void *)send;
  const int ok = call_alg(&cx, sbuf, recv, count, MPI_INT,
                          use_max ? MPI_MAX : MPI_SUM, root, comm);
  if (!inplace)
    check_unchanged(&cx, send, copy, (size_t)count * sizeof(int), sizeof(int));
  if (!ok || !is_root)
    return;
  for (int i = 0; i < count; i++) {
    int want = int_input(seed, 0, i);
    for (int r = 1; r < n; r++) {
      const int v = int_input(seed, r, i);
      want = use_max ? (v > want ? v : want) : want + v;
    }
    if (recv[i] != want) {
      fail(&cx, "first bad index %d: got %d, expected %d", i, recv[i], want);
      return;
    }
  }
  pass();
}

enum { STRESS_CALLS = 200, STRESS_MAX_COUNT = 4096 };

static void run_back_to_back(int alg, int *send, int *copy, int *recv) {
  static const int counts[] = {1, 0, 33, 1000, 7, 4096, 2, 250};
  const int ncounts = (int)(sizeof counts / sizeof counts[0]);
  uint64_t rng =
      UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(g_rank + 1) + (uint64_t)alg;
  stage("back-to-back", alg_name(alg));
  for (int call = 0; call < STRESS_CALLS; call++) {
    const int use_max = call % 2;
    ctx cx = {"back-to-back",
              use_max ? "MPI_INT/MPI_MAX" : "MPI_INT/MPI_SUM",
              alg,
              counts[call % ncounts],
              call % g_size,
              call % 3 == 2};
    int_call(cx, MPI_COMM_WORLD, use_max,
             0x4000 + (uint64_t)(alg * 1000 + call), 300, &rng, send, copy,
             recv);
  }
}

/* Alternates calls on a dup of MPI_COMM_WORLD and on an even/odd split of it;
 * odd ranks call on the split first, so traffic of both communicators is in
 * flight at once (the order is deadlock-free: the splits are disjoint). */
static void run_two_comms(int alg, MPI_Comm dup, MPI_Comm split, int *send,
                          int *copy, int *recv) {
  static const int counts[] = {5, 300, 1, 64};
  const int odd = g_rank % 2;
  uint64_t rng =
      UINT64_C(0xD1B54A32D192ED03) * (uint64_t)(g_rank + 1) + (uint64_t)alg;
  stage("two-comms", alg_name(alg));
  for (int k = 0; k < 40; k++) {
    for (int j = 0; j < 2; j++) {
      const int on_split = (j == 0) == odd;
      const MPI_Comm comm = on_split ? split : dup;
      const int id = on_split ? 1 + odd : 0;
      int n;
      MPI_Comm_size(comm, &n);
      ctx cx = {"two-comms",
                id == 0   ? "MPI_INT/MPI_SUM on dup(WORLD)"
                : id == 1 ? "MPI_INT/MPI_SUM on split(even)"
                          : "MPI_INT/MPI_SUM on split(odd)",
                alg,
                counts[k % 4] + id,
                k % n,
                k % 2};
      int_call(cx, comm, 0, 0x5000 + (uint64_t)(alg * 1000 + k * 4 + id), 50,
               &rng, send, copy, recv);
    }
  }
}

/* The buffers hold STRESS_MAX_COUNT ints: room for 1000 matrices. */
_Static_assert(1000 * 4 <= STRESS_MAX_COUNT, "buffers too small for run_self");

static void run_self(int alg, MPI_Datatype mat, MPI_Op matop, int *send,
                     int *copy, int *recv) {
  static const int counts[] = {0, 1, 3, 1000};
  stage("self", alg_name(alg));
  for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
    for (int inplace = 0; inplace < 2; inplace++) {
      ctx cx = {"self", "MPI_INT/MPI_SUM on MPI_COMM_SELF", alg, counts[ci], 0,
                inplace};
      int_call(cx, MPI_COMM_SELF, 0, 0x6000 + ci, 0, NULL, send, copy, recv);

      /* The non-commutative op on one rank: the result is the input. */
      const int count = counts[ci];
      const size_t nbytes = (size_t)count * 4 * sizeof(unsigned);
      unsigned *ms = (unsigned *)(void *)send, *mc = (unsigned *)(void *)copy;
      unsigned *mr = (unsigned *)(void *)recv;
      cx.what = "mat2x2/user op on MPI_COMM_SELF";
      cx.count = count;
      mat_input(0x6100 + ci, g_rank, count, ms);
      memcpy(mc, ms, nbytes);
      memset(mr, 0xA5, nbytes);
      if (inplace)
        memcpy(mr, ms, nbytes);
      if (call_alg(&cx, inplace ? MPI_IN_PLACE : (void *)ms, mr, count, mat,
                   matop, 0, MPI_COMM_SELF))
        check_mats(&cx, mr, mc, count);
      if (!inplace)
        check_unchanged(&cx, ms, mc, nbytes, 4 * sizeof(unsigned));
    }
  }
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int quick = 0;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--quick") == 0) {
      quick = 1;
    } else if (strncmp(argv[k], "--shard=", 8) == 0 &&
               sscanf(argv[k] + 8, "%d/%d", &g_shard, &g_nshards) == 2 &&
               g_nshards >= 1 && g_shard >= 0 && g_shard < g_nshards) {
      continue;
    } else if (g_rank == 0) {
      fprintf(stderr, "usage: %s [--quick] [--shard=K/N]\n", argv[0]);
    }
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  watchdog_init();

  ctx setup = {"setup", "-", -1, 0, 0, 0};
  MPI_Datatype mat = MPI_DATATYPE_NULL;
  MPI_Op matop = MPI_OP_NULL;
  MPI_Comm dup = MPI_COMM_NULL, split = MPI_COMM_NULL;
  const int have_mat =
      mpi_ok(MPI_Type_contiguous(4, MPI_INT, &mat), &setup,
             "MPI_Type_contiguous") &&
      mpi_ok(MPI_Type_commit(&mat), &setup, "MPI_Type_commit") &&
      mpi_ok(MPI_Op_create(mat_op, 0, &matop), &setup, "MPI_Op_create");
  const int have_comms =
      mpi_ok(MPI_Comm_dup(MPI_COMM_WORLD, &dup), &setup, "MPI_Comm_dup") &&
      mpi_ok(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &split), &setup,
             "MPI_Comm_split");
  if (have_comms) {
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
  }

  run_predefined(quick);
  if (have_mat)
    run_noncommutative(mat, matop);
  run_derived();

  const size_t nbytes = STRESS_MAX_COUNT * sizeof(int);
  int *send = xmalloc(nbytes), *copy = xmalloc(nbytes), *recv = xmalloc(nbytes);
  for (int a = 0; a < NALGS; a++) {
    if (!in_shard(a))
      continue;
    run_back_to_back(a, send, copy, recv);
    if (have_comms)
      run_two_comms(a, dup, split, send, copy, recv);
    if (have_mat)
      run_self(a, mat, matop, send, copy, recv);
  }
  free(send);
  free(copy);
  free(recv);

  stage("summary", "-");
  long long local[2] = {g_passed, g_failed}, total[2] = {0, 0}, anyfail = 0;
  PMPI_Reduce(local, total, 2, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Allreduce(&g_failed, &anyfail, 1, MPI_LONG_LONG, MPI_SUM,
                 MPI_COMM_WORLD);
  if (g_rank == 0)
    printf("test_diff: %lld passed, %lld failed\n", total[0], total[1]);
  fflush(stdout);
  alarm(0);

  if (have_comms) {
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
  }
  if (matop != MPI_OP_NULL)
    MPI_Op_free(&matop);
  if (mat != MPI_DATATYPE_NULL)
    MPI_Type_free(&mat);
  MPI_Finalize();
  return anyfail == 0 ? 0 : 1;
}
