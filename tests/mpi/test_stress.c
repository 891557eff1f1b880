/*
 * test_stress: thousands of back-to-back reductions of one algorithm (default
 * localredirect), no barriers, every rank sleeping a random 0..max_sleep
 * microseconds before each call, against PMPI_Reduce on the same data.
 *
 * Per call (the same on every rank, from the seed and the call number): the
 * root, the count (mostly small, some up to 4096), the op (MPI_SUM on
 * long long, or a non-commutative user op: composition of affine maps
 * x -> a x + b mod 1000003), and at the root MPI_IN_PLACE on every third
 * call.  Results must match PMPI_Reduce exactly.
 *
 * --unexpected: every call traced, and the messages a rank found there
 * before it posted their receive (PAT_TRACE_UNEXPECTED) bounded, per call
 * and rank, by localredirect's stated bound: 4 per conversation with a
 * left neighbour (at most one per merge, plus one) and 2 per conversation
 * with a target (at most one per position to its right): 4 (merges + 1) +
 * 2 P.  The largest count seen is printed.
 *
 * --tree (with PAT_REDUCE_LR_TREE set so that every call runs
 * localredirect's tree protocol: the commutative ones rooted at the root,
 * the non-commutative ones in rank order, rooted at rank 0, which sends
 * the result to the root): --unexpected, with the tree's own bound (a rank
 * receives one PART per child, merged or forwarded, and the tree's root
 * merges everything it receives: merges + ceil(log2 P); in order one more,
 * the result at the root), and the FWDs the tree's roots received counted
 * (their receives beyond one per child): with random sleeps some must
 * come, in both kinds of calls, or a give-up path went untested; so must,
 * from P = 8 up (the first tree where a forwarder's parent can forward
 * too, virtual ranks 6 and 4), FWDs that other ranks received (their
 * receives beyond one per child): late data combined among forwarders
 * before it reaches the root.
 *
 * --late K: per call K ranks (from the seed and the call number) sleep
 * max_sleep, the others up to max_sleep / 20: a few ranks well behind,
 * as patbench's k-random pattern, so that forwarders form deep in the
 * tree (in rank order a given-up child's PART cut short further down, its
 * gap filled at the root, not by the forwarder: FWDs of several runs).
 *
 * --gappy: the commutative calls reduce a datatype with gaps (one long
 * long per 16 bytes) with a user-defined sum, so that the tree protocol
 * packs its messages (MPI_Pack) instead of sending them raw.
 *
 * usage: test_stress [--calls N] [--max-sleep US] [--alg NAME] [--seed S]
 *                    [--unexpected] [--tree] [--gappy] [--late K]
 * Exit status 0 when every call matched on every rank.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "reduce/pat_reduce.h"
#include "reduce/pat_trace.h"

#define MOD 1000003LL
#define MAXCOUNT 4096

/* (a1, b1) o (a2, b2) = (a1 a2, a1 b2 + b1): in (op) inout, pairwise. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *type) {
  const long long *x = in;
  long long *y = inout;
  (void)type;
  for (int i = 0; i + 1 < *len; i += 2) {
    long long a = x[i] * y[i] % MOD;
    long long b = (x[i] * y[i + 1] + x[i + 1]) % MOD;
    y[i] = a;
    y[i + 1] = b;
  }
}

/* inout += in for elements one long long per 16 bytes (the gappy type). */
static void gappy_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
  const char *x = in;
  char *y = inout;
  (void)type;
  for (int i = 0; i < *len; i++) {
    long long a, b;
    memcpy(&a, x + 16 * i, sizeof a);
    memcpy(&b, y + 16 * i, sizeof b);
    b = (a + b) % MOD;
    memcpy(y + 16 * i, &b, sizeof b);
  }
}

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

/* How many children rank has in the binomial tree rooted at root. */
static int children(int rank, int root, int P) {
  int v = (rank - root + P) % P, low = v == 0 ? P : (v & -v), n = 0;
  for (int c = 1; c < low && v + c < P; c *= 2)
    n++;
  return n;
}

int main(int argc, char **argv) {
  long calls = 2000, max_sleep = 200;
  unsigned long long seed = 1;
  const char *algname = "localredirect";
  pat_reduce_alg alg;
  int rank, P, fails = 0, total = 0, status = 0, unexpected = 0, tree = 0;
  int gappy = 0, late = 0;
  MPI_Datatype gappy_type;
  MPI_Op gappy_op;
  int most_unexpected = 0, over = 0, log2p = 0;
  long forwards = 0, routed = 0, forwards_inorder = 0;
  enum { TRACE_CAP = 4096 };
  static pat_trace_event events[TRACE_CAP];
  long long *send, *recv, *ref;
  MPI_Op noncomm;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  for (int i = 1; i < argc; i++) {
    if (i + 1 < argc && strcmp(argv[i], "--calls") == 0)
      calls = atol(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--max-sleep") == 0)
      max_sleep = atol(argv[++i]);
    else if (i + 1 < argc && strcmp(argv[i], "--alg") == 0)
      algname = argv[++i];
    else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
      seed = strtoull(argv[++i], NULL, 10);
    else if (strcmp(argv[i], "--unexpected") == 0)
      unexpected = 1;
    else if (strcmp(argv[i], "--tree") == 0)
      unexpected = tree = 1;
    else if (strcmp(argv[i], "--gappy") == 0)
      gappy = 1;
    else if (i + 1 < argc && strcmp(argv[i], "--late") == 0)
      late = atoi(argv[++i]);
    else {
      if (rank == 0)
        fprintf(stderr,
                "usage: %s [--calls N] [--max-sleep US] [--alg NAME] "
                "[--seed S] [--unexpected] [--tree] [--gappy] [--late K]\n",
                argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  if (pat_reduce_algorithm_lookup(algname, &alg) != PAT_SUCCESS) {
    if (rank == 0)
      fprintf(stderr, "test_stress: unknown algorithm %s\n", algname);
    MPI_Finalize();
    return 2;
  }
  while ((1 << log2p) < P)
    log2p++;
  MPI_Op_create(affine, 0, &noncomm);
  MPI_Op_create(gappy_sum, 1, &gappy_op);
  MPI_Type_create_resized(MPI_LONG_LONG, 0, 16, &gappy_type);
  MPI_Type_commit(&gappy_type);
  send = malloc(2 * MAXCOUNT * sizeof *send);
  recv = malloc(2 * MAXCOUNT * sizeof *recv);
  ref = malloc(2 * MAXCOUNT * sizeof *ref);

  for (long k = 0; k < calls; k++) {
    uint64_t h = mix(seed * 1000003ULL + (uint64_t)k);
    int root = (int)(h % (uint64_t)P);
    int big = (h >> 8) % 16 == 0;
    int count = 2 * (1 + (int)((h >> 12) % (big ? MAXCOUNT / 2 : 8)));
    int use_noncomm = (h >> 32) & 1;
    int in_place = rank == root && k % 3 == 0;
    MPI_Op op = use_noncomm ? noncomm : gappy ? gappy_op : MPI_SUM;
    MPI_Datatype type = !use_noncomm && gappy ? gappy_type : MPI_LONG_LONG;
    int stride = type == gappy_type ? 2 : 1, bad = 0;
    for (int i = 0; i < count * stride; i++)
      send[i] = (long long)(mix(h ^ (uint64_t)(rank * 7919 + i)) % MOD);
    /* the reference, on the same data */
    memset(ref, 0, (size_t)(count * stride) * sizeof *ref);
    PMPI_Reduce(send, ref, count, type, op, root, MPI_COMM_WORLD);
    if (max_sleep > 0) {
      /* --late: is this rank one of the call's K late ones? */
      int behind = 0;
      for (int j = 0; j < late && !behind; j++)
        behind =
            (int)(mix(h + 7919ULL * (uint64_t)(j + 1)) % (uint64_t)P) == rank;
      sleep_us(
          behind ? max_sleep
          : late > 0
              ? (long)(mix(h + (uint64_t)rank) % (uint64_t)(max_sleep / 20 + 1))
              : (long)(mix(h + (uint64_t)rank) % (uint64_t)(max_sleep + 1)));
    }
    if (in_place)
      memcpy(recv, send, (size_t)(count * stride) * sizeof *recv);
    else
      memset(recv, 0xff, (size_t)(count * stride) * sizeof *recv);
    if (unexpected &&
        pat_trace_start(MPI_COMM_WORLD, events, TRACE_CAP) != MPI_SUCCESS)
      bad = 1;
    if (pat_reduce_using(alg, in_place ? MPI_IN_PLACE : send, recv, count, type,
                         op, root, MPI_COMM_WORLD) != MPI_SUCCESS)
      bad = 1;
    if (unexpected) {
      size_t stored = 0, dropped = 0;
      int merges = 0, early = 0, recvs = 0, in_tree = tree;
      int bound, top = use_noncomm ? 0 : root; /* the tree's root */
      if (pat_trace_stop(MPI_COMM_WORLD, &stored, &dropped) != MPI_SUCCESS ||
          dropped > 0)
        bad = 1;
      for (size_t e = 0; e < stored; e++) {
        merges += events[e].kind == PAT_TRACE_COMBINE;
        early += events[e].kind == PAT_TRACE_UNEXPECTED;
        recvs += events[e].kind == PAT_TRACE_RECV;
      }
      most_unexpected = early > most_unexpected ? early : most_unexpected;
      bound = in_tree ? merges + log2p + use_noncomm : 4 * (merges + 1) + 2 * P;
      if (early > bound) {
        if (over++ < 5)
          fprintf(stderr,
                  "test_stress: rank %d call %ld: %d messages there before "
                  "their receive, above the bound %d (%d merges, %s)\n",
                  rank, k, early, bound, merges, in_tree ? "tree" : "line");
        bad = 1;
      }
      if (in_tree && rank == top && recvs < log2p) {
        fprintf(stderr,
                "test_stress: call %ld: the root received %d messages, "
                "fewer than its %d children\n",
                k, recvs, log2p);
        bad = 1;
      }
      if (in_tree && rank == top && use_noncomm)
        forwards_inorder += recvs - log2p;
      else if (in_tree && rank == top)
        forwards += recvs - log2p;
      if (in_tree && rank != top)
        routed += recvs - children(rank, top, P);
    }
    if (rank == root)
      for (int i = 0; i < count && !bad; i++)
        bad = recv[i * stride] != ref[i * stride];
    if (bad && fails < 5)
      fprintf(stderr,
              "test_stress: rank %d call %ld (root %d count %d %s%s) "
              "differs from PMPI_Reduce\n",
              rank, k, root, count,
              use_noncomm ? "affine"
              : gappy     ? "gappy sum"
                          : "sum",
              in_place ? " in place" : "");
    fails += bad;
    total++;
  }
  MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &most_unexpected, 1, MPI_INT, MPI_MAX,
                MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_stress: %s, P=%d, %d calls, max sleep %ld us: %d failed\n",
           algname, P, total, max_sleep, fails);
  MPI_Allreduce(MPI_IN_PLACE, &forwards, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &routed, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &forwards_inorder, 1, MPI_LONG, MPI_SUM,
                MPI_COMM_WORLD);
  if (rank == 0 && unexpected)
    printf("test_stress: at most %d messages there before their receive in "
           "one call on one rank\n",
           most_unexpected);
  if (rank == 0 && tree)
    printf("test_stress: %ld FWDs (given-up children's data) reached the "
           "roots, %ld rank 0 in order\n",
           forwards, forwards_inorder);
  if (rank == 0 && tree)
    printf("test_stress: %ld FWDs reached forwarders other than the roots\n",
           routed);
  status =
      fails != 0 ||
      (tree && max_sleep > 0 && (forwards == 0 || forwards_inorder == 0)) ||
      (tree && max_sleep > 0 && P >= 8 && routed == 0);
  if (rank == 0 && tree && max_sleep > 0 && forwards == 0)
    fprintf(stderr, "test_stress: no child was ever given up: the tree "
                    "protocol's give-up path went untested\n");
  if (rank == 0 && tree && max_sleep > 0 && forwards_inorder == 0)
    fprintf(stderr, "test_stress: no child was ever given up in order: the "
                    "non-commutative tree's give-up path went untested\n");
  if (rank == 0 && tree && max_sleep > 0 && P >= 8 && routed == 0)
    fprintf(stderr, "test_stress: no FWD ever went to a forwarder but the "
                    "root: forwarding among forwarders went untested\n");
  MPI_Op_free(&noncomm);
  MPI_Op_free(&gappy_op);
  MPI_Type_free(&gappy_type);
  free(send);
  free(recv);
  free(ref);
  MPI_Finalize();
  return status;
}
