/* Unit tests (no MPI run): the segmented clairvoyant plan
 * (src/clairvoyant/segmented.c).
 *  - balanced arrivals: exactly n + N - 1 rounds (n = ceil(log2 P)) for
 *    every P in 2..512 and N in {1, 2, 3, 4, 8, 16, 64}, every root tried
 *    for small P;
 *  - every plan is a reduction: per round a rank sends at most one segment
 *    and receives at most one, sends only what it holds and never again,
 *    the root never sends, and the root ends with all P contributions of
 *    every segment (random arrivals, P up to 1024);
 *  - one late rank (thesis figure 6.3): the P - 1 others finish their
 *    reduction while it is late, in n' + N - 1 rounds (n' = ceil(log2
 *    (P - 1))), and it then sends its N segments, done at arrival + N d;
 *    also when the late rank is the root (the earliest rank is the sink);
 *  - builder speed: printed for P = 128, N = 16 and P = 1024, N = 64. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "clairvoyant/clairvoyant.h"

static pat_sched_params params(int P, int root, int count, const double *a) {
  return (pat_sched_params){.nranks = P,
                            .root = root,
                            .count = count,
                            .commutative = 1,
                            .arrivals = a,
                            .model = {1e-6, 0, 0},
                            .elem_size = 8};
}

/* Replays the plan, failing on any rule it breaks. */
static void check_plan(const pat_sched_params *p, int N,
                       const pat_clairvoyant_plan *plan) {
  int P = p->nranks;
  int *have = malloc((size_t)P * N * sizeof *have); /* contributions held */
  int *sent_at = malloc((size_t)P * sizeof *sent_at);
  int *recv_at = malloc((size_t)P * sizeof *recv_at);
  assert_non_null(have);
  assert_non_null(sent_at);
  assert_non_null(recv_at);
  for (int i = 0; i < P * N; i++)
    have[i] = 1;
  for (int r = 0; r < P; r++)
    sent_at[r] = recv_at[r] = -1;
  assert_int_equal(plan->n, N * (P - 1));
  for (int i = 0; i < plan->n; i++) {
    const pat_clairvoyant_transfer *t = &plan->t[i];
    if (i > 0)
      assert_true(t->round >= plan->t[i - 1].round);
    assert_true(t->round < plan->rounds);
    assert_true(t->sender != p->root);
    assert_true(t->sender != t->receiver);
    assert_true(sent_at[t->sender] < t->round);   /* one send per round */
    assert_true(recv_at[t->receiver] < t->round); /* one receive */
    sent_at[t->sender] = recv_at[t->receiver] = t->round;
    assert_true(have[t->sender * N + t->seg] > 0);
    assert_true(have[t->receiver * N + t->seg] > 0);
    have[t->receiver * N + t->seg] += have[t->sender * N + t->seg];
    have[t->sender * N + t->seg] = 0;
  }
  for (int s = 0; s < N; s++)
    assert_int_equal(have[p->root * N + s], P);
  free(have);
  free(sent_at);
  free(recv_at);
}

static pat_clairvoyant_plan plan_of(const pat_sched_params *p, int N) {
  pat_clairvoyant_plan plan;
  int err = pat_clairvoyant_plan_segments(p, N, &plan);
  if (err != PAT_SUCCESS)
    fail_msg("plan P=%d N=%d root=%d: %s", p->nranks, N, p->root,
             pat_strerror(err));
  return plan;
}

static const int Ns[] = {1, 2, 3, 4, 8, 16, 64};
#define NN (int)(sizeof Ns / sizeof Ns[0])

static void balanced_rounds(void **state) {
  double *a = calloc(512, sizeof *a);
  int bad = 0;
  (void)state;
  assert_non_null(a);
  for (int P = 2; P <= 512; P++)
    for (int k = 0; k < NN; k++) {
      int N = Ns[k], n = pat_ceil_log2(P);
      int roots = P <= 16 ? P : 1;
      for (int root = 0; root < roots; root++) {
        pat_sched_params p = params(P, root, 1 << 20, a);
        pat_clairvoyant_plan plan = plan_of(&p, N);
        if (plan.rounds != n + N - 1 && bad++ < 20)
          print_error("P=%d N=%d root=%d: %d rounds, want %d\n", P, N, root,
                      plan.rounds, n + N - 1);
        if (P <= 64 || P % 61 == 0)
          check_plan(&p, N, &plan);
        assert_true(fabs(plan.done - plan.rounds * pat_clairvoyant_segment_cost(
                                                       &p, N)) < 1e-12);
        pat_clairvoyant_plan_free(&plan);
      }
    }
  free(a);
  assert_int_equal(bad, 0);
}

static void random_arrivals_valid(void **state) {
  const int Ps[] = {2, 3, 7, 64, 100, 257, 1024};
  double *a = malloc(1024 * sizeof *a);
  unsigned seed = 12345;
  (void)state;
  assert_non_null(a);
  for (size_t i = 0; i < sizeof Ps / sizeof Ps[0]; i++)
    for (int k = 0; k < NN; k++)
      for (int trial = 0; trial < 3; trial++) {
        int P = Ps[i], N = Ns[k];
        pat_sched_params p;
        pat_clairvoyant_plan plan;
        for (int r = 0; r < P; r++) {
          seed = seed * 1103515245u + 12345u;
          /* arrivals spread over 0..20 segment rounds, some equal */
          a[r] = (double)((seed >> 8) % 21) * (trial == 2 ? 1e-6 : 0.7e-6);
        }
        seed = seed * 1103515245u + 12345u;
        p = params(P, (int)((seed >> 8) % (unsigned)P), 4096, a);
        plan = plan_of(&p, N);
        check_plan(&p, N, &plan);
        pat_clairvoyant_plan_free(&plan);
      }
  free(a);
}

static void one_late_rank(void **state) {
  double a[100];
  (void)state;
  for (int P = 3; P <= 100; P += 7)
    for (int k = 0; k < NN; k++)
      for (int late_root = 0; late_root < 2; late_root++) {
        int N = Ns[k], n1 = pat_ceil_log2(P - 1);
        int late = late_root ? 0 : P - 1;
        pat_sched_params p = params(P, 0, 1 << 16, a);
        double d = pat_clairvoyant_segment_cost(&p, N), delta;
        pat_clairvoyant_plan plan;
        int before = 0;
        delta = (n1 + N - 1 + 2.5) * d; /* after the others are done */
        for (int r = 0; r < P; r++)
          a[r] = r == late ? delta : 0;
        plan = plan_of(&p, N);
        check_plan(&p, N, &plan);
        for (int i = 0; i < plan.n; i++)
          before += plan.t[i].sender != late && plan.t[i].receiver != late;
        /* the others' (P - 1)-way reduction: all its transfers, in the
         * balanced number of rounds, then the late rank's N */
        assert_int_equal(before, N * (P - 2));
        assert_int_equal(plan.rounds, n1 + N - 1 + N);
        assert_true(fabs(plan.done - (delta + N * d)) < 1e-12);
        pat_clairvoyant_plan_free(&plan);
      }
}

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void builder_speed(void **state) {
  const int cases[][2] = {{128, 16}, {1024, 64}, {128, 64}, {1024, 16}};
  double *a = calloc(1024, sizeof *a);
  (void)state;
  assert_non_null(a);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int P = cases[c][0], N = cases[c][1], reps = P > 200 ? 20 : 200;
    pat_sched_params p = params(P, 0, 1 << 20, a);
    double best = 1e9;
    for (int rep = 0; rep < reps; rep++) {
      pat_clairvoyant_plan plan;
      double t0 = seconds(), t1;
      assert_int_equal(pat_clairvoyant_plan_segments(&p, N, &plan),
                       PAT_SUCCESS);
      t1 = seconds() - t0;
      best = t1 < best ? t1 : best;
      pat_clairvoyant_plan_free(&plan);
    }
    printf("segmented plan, balanced, P = %d, N = %d: %.1f us (best of %d)\n",
           P, N, best * 1e6, reps);
  }
  free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(balanced_rounds),
      cmocka_unit_test(random_arrivals_valid),
      cmocka_unit_test(one_late_rank),
      cmocka_unit_test(builder_speed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
