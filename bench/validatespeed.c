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

#include "handring.h"
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
    pat_schedule *s = kind == 0 ? pat_handring_alloc(P, count, 0)
                                : binomial(P, count, kind == 1);
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
