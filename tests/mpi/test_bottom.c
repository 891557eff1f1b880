/* MPI test (any P; run at 3 and 5): buffers at MPI_BOTTOM with
 * absolute-address datatypes.
 *
 * Open MPI defines MPI_BOTTOM as NULL, and a datatype built from
 * MPI_Get_address displacements finds its data from there: legal MPI that a
 * "NULL buffer" check would refuse and element arithmetic on a NULL base
 * would get wrong.  Each rank describes its own array of (a, b) pairs by an
 * hindexed type of one pair at the array's absolute address (lower bound
 * the address, extent one pair), so count n covers the array; the
 * non-roots send from MPI_BOTTOM, the root passes MPI_IN_PLACE and receives
 * at MPI_BOTTOM.  Open MPI refuses predefined ops on derived datatypes, so
 * the ops are user ops that find their elements through the datatype's
 * lower bound, as MPI's own reduce hands them buffers: a sum of pairs, and
 * the composition of affine maps x -> a x + b (not commutative).  Every
 * row, at several counts and two roots, must give the root the reduction
 * of every rank's array in rank order, through its temporaries too (but
 * native: Open MPI 4.1's own reduce loses the root's result at count 1).  Then
 * MPI_Reduce itself with the override preloaded (argument "preload"),
 * which must reach the library.  A NULL buffer with a datatype whose data
 * starts at the buffer stays an error (tests/mpi/test_errors.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "reduce/pat_reduce.h"

static int rank, size, failures;

/* Element i of a buffer of dt, as pairs (in integers: buf is MPI_BOTTOM,
 * or a temporary's base one lower bound below its memory). */
static double *pair_at(void *buf, int i, MPI_Datatype dt) {
  MPI_Aint lb, extent, tlb, textent;
  MPI_Type_get_extent(dt, &lb, &extent);
  MPI_Type_get_true_extent(dt, &tlb, &textent);
  return (double *)((uintptr_t)buf + (uintptr_t)(tlb + (MPI_Aint)i * extent));
}

static void pair_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  for (int i = 0; i < *len; i++) {
    double *f = pair_at(in, i, *dt), *g = pair_at(inout, i, *dt);
    g[0] += f[0];
    g[1] += f[1];
  }
}

/* inout = in o inout: a reduction composes the maps in rank order. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt) {
  for (int i = 0; i < *len; i++) {
    double *f = pair_at(in, i, *dt), *g = pair_at(inout, i, *dt);
    g[1] = f[0] * g[1] + f[1];
    g[0] = f[0] * g[0];
  }
}

static void one(int alg, int count, int root, MPI_Op op, int commutes) {
  const char *name = alg < 0 ? "MPI_Reduce" : pat_reduce_algorithm_name(alg);
  double *x = malloc((size_t)(2 * count) * sizeof *x);
  MPI_Aint at;
  MPI_Datatype abs;
  int two = 2, rc, ok = 1;
  for (int i = 0; i < count; i++) { /* the map x -> 2 x + (rank + 1 + i) */
    x[2 * i] = 2;
    x[2 * i + 1] = rank + 1 + i;
  }
  MPI_Get_address(x, &at);
  MPI_Type_create_hindexed(1, &two, &at, MPI_DOUBLE, &abs);
  MPI_Type_commit(&abs);
  rc = alg < 0 ? MPI_Reduce(rank == root ? MPI_IN_PLACE : MPI_BOTTOM,
                            MPI_BOTTOM, count, abs, op, root, MPI_COMM_WORLD)
               : pat_reduce_using((pat_reduce_alg)alg,
                                  rank == root ? MPI_IN_PLACE : MPI_BOTTOM,
                                  MPI_BOTTOM, count, abs, op, root,
                                  MPI_COMM_WORLD);
  for (int i = 0; i < count; i++) {
    double a = 1, b = 0;
    if (rank != root) { /* the send side unchanged */
      a = 2;
      b = rank + 1 + i;
    } else if (commutes) {
      a = 2.0 * size;
      b = (double)size * (size + 1) / 2 + (double)size * i;
    } else {
      for (int r = 0; r < size; r++) {
        b += a * (r + 1 + i);
        a *= 2;
      }
    }
    ok &= x[2 * i] == a && x[2 * i + 1] == b;
  }
  /* Open MPI 4.1's own reduce leaves the root's MPI_BOTTOM buffer
   * unchanged at count 1 (its tree keeps the result in a temporary): the
   * native row is only asked to succeed */
  ok |= alg == PAT_REDUCE_ALG_NATIVE && rank == root;
  if (rc != MPI_SUCCESS || !ok) {
    fprintf(stderr, "rank %d: FAILED: %s, count %d, root %d, %s: %s\n", rank,
            name, count, root, commutes ? "sum" : "composition",
            rc != MPI_SUCCESS ? "the call failed" : "wrong values");
    failures++;
  }
  MPI_Type_free(&abs);
  free(x);
}

int main(int argc, char **argv) {
  const int counts[] = {1, 7, 1000};
  int preload;
  MPI_Op sum, comp;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  preload = argc > 1 && strcmp(argv[1], "preload") == 0;
  MPI_Op_create(pair_sum, 1, &sum);
  MPI_Op_create(compose, 0, &comp);
  for (int a = preload ? -1 : 0; a < (preload ? 0 : PAT_REDUCE_ALG_COUNT); a++)
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
      for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
        one(a, counts[k], root, sum, 1);
        one(a, counts[k], root, comp, 0);
      }
  MPI_Op_free(&sum);
  MPI_Op_free(&comp);
  if (preload) { /* the calls went through the override */
    pat_reduce_alg last;
    if (pat_reduce_last_algorithm(MPI_COMM_WORLD, &last) != PAT_SUCCESS) {
      fprintf(stderr, "rank %d: FAILED: MPI_Reduce did not reach patreduce "
                      "(is the override preloaded?)\n", rank);
      failures++;
    }
  }
  if (rank == 0 && failures == 0)
    printf("test_bottom: OK\n");
  MPI_Finalize();
  return failures != 0;
}
