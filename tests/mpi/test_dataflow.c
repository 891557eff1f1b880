/* MPI test (3 ranks): the executor progresses by dependency, not by round.
 *
 * The message is two halves A and B; root 1.  Rank 1 first sends its A
 * half to rank 2, which arrives LATE ms late, then receives rank 0's B half
 * and combines it with its own.  Rank 2 reduces the A halves and sends them
 * to the root, with its B half.  The A send is large (rendezvous: it cannot
 * complete before rank 2 posts its receive), so a round-by-round executor
 * combines B only after rank 2 has arrived; the dataflow executor combines
 * it at once.  Checked with rank 1's trace: its B combine ends at least
 * LATE/2 before the call returns.  The result is checked too, and the same
 * schedule runs with rank 2 on time and with PAT_REDUCE_MAX_OUTSTANDING=0
 * (this test's ctest variants).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mpi.h>

#include "reduce/pat_reduce.h"
#include "reduce/pat_schedule.h"
#include "reduce/pat_trace.h"

#define HALF (1 << 18) /* doubles: 2 MiB, far above any eager limit */
#define LATE_MS 300

static int rank, failures;

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "rank %d: FAILED: %s\n", rank, what);
    failures++;
  }
}

static void add(pat_schedule *s, int r, pat_sched_kind kind, int round,
                int peer, int src, int dst, int offset) {
  pat_sched_op op = {kind, round, peer, src, dst, offset, HALF};
  if (pat_schedule_add(s, r, &op) != PAT_SUCCESS)
    check(0, "pat_schedule_add");
}

static pat_schedule *build(void) {
  enum { A = 0, B = HALF };
  pat_sched_params p = {.nranks = 3, .root = 1, .count = 2 * HALF,
                        .commutative = 1};
  pat_schedule *s = NULL;
  const int S = PAT_SLOT_SEND, R = PAT_SLOT_RECV, T0 = PAT_SLOT_TMP0,
            T1 = PAT_SLOT_TMP0 + 1;
  if (pat_schedule_alloc(&p, &s) != PAT_SUCCESS)
    return NULL;
  /* rank 0: early, sends B to the root and A to rank 2 */
  add(s, 0, PAT_SCHED_SEND, 0, 1, S, -1, B);
  add(s, 0, PAT_SCHED_SEND, 0, 2, S, -1, A);
  /* rank 1, the root: A to the late rank first, then B from rank 0 */
  add(s, 1, PAT_SCHED_SEND, 0, 2, S, -1, A);
  add(s, 1, PAT_SCHED_RECV, 0, 0, -1, R, B);
  add(s, 1, PAT_SCHED_COMBINE, 0, -1, S, R, B);
  add(s, 1, PAT_SCHED_RECV, 1, 2, -1, R, A);
  add(s, 1, PAT_SCHED_RECV, 1, 2, -1, T0, B);
  add(s, 1, PAT_SCHED_COMBINE, 1, -1, T0, R, B);
  /* rank 2: late, reduces the A halves, sends them and its B half */
  add(s, 2, PAT_SCHED_RECV, 0, 1, -1, T0, A);
  add(s, 2, PAT_SCHED_RECV, 0, 0, -1, T1, A);
  add(s, 2, PAT_SCHED_COMBINE, 0, -1, T1, T0, A);
  add(s, 2, PAT_SCHED_COMBINE, 0, -1, S, T0, A);
  add(s, 2, PAT_SCHED_SEND, 1, 1, T0, -1, A);
  add(s, 2, PAT_SCHED_SEND, 1, 1, S, -1, B);
  return s;
}

int main(int argc, char **argv) {
  int size, late = argc > 1 ? atoi(argv[1]) : 1;
  pat_schedule *s;
  double *in, *out;
  char why[256] = "";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 3) {
    if (rank == 0)
      fprintf(stderr, "test_dataflow needs 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  s = build();
  check(s != NULL, "build");
  check(pat_schedule_validate(s, why, sizeof why) == PAT_SUCCESS, why);
  in = malloc(2 * HALF * sizeof *in);
  out = malloc(2 * HALF * sizeof *out);
  for (int i = 0; i < 2 * HALF; i++)
    in[i] = (double)((rank + 1) * (i % 1000 + 1));
  for (int rep = 0; rep < 3 && s != NULL; rep++) {
    pat_trace_event ev[64];
    size_t n = 0;
    double t_end, combine_end = -1;
    pat_trace_start(MPI_COMM_WORLD, ev, 64);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2 && late) {
      struct timespec ts = {0, LATE_MS * 1000000L};
      nanosleep(&ts, NULL);
    }
    check(pat_schedule_execute(s, in, out, MPI_DOUBLE, MPI_SUM,
                               MPI_COMM_WORLD) == MPI_SUCCESS,
          "execute");
    t_end = MPI_Wtime();
    pat_trace_stop(MPI_COMM_WORLD, &n, NULL);
    if (rank == 1) {
      for (int i = 0; i < 2 * HALF; i++)
        if (out[i] != 6.0 * (i % 1000 + 1)) {
          check(0, "result");
          break;
        }
      /* the first combine is the B half's (x1 + x0) */
      for (size_t k = 0; k < n && combine_end < 0; k++)
        if (ev[k].kind == PAT_TRACE_COMBINE)
          combine_end = ev[k].t1;
      check(combine_end >= 0, "a combine in the trace");
      if (late) {
        printf("rep %d: B combined %.1f ms before the end (rank 2 %d ms "
               "late)\n",
               rep, (t_end - combine_end) * 1e3, LATE_MS);
        check(t_end - combine_end >= LATE_MS * 0.5e-3,
              "the early half is combined while rank 2 is late");
      }
    }
  }
  pat_schedule_free(s);
  free(in);
  free(out);
  if (rank == 1 && failures == 0)
    printf("test_dataflow: OK\n");
  MPI_Finalize();
  return failures != 0;
}
