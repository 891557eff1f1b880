/*
 * patvalidatespeed: how long pat_schedule_validate takes and how much
 * memory it needs (no MPI run).  Schedules: a ring reduce-scatter followed
 * by a binomial gather, written here by hand (uneven blocks, 3 P (P - 1)
 * operations), and the binomial builder's.  Each case runs in a child
 * process so that its peak RSS (getrusage) is its own; the peak after the
 * build is printed too, the validator's share is the difference.
 *
 * Columns: wall and CPU seconds of pat_schedule_validate, peak RSS after
 * the build and after validating.
 *
 * usage: patvalidatespeed
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reduce/pat_schedule.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double peak_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0; /* kB on Linux */
}

/* CPU seconds of this process so far (the machine may be shared). */
static double cpu(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
         (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static int block_start(int b, int P, int count) {
  return (int)((long long)b * count / P);
}

static int add(pat_schedule *s, int rank, const pat_sched_op *op) {
  if (pat_schedule_add(s, rank, op) != PAT_SUCCESS) {
    fprintf(stderr, "patvalidatespeed: out of memory\n");
    exit(1);
  }
  return 0;
}

/* One op per contiguous part of blocks lo+1 .. hi (block P is block 0):
 * what ranks lo .. hi-1 own after the reduce-scatter. */
static void add_blocks(pat_schedule *s, int rank, pat_sched_op op, int lo,
                       int hi, int P, int count) {
  int a = block_start(lo + 1, P, count);
  int e = hi < P ? block_start(hi + 1, P, count) : count;
  op.offset = a;
  op.count = e - a;
  add(s, rank, &op);
  if (hi == P) {
    op.offset = 0;
    op.count = block_start(1, P, count);
    add(s, rank, &op);
  }
}

/* Ring reduce-scatter (step s: rank r sends block r - s to r + 1, receives
 * block r - s - 1 and combines it; it ends owning block r + 1), then a
 * binomial gather of the blocks to rank 0. */
static pat_schedule *ring(int P, int count) {
  pat_sched_params p = {
      .nranks = P, .root = 0, .count = count, .commutative = 1};
  pat_schedule *s = NULL;
  if (pat_schedule_alloc(&p, &s) != PAT_SUCCESS)
    exit(1);
  for (int r = 0; r < P; r++) {
    int round = 0;
    pat_schedule_mark_built(s, r);
    for (int st = 0; st < P - 1; st++, round++) {
      int sb = ((r - st) % P + P) % P, rb = ((r - st - 1) % P + P) % P;
      pat_sched_op snd = {PAT_SCHED_SEND,
                          round,
                          (r + 1) % P,
                          st == 0 ? PAT_SLOT_SEND : PAT_SLOT_TMP0,
                          -1,
                          block_start(sb, P, count),
                          block_start(sb + 1, P, count) -
                              block_start(sb, P, count)};
      pat_sched_op rcv = {PAT_SCHED_RECV,
                          round,
                          (r + P - 1) % P,
                          -1,
                          PAT_SLOT_TMP0,
                          block_start(rb, P, count),
                          block_start(rb + 1, P, count) -
                              block_start(rb, P, count)};
      pat_sched_op cmb = rcv;
      cmb.kind = PAT_SCHED_COMBINE;
      cmb.peer = -1;
      cmb.src = PAT_SLOT_SEND;
      add(s, r, &snd);
      add(s, r, &rcv);
      add(s, r, &cmb);
    }
    if (r == 0) {
      pat_sched_op cp = {
          PAT_SCHED_COPY, round, -1, P == 1 ? PAT_SLOT_SEND : PAT_SLOT_TMP0,
          PAT_SLOT_RECV,  0,     0};
      add_blocks(s, r, cp, 0, 1, P, count);
    }
    for (int mask = 1; mask < P; mask <<= 1, round++) {
      if (r & mask) {
        pat_sched_op op = {
            PAT_SCHED_SEND, round, r - mask, PAT_SLOT_TMP0, -1, 0, 0};
        add_blocks(s, r, op, r, r + mask < P ? r + mask : P, P, count);
        break;
      }
      if (r + mask < P) {
        int hi = r + 2 * mask < P ? r + 2 * mask : P;
        pat_sched_op op = {PAT_SCHED_RECV,
                           round,
                           r + mask,
                           -1,
                           r == 0 ? PAT_SLOT_RECV : PAT_SLOT_TMP0,
                           0,
                           0};
        add_blocks(s, r, op, r + mask, hi, P, count);
      }
    }
  }
  return s;
}

static pat_schedule *binomial(int P, int count, int commutative) {
  pat_sched_params p = {
      .nranks = P, .root = 0, .count = count, .commutative = commutative};
  pat_schedule *s = NULL;
  if (pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, -1, &s) != PAT_SUCCESS)
    exit(1);
  return s;
}

/* Runs one case in a child; returns nonzero if the schedule was invalid. */
static int run_case(const char *name, int kind, int P, int count) {
  pid_t pid;
  fflush(stdout);
  pid = fork();
  int status = 1;
  if (pid == 0) {
    char why[256];
    pat_schedule *s =
        kind == 0 ? ring(P, count) : binomial(P, count, kind == 1);
    double built = peak_mb(), t0 = now(), c0 = cpu(), t, tc;
    int err = pat_schedule_validate(s, why, sizeof why);
    t = now() - t0;
    tc = cpu() - c0;
    printf("%-22s %6d %11d %9.3f %9.3f %12.1f %12.1f %s\n", name, P, count, t,
           tc, built, peak_mb(), err == PAT_SUCCESS ? "valid" : why);
    fflush(stdout);
    pat_schedule_free(s);
    _exit(err == PAT_SUCCESS ? 0 : 1);
  }
  if (pid < 0 || waitpid(pid, &status, 0) < 0)
    return 1;
  return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

int main(void) {
  int bad = 0;
  printf("%-22s %6s %11s %9s %9s %12s %12s %s\n", "schedule", "P", "count",
         "seconds", "cpu (s)", "built (MB)", "peak (MB)", "verdict");
  bad |= run_case("ring + binomial gather", 0, 128, 16384);
  bad |= run_case("ring + binomial gather", 0, 1024, 1 << 26);
  bad |= run_case("binomial commutative", 1, 1024, 1 << 26);
  bad |= run_case("binomial rank order", 2, 1024, 1 << 26);
  return bad;
}
