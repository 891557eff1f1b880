/*
 * Whether a communicator's ranks share cores: on some node more of its
 * ranks than CPUs they may run on (an oversubscribed node: a laptop, a CI
 * runner, this project's 2-core machine running 8 ranks).
 *
 * Why it matters: the byte model gives every rank a core of its own, so a
 * step in which every rank works costs one rank's work.  Where 8 ranks
 * time-share 2 cores such a step costs about four, every message waits for
 * its receiver to be scheduled, and what each rank does per call besides
 * (stamps, decisions, plans) costs them all at once.  A row that needs
 * cores of their own (PAT_NEEDS_OWN_CORES: auto) then falls back to
 * binomial (auto.c, "Shared cores", has the figures).
 *
 * How: the ranks of each node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED)
 * OR their CPU affinity masks together (sched_getaffinity; ranks bound to
 * a core each make as many CPUs as ranks, unbound ones the node's), and a
 * node shares cores if it holds more ranks than that union has CPUs; one
 * allreduce (MAX) makes the answer the same on every rank.  Where the
 * affinity is not known, the node's online CPUs (sysconf) stand in.
 * Cost: a communicator split and two allreduces, once per communicator
 * that asks (at the first call of a row that needs own cores, while
 * PAT_REDUCE_CORES is auto: comm.c).  Ranks of other communicators or
 * jobs on the node are not counted, so a node can share cores unseen.
 *
 * SMPI build: never (the simulated hosts have the cores of the platform
 * file, and SimGrid models them; the process's CPUs mean nothing there).
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#endif

#include "pat_internal.h"

#ifndef PATREDUCE_SMPI
/* The CPUs the ranks of node may run on: the union of their affinity
 * masks (collective over node; a rank that cannot read its mask adds
 * none), else the node's online CPUs. */
static int node_cpus(MPI_Comm node, int *cpus) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int rc = MPI_SUCCESS, n = 0;
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    CPU_ZERO(&set);
  rc = PMPI_Allreduce(MPI_IN_PLACE, &set, (int)sizeof set, MPI_BYTE, MPI_BOR,
                      node);
  n = CPU_COUNT(&set);
#else
  (void)node;
#endif
  *cpus = n > 0 ? n : online > 0 ? (int)online : 1;
  return rc;
}
#endif

int pat_cores_shared(MPI_Comm comm, pat_cores *out) {
  memset(out, 0, sizeof *out);
#ifdef PATREDUCE_SMPI
  (void)comm;
  out->ranks = 1;
  out->cpus = 1;
  return MPI_SUCCESS;
#else
  MPI_Comm node = MPI_COMM_NULL;
  int rc =
      PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Comm_size(node, &out->ranks);
  if (rc == MPI_SUCCESS)
    rc = node_cpus(node, &out->cpus);
  if (node != MPI_COMM_NULL)
    PMPI_Comm_free(&node);
  out->shared = rc == MPI_SUCCESS && out->ranks > out->cpus;
  if (rc == MPI_SUCCESS)
    rc = PMPI_Allreduce(MPI_IN_PLACE, &out->shared, 1, MPI_INT, MPI_MAX, comm);
  return rc;
#endif
}
