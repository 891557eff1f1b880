/*
 * smpi_pingpong: checks that a SimGrid platform prices one point-to-point
 * message of m bytes at alpha + beta m (SMPI build only).
 *
 * Rank 0 ping-pongs with rank PEER for a few sizes m; each size starts with
 * one untimed round trip (so that both sides are in step: a barrier leaves
 * ranks at different simulated times), then the one-way time is half the
 * mean round trip.  A least-squares line through (m, one-way) (GSL) gives the
 * measured alpha and beta, which must be within the given relative
 * tolerances of the expected ones.
 *
 * usage: smpi_pingpong ALPHA BETA [PEER=1] [ALPHA_TOL=0.01] [BETA_TOL=0.001]
 * Exit status 0 if both are within tolerance, 1 if not, 2 on bad usage.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_fit.h>
#include <mpi.h>

#define NSIZES 6
#define REPS 10

/* One-way time of m bytes between ranks 0 and peer (valid at rank 0). */
static double one_way(char *buf, int m, int peer, int rank) {
  double t0 = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = -1; i < REPS; i++) {
    if (i == 0)
      t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, m, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, m, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == peer) {
      MPI_Recv(buf, m, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, m, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) / (2.0 * REPS);
}

int main(int argc, char **argv) {
  static const int sizes[NSIZES] = {0, 8, 1024, 65536, 1 << 20, 4 << 20};
  double m[NSIZES], t[NSIZES], alpha, beta, c00, c01, c11, sumsq;
  double want_alpha, want_beta, tol_alpha, tol_beta;
  int rank, size, peer, rc = 0;
  char *buf = NULL;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  want_alpha = argc > 1 ? atof(argv[1]) : 0;
  want_beta = argc > 2 ? atof(argv[2]) : 0;
  peer = argc > 3 ? atoi(argv[3]) : 1;
  tol_alpha = argc > 4 ? atof(argv[4]) : 0.01;
  tol_beta = argc > 5 ? atof(argv[5]) : 0.001;
  if (want_alpha <= 0 || want_beta <= 0 || peer < 1 || peer >= size) {
    if (rank == 0)
      fprintf(stderr,
              "usage: smpi_pingpong ALPHA BETA [PEER in 1..%d] "
              "[ALPHA_TOL] [BETA_TOL] (at least 2 ranks)\n",
              size - 1);
    rc = 2;
    goto out;
  }
  buf = calloc((size_t)sizes[NSIZES - 1], 1);
  if (buf == NULL) {
    rc = 2;
    goto out;
  }
  for (int i = 0; i < NSIZES; i++) {
    m[i] = sizes[i];
    t[i] = one_way(buf, sizes[i], peer, rank);
  }
  if (rank != 0)
    goto out;
  gsl_fit_linear(m, 1, t, 1, NSIZES, &alpha, &beta, &c00, &c01, &c11, &sumsq);
  printf("smpi_pingpong: rank 0 <-> rank %d, one-way time = round trip / 2\n",
         peer);
  printf("%10s %14s %14s %9s\n", "m (B)", "measured us", "model us", "ratio");
  for (int i = 0; i < NSIZES; i++) {
    double model = want_alpha + want_beta * m[i];
    printf("%10d %14.4f %14.4f %9.5f\n", sizes[i], t[i] * 1e6, model * 1e6,
           t[i] / model);
  }
  printf("fit: alpha = %.4f us (want %.4f, %+.3f %%), beta = %.6e s/B "
         "(want %.6e, %+.4f %%)\n",
         alpha * 1e6, want_alpha * 1e6, 100 * (alpha / want_alpha - 1), beta,
         want_beta, 100 * (beta / want_beta - 1));
  if (fabs(alpha / want_alpha - 1) > tol_alpha ||
      fabs(beta / want_beta - 1) > tol_beta) {
    fprintf(stderr,
            "smpi_pingpong: FAIL: alpha or beta off by more than %g / %g\n",
            tol_alpha, tol_beta);
    rc = 1;
  }
out:
  free(buf);
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
