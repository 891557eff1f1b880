/* The tests' non-commutative op: 2x2 matrix product, in place on inout:
 * inout = in * inout, so an out-of-order reduction shows.  Matrices
 * [[1, a], [0, 1]] multiply to [[1, sum of a], [0, 1]]. */
#ifndef PAT_TEST_MATMUL_H
#define PAT_TEST_MATMUL_H

#include <string.h>

#include <mpi.h>

static void matmul(void *in, void *inout, int *len, MPI_Datatype *t) {
  double *a = in, *b = inout;
  (void)t;
  for (int i = 0; i < *len; i++, a += 4, b += 4) {
    double c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                   a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(b, c, sizeof c);
  }
}

#endif /* PAT_TEST_MATMUL_H */
