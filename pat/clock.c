/*
 * Clocks.  Arrival stamps must share one time base across ranks.  When
 * MPI_WTIME_IS_GLOBAL is set PMPI_Wtime is that base (the offset is 0,
 * estimated without a message); otherwise each
 * rank's offset to rank 0 is estimated by ping-pong, keeping the sample
 * with the least round-trip time (SKaMPI, ReproMPI): with t0 and t1 rank
 * 0's send and receive times and tr the peer's reply stamp, the peer's
 * clock is ahead by tr - (t0 + t1) / 2, within half the round trip.
 */
#include <math.h>

#include "pat/pat_layer.h"
#include "reduce/pat_pat.h"

static double pat_debug_skew; /* test hook only */

void pat_clock_debug_skew(double skew) { pat_debug_skew = skew; }

double pat_clock_local(void) { return PMPI_Wtime() + pat_debug_skew; }

int pat_clock_sync(MPI_Comm comm, int tag, int rounds, double *offset,
                   double *bound) {
  int rank, size, rc = PMPI_Comm_rank(comm, &rank);
  double ahead[2] = {0.0, 0.0}; /* estimate, half the least round trip */
  if (rc == MPI_SUCCESS)
    rc = PMPI_Comm_size(comm, &size);
  for (int peer = 1; rc == MPI_SUCCESS && peer < size; peer++) {
    if (rank == 0) {
      double best = INFINITY, est[2] = {0.0, 0.0};
      for (int i = 0; i < rounds && rc == MPI_SUCCESS; i++) {
        double t0 = pat_clock_local(), tr = 0.0, t1;
        rc = PMPI_Send(&t0, 1, MPI_DOUBLE, peer, tag, comm);
        if (rc == MPI_SUCCESS)
          rc =
              PMPI_Recv(&tr, 1, MPI_DOUBLE, peer, tag, comm, MPI_STATUS_IGNORE);
        t1 = pat_clock_local();
        if (t1 - t0 < best) {
          best = t1 - t0;
          est[0] = tr - (t0 + t1) / 2;
          est[1] = best / 2;
        }
      }
      if (rc == MPI_SUCCESS)
        rc = PMPI_Send(est, 2, MPI_DOUBLE, peer, tag, comm);
    } else if (rank == peer) {
      for (int i = 0; i < rounds && rc == MPI_SUCCESS; i++) {
        double ping, now;
        rc = PMPI_Recv(&ping, 1, MPI_DOUBLE, 0, tag, comm, MPI_STATUS_IGNORE);
        now = pat_clock_local();
        if (rc == MPI_SUCCESS)
          rc = PMPI_Send(&now, 1, MPI_DOUBLE, 0, tag, comm);
      }
      if (rc == MPI_SUCCESS)
        rc = PMPI_Recv(ahead, 2, MPI_DOUBLE, 0, tag, comm, MPI_STATUS_IGNORE);
    }
  }
  if (rc == MPI_SUCCESS) {
    *offset = -ahead[0];
    if (bound != NULL)
      *bound = ahead[1];
  }
  return rc;
}

int pat_clock_global(int *global) {
  int *flag = NULL, found = 0;
  int rc =
      PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &flag, &found);
  *global = rc == MPI_SUCCESS && found && *flag;
  return rc;
}

int pat_clock_estimate_offset(MPI_Comm comm, int rounds, double *offset,
                              double *bound) {
  MPI_Comm dup = MPI_COMM_NULL;
  int global = 0;
  int rc =
      offset == NULL || rounds < 1 ? MPI_ERR_ARG : pat_clock_global(&global);
  if (rc == MPI_SUCCESS && global) {
    /* one clock already (SMPI's): nothing to measure, and at P = 16384
     * the ping-pongs would be P * rounds messages through rank 0 */
    *offset = 0;
    if (bound != NULL)
      *bound = 0;
    return rc;
  }
  if (rc == MPI_SUCCESS)
    rc = PMPI_Comm_dup(comm, &dup);
  if (rc == MPI_SUCCESS)
    rc = pat_clock_sync(dup, 0, rounds, offset, bound);
  if (dup != MPI_COMM_NULL)
    PMPI_Comm_free(&dup);
  return rc;
}
