/* MPI test (P >= 2, all ranks on one node): ranks that share cores.
 *
 * 1. Every rank pins itself to one CPU, the same for all: the library
 *    must find that the communicator's ranks share cores (P ranks, 1 CPU),
 *    and with PAT_REDUCE_CORES=auto, auto's calls must be served by
 *    binomial, right, without auto ever deciding (no auto state) and
 *    with no PAT layer (no stamps, no exchange).
 * 2. Unpinned, PAT_REDUCE_CORES=own: auto decides (its state exists).
 * 3. PAT_REDUCE_CORES=shared: binomial serves auto's calls again.
 * 4. PAT_REDUCE_CORES=maybe: the call fails with MPI_ERR_ARG (the
 *    message, naming the value and the modes: unit_config).
 * Prints "cores: ok" on rank 0 when every rank saw what it expected.
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_* */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "auto/auto.h"
#include "core/pat_internal.h"
#include "reduce/pat_reduce.h"

#define COUNT 4096
#define CALLS 12

static int rank, size, ok = 1;

static void fail(const char *what) {
  fprintf(stderr, "rank %d: %s\n", rank, what);
  ok = 0;
}

/* CALLS reductions by auto on a new communicator (its root rotating),
 * each checked at its root, each served by want (any row: want < 0);
 * whether auto kept state there or a PAT layer started. */
static int auto_calls(int want, const char *phase) {
  MPI_Comm c;
  double *in = malloc(COUNT * sizeof *in), *out = malloc(COUNT * sizeof *out);
  int has_state;
  char msg[160];
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  for (int k = 0; k < CALLS; k++) {
    int root = k % size;
    pat_reduce_alg served = PAT_REDUCE_ALG_COUNT;
    for (int i = 0; i < COUNT; i++)
      in[i] = rank + i + k;
    if (pat_reduce_using(PAT_REDUCE_ALG_AUTO, in, out, COUNT, MPI_DOUBLE,
                         MPI_SUM, root, c) != MPI_SUCCESS) {
      snprintf(msg, sizeof msg, "%s: call %d failed", phase, k);
      fail(msg);
      continue;
    }
    for (int i = 0; rank == root && i < COUNT; i++)
      if (out[i] != size * (double)(i + k) + size * (size - 1) / 2.0) {
        snprintf(msg, sizeof msg, "%s: call %d, element %d: %g", phase, k, i,
                 out[i]);
        fail(msg);
        break;
      }
    pat_reduce_last_algorithm(c, &served);
    if (want >= 0 && (int)served != want) {
      snprintf(msg, sizeof msg, "%s: call %d served by %s, want %s", phase, k,
               pat_reduce_algorithm_name(served),
               pat_reduce_algorithm_name((pat_reduce_alg)want));
      fail(msg);
    }
  }
  has_state = pat_auto_of(pat_comm_state_find(c)) != NULL ||
              pat_comm_state_has_pat(pat_comm_state_find(c));
  MPI_Comm_free(&c);
  free(in);
  free(out);
  return has_state;
}

int main(int argc, char **argv) {
  cpu_set_t mine, one;
  int lowest = -1, common = 0, all_ok = 0;
  pat_cores cores;
  MPI_Comm c;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* 1: one CPU for all, the lowest every rank may run on */
  if (sched_getaffinity(0, sizeof mine, &mine) != 0)
    fail("sched_getaffinity failed");
  for (int i = 0; i < CPU_SETSIZE && lowest < 0; i++)
    if (CPU_ISSET(i, &mine))
      lowest = i;
  MPI_Allreduce(&lowest, &common, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CPU_ZERO(&one);
  CPU_SET(common, &one);
  if (!CPU_ISSET(common, &mine) || sched_setaffinity(0, sizeof one, &one) != 0)
    fail("cannot pin to the common CPU");
  setenv("PAT_REDUCE_CORES", "auto", 1);
  pat_reduce_config_reload();
  if (pat_cores_shared(MPI_COMM_WORLD, &cores) != MPI_SUCCESS ||
      !cores.shared || cores.ranks != size || cores.cpus != 1)
    fail("pinned: pat_cores_shared did not find P ranks on 1 CPU");
  if (auto_calls(PAT_REDUCE_ALG_BINOMIAL, "pinned, auto"))
    fail("pinned, auto: auto state or a PAT layer where binomial serves");

  /* 2: unpinned, told the cores are the ranks' own */
  if (sched_setaffinity(0, sizeof mine, &mine) != 0)
    fail("cannot unpin");
  if (pat_cores_shared(MPI_COMM_WORLD, &cores) != MPI_SUCCESS ||
      cores.ranks != size || cores.cpus < 1 ||
      cores.shared != (cores.ranks > cores.cpus))
    fail("unpinned: pat_cores_shared inconsistent");
  setenv("PAT_REDUCE_CORES", "own", 1);
  pat_reduce_config_reload();
  if (!auto_calls(-1, "own"))
    fail("own: auto did not decide");

  /* 3: told they share */
  setenv("PAT_REDUCE_CORES", "shared", 1);
  pat_reduce_config_reload();
  if (auto_calls(PAT_REDUCE_ALG_BINOMIAL, "shared"))
    fail("shared: auto state or a PAT layer where binomial serves");

  /* 4: a bad mode fails the call, naming it */
  setenv("PAT_REDUCE_CORES", "maybe", 1);
  pat_reduce_config_reload();
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  {
    double x = 1, y = 0;
    int rc = pat_reduce_using(PAT_REDUCE_ALG_AUTO, &x, &y, 1, MPI_DOUBLE,
                              MPI_SUM, 0, c),
        cls = rc;
    if (rc != MPI_SUCCESS)
      MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_ARG)
      fail("maybe: the call did not fail with MPI_ERR_ARG");
  }
  MPI_Comm_free(&c);

  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0 && all_ok)
    printf("cores: ok\n");
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
