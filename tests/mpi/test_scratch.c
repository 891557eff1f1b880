/* MPI test (any P, run at 3): the executor's state and temporaries come
 * from the communicator's scratch, kept between calls (src/core/comm.c,
 * combine.c).
 *
 * Checks the lending rules (one lease of each kind at a time, the same
 * block again when it is big enough, nothing above
 * PAT_REDUCE_SCRATCH_KEEP), that every scheduled row gives both blocks
 * (the executor's bookkeeping, the temporaries) back after a call (else the
 * next call would silently allocate again), and that results stay right when
 * the block is reused by calls whose temporaries differ in number, size and
 * datatype (a resized type with a nonzero lower bound and a gap), and with
 * PAT_REDUCE_SCRATCH_KEEP=0 (nothing kept).  Also that a communicator
 * created where a freed one was gets its own state (the lookup cache).
 * And the schedule cache (PAT_REDUCE_SCHEDULE_CACHE): a root rotating every
 * call, as IMB's reduce does, builds each root's schedule once while they
 * all fit, and every call when they do not (least recently used dropped).
 * And that the state stays small where it can (small_state).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/pat_internal.h"

static int rank, size, failures;

static void check(int ok, const char *what, const char *alg, int count) {
  if (!ok) {
    fprintf(stderr, "rank %d: FAILED: %s (%s, count %d)\n", rank, what, alg,
            count);
    failures++;
  }
}

/* The lending rules on st for one kind, with keep =
 * PAT_REDUCE_SCRATCH_KEEP; the other kind stays free meanwhile. */
static void lending(pat_comm_state *st, pat_scratch_kind kind, long keep) {
  pat_scratch_kind other =
      kind == PAT_SCRATCH_DATA ? PAT_SCRATCH_EXEC : PAT_SCRATCH_DATA;
  void *a, *b, *c;
  a = pat_comm_state_scratch_take(st, kind, 1000);
  check(keep < 1000 || a != NULL, "a first block", "-", 1000);
  check(pat_comm_state_scratch_take(st, kind, 10) == NULL,
        "one lease at a time", "-", 10);
  c = pat_comm_state_scratch_take(st, other, 10);
  check(keep < 10 || (c != NULL && c != a), "the other kind is its own", "-",
        10);
  pat_comm_state_scratch_give(st, other, c);
  pat_comm_state_scratch_give(st, kind, a);
  b = pat_comm_state_scratch_take(st, kind, 500);
  check(keep < 1000 || b == a, "the same block when big enough", "-", 500);
  pat_comm_state_scratch_give(st, kind, b);
  check(pat_comm_state_scratch_take(st, kind, (size_t)keep + 1) == NULL,
        "nothing above PAT_REDUCE_SCRATCH_KEEP", "-", 0);
}

/* Both blocks are free to lend (keep > 0), or never lent (keep = 0). */
static void all_given_back(pat_comm_state *st, long keep, const char *name,
                           int count) {
  for (int k = 0; k < PAT_SCRATCH_KINDS; k++) {
    void *block = pat_comm_state_scratch_take(st, (pat_scratch_kind)k, 1);
    check(keep < 1 ? block == NULL : block != NULL, "the scratch given back",
          name, count);
    pat_comm_state_scratch_give(st, (pat_scratch_kind)k, block);
  }
}

/* A double with a 8-byte gap before it: lower bound -8, extent 24. */
static MPI_Datatype gapped(void) {
  MPI_Datatype t;
  MPI_Type_create_resized(MPI_DOUBLE, -8, 24, &t);
  MPI_Type_commit(&t);
  return t;
}

/* Sum on gapped(): MPI_SUM is for predefined types only. */
static void gapped_sum(void *in, void *inout, int *len, MPI_Datatype *t) {
  const double *a = in;
  double *b = inout;
  (void)t;
  for (int i = 0; i < *len; i++)
    b[3 * i] += a[3 * i];
}

/* One reduction of count elements with row a, checked at every root in
 * turn; then the scratch must be free to lend again. */
static void reduce_and_check(pat_comm_state *st, pat_reduce_alg a, int count,
                             int gap, long keep) {
  const char *name = pat_reduce_algorithm_name(a);
  MPI_Datatype t = gap ? gapped() : MPI_DOUBLE;
  int stride = gap ? 3 : 1; /* doubles per element */
  double *in = calloc((size_t)count * 3 + 3, sizeof *in);
  double *out = calloc((size_t)count * 3 + 3, sizeof *out);
  /* element 0 starts one double in: the lower bound is -8 bytes */
  double *in0 = in + (gap ? 1 : 0), *out0 = out + (gap ? 1 : 0);
  int root = count % size;
  MPI_Op op = MPI_SUM;
  if (gap)
    MPI_Op_create(gapped_sum, 1, &op);
  for (int i = 0; i < count; i++)
    in0[i * stride] = (double)(rank + 1) * (i % 97 + 1);
  check(pat_reduce_using(a, in0, out0, count, t, op, root, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        "reduce", name, count);
  if (rank == root)
    for (int i = 0; i < count; i++)
      if (out0[i * stride] != (double)size * (size + 1) / 2 * (i % 97 + 1)) {
        check(0, "result", name, count);
        break;
      }
  all_given_back(st, keep, name, count);
  if (gap) {
    MPI_Type_free(&t);
    MPI_Op_free(&op);
  }
  free(in);
  free(out);
}

static void every_row(pat_comm_state *st, long keep) {
  /* large, small, large again: the block grows, is reused, carved anew */
  const int counts[] = {300000, 7, 0, 1, 100003, 64};
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++) {
    if (pat_alg_table[a]->build == NULL)
      continue; /* no schedule, no executor */
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
      for (int gap = 0; gap < 2; gap++)
        reduce_and_check(st, (pat_reduce_alg)a, counts[k], gap, keep);
  }
}

/* The lookup cache (comm.c): a communicator freed and a new one created,
 * often at the same handle, must get a new state, never the freed one
 * (which would hold a freed private communicator, and which ASan reports
 * as a use after free). */
static void reused_handles(void) {
  MPI_Comm prev = MPI_COMM_NULL;
  int reused = 0;
  for (int k = 0; k < 20; k++) {
    MPI_Comm c;
    pat_comm_state *st = NULL;
    double x = rank + k, y = -1;
    int same = MPI_UNEQUAL;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    reused += c == prev;
    check(pat_comm_state_find(c) == NULL, "a new communicator has no state",
          "-", k);
    check(pat_reduce_binomial(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, c) ==
                  MPI_SUCCESS &&
              (rank != 0 || y == size * (size - 1) / 2.0 + (double)size * k),
          "a reduction on a new communicator", "binomial", k);
    check(pat_comm_state_get(c, &st) == MPI_SUCCESS &&
              st == pat_comm_state_find(c) &&
              MPI_Comm_compare(pat_comm_state_priv(st), c, &same) ==
                  MPI_SUCCESS &&
              same == MPI_CONGRUENT,
          "the looked-up state is the communicator's, its duplicate alive", "-",
          k);
    prev = c;
    MPI_Comm_free(&c);
  }
  if (rank == 0)
    printf("test_scratch: a freed communicator's handle was reused %d of 19 "
           "times\n",
           reused);
}

/* rounds x every root in turn, binomial, on a new communicator; returns
 * the schedules built. */
static unsigned long rotate_roots(int rounds) {
  MPI_Comm c;
  pat_comm_state *st = NULL;
  unsigned long built = 0;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  for (int k = 0; k < rounds * size; k++) {
    double x = rank + k, y = -1;
    int root = k % size;
    check(pat_reduce_binomial(&x, &y, 1, MPI_DOUBLE, MPI_SUM, root, c) ==
                  MPI_SUCCESS &&
              (rank != root || y == size * (size - 1) / 2.0 + (double)size * k),
          "a reduction with a rotating root", "binomial", k);
  }
  if (pat_comm_state_get(c, &st) == MPI_SUCCESS)
    built = pat_comm_state_builds(st);
  MPI_Comm_free(&c);
  return built;
}

static void schedule_cache(void) {
  unsigned long built;
  check(pat_config_get()->schedule_cache == 16,
        "PAT_REDUCE_SCHEDULE_CACHE defaults to 16", "-", 0);
  built = rotate_roots(3);
  check(size > 16 || built == (unsigned long)size,
        "each root's schedule built once", "binomial", (int)built);
  setenv("PAT_REDUCE_SCHEDULE_CACHE", "2", 1);
  pat_reduce_config_reload();
  built = rotate_roots(3);
  check(size <= 2 || built == 3ul * size,
        "with 2 entries, P > 2 roots in turn rebuild every call", "binomial",
        (int)built);
  unsetenv("PAT_REDUCE_SCHEDULE_CACHE");
  pat_reduce_config_reload();
}

/* What a communicator keeps stays O(the rank's own operations) where it
 * can (issue 17: in SMPI every rank's state shares one process): the
 * cached schedule of a call holds this rank's program only, and a call
 * told the arrivals and a round cost starts no PAT layer (no stamp
 * exchange, no per-rank arrays) and keeps no replay of its plan (nothing
 * would score it); a predicting call does start the layer. */
static void small_state(void) {
  MPI_Comm comm;
  pat_comm_state *st = NULL;
  const pat_schedule *s;
  double *arrivals = calloc((size_t)size, sizeof *arrivals);
  int x = rank + 1, sum = 0, other = (rank + 1) % size;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  for (int r = 0; r < size; r++)
    arrivals[r] = r == size - 1 ? 1e-3 : 0;
  check(pat_reduce_with_arrivals(PAT_REDUCE_ALG_CLAIRVOYANT, &x, &sum, 1,
                                 MPI_INT, MPI_SUM, 0, comm, arrivals,
                                 1e-5) == MPI_SUCCESS &&
            (rank != 0 || sum == size * (size + 1) / 2),
        "told call right", "clairvoyant", 1);
  st = pat_comm_state_find(comm);
  check(st != NULL && !pat_comm_state_has_pat(st),
        "a call told arrivals and a round cost starts no PAT layer",
        "clairvoyant", 1);
  s = st != NULL ? pat_comm_state_last_schedule(st) : NULL;
  check(s != NULL && pat_schedule_has_rank(s, rank) &&
            (size == 1 || (!pat_schedule_has_rank(s, other) &&
                           pat_schedule_ops(s, other) == NULL)),
        "the cached schedule holds this rank's program only", "clairvoyant", 1);
  check(s != NULL && pat_schedule_replay(s) == NULL,
        "no replay kept where nothing scores it", "clairvoyant", 1);
  check(pat_reduce_using(PAT_REDUCE_ALG_CLAIRVOYANT, &x, &sum, 1, MPI_INT,
                         MPI_SUM, 0, comm) == MPI_SUCCESS &&
            st != NULL && pat_comm_state_has_pat(st),
        "a predicting call starts the PAT layer", "clairvoyant", 1);
  MPI_Comm_free(&comm);
  free(arrivals);
}

int main(int argc, char **argv) {
  pat_comm_state *st = NULL;
  long keep;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check(pat_comm_state_get(MPI_COMM_WORLD, &st) == MPI_SUCCESS, "state", "-",
        0);
  keep = pat_config_get()->scratch_keep;
  check(keep == 64L << 20, "PAT_REDUCE_SCRATCH_KEEP defaults to 64 MiB", "-",
        0);
  lending(st, PAT_SCRATCH_EXEC, keep);
  lending(st, PAT_SCRATCH_DATA, keep);
  every_row(st, keep);
  /* nothing kept */
  setenv("PAT_REDUCE_SCRATCH_KEEP", "0", 1);
  pat_reduce_config_reload();
  keep = pat_config_get()->scratch_keep;
  check(keep == 0, "PAT_REDUCE_SCRATCH_KEEP=0 read", "-", 0);
  all_given_back(st, keep, "-", 0);
  every_row(st, keep);
  reused_handles();
  schedule_cache();
  small_state();
  if (rank == 0 && failures == 0)
    printf("test_scratch: OK\n");
  MPI_Finalize();
  return failures != 0;
}
