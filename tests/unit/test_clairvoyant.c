/* Unit tests (no MPI run): the clairvoyant schedule builders.
 *  - optimal: for P <= 6 and arrival times in {0..3}, the greedy tree's
 *    completion time equals an exhaustive search over all reduction trees;
 *  - balanced arrivals: ceil(log2 P) rounds and ceil(log2 P) d;
 *  - one late rank: the completion time follows the closed form in
 *    src/clairvoyant/clairvoyant.c;
 *  - the schedules are valid trees (random arrivals, P up to 1024), the
 *    non-commutative variant keeps rank order, and the builder's predicted
 *    time equals the model simulation of the schedule it wrote. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv */
#endif
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/pat_internal.h"

static pat_schedule *clairvoyant(int P, int root, int comm, int in_place,
                                 const double *a, double d, int rank) {
  pat_sched_params p = {.nranks = P,
                        .root = root,
                        .count = 1,
                        .commutative = comm,
                        .in_place = in_place,
                        .arrivals = a,
                        .model = {d, 0, 0}};
  pat_schedule *s = NULL;
  int err = pat_schedule_build(PAT_REDUCE_ALG_CLAIRVOYANT, &p, rank, &s);
  if (err != PAT_SUCCESS)
    fail_msg("build P=%d root=%d comm=%d: %s", P, root, comm,
             pat_strerror(err));
  return s;
}

/* Valid tree, and the simulation of the dataflow executor (a message costs
 * d, one at a time per receiver under the default
 * PAT_REDUCE_MAX_OUTSTANDING = 1, which main sets: with more, a
 * receiver's messages overlap their latencies and finish sooner) gives
 * the builder's prediction exactly for
 * commutative ops; for the in-order variant the executor may do better than
 * the greedy plan (a receiver takes a later-merged neighbour's partial
 * while the earlier merge's sender is still late), never worse.  Returns
 * the planned time. */
static double check(const pat_schedule *s, const double *a, double d) {
  char why[256];
  double sim = -1;
  const pat_sched_params *p = pat_schedule_params(s);
  if (pat_schedule_validate_tree(s, why, sizeof why) != PAT_SUCCESS)
    fail_msg("P=%d root=%d comm=%d in_place=%d: %s", p->nranks, p->root,
             p->commutative, p->in_place, why);
  assert_int_equal(pat_schedule_simulate(s, a, &(pat_model){d, 0, 0}, &sim),
                   PAT_SUCCESS);
  if (p->commutative)
    assert_true(fabs(sim - pat_schedule_predicted_time(s)) < 1e-9);
  else
    assert_true(sim <= pat_schedule_predicted_time(s) + 1e-9);
  return pat_schedule_predicted_time(s);
}

/* Exhaustive search: the best completion time over all merge orders. */
static double best(double *t, int n, double d) {
  double res = INFINITY;
  if (n == 1)
    return t[0];
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      double u[8], ti = t[i], tj = t[j];
      int k = 0;
      for (int x = 0; x < n; x++)
        if (x != i && x != j)
          u[k++] = t[x];
      u[k++] = (ti > tj ? ti : tj) + d;
      double r = best(u, k, d);
      if (r < res)
        res = r;
    }
  return res;
}

static void greedy_is_optimal_for_small_p(void **state) {
  (void)state;
  for (int P = 1; P <= 6; P++) {
    int total = 1;
    for (int i = 0; i < P; i++)
      total *= 4;
    for (int code = 0; code < total; code++) {
      double a[6], t[6];
      for (int i = 0, c = code; i < P; i++, c /= 4)
        a[i] = t[i] = c % 4;
      for (double d = 1; d <= 2; d++) {
        double opt = best(t, P, d);
        pat_schedule *s = clairvoyant(P, code % P, 1, 0, a, d, -1);
        double got = check(s, a, d);
        if (fabs(got - opt) > 1e-9)
          fail_msg("P=%d code=%d d=%g: greedy %g, optimum %g", P, code, d, got,
                   opt);
        pat_schedule_free(s);
      }
    }
  }
}

static void balanced_takes_log2_rounds(void **state) {
  double a[300] = {0};
  (void)state;
  for (int P = 1; P <= 300; P++) {
    for (int comm = 0; comm <= 1; comm++) {
      int root = (P * 7 + comm) % P, rounds = 0;
      pat_schedule *s = clairvoyant(P, root, comm, comm, a, 2.5e-6, -1);
      double t = check(s, a, 2.5e-6);
      for (int r = 0; r < P; r++) {
        int n = pat_schedule_nrounds(s, r);
        rounds = n > rounds ? n : rounds;
      }
      if (comm || root == 0) {
        assert_true(fabs(t - pat_ceil_log2(P) * 2.5e-6) < 1e-12);
        assert_int_equal(rounds, pat_ceil_log2(P) + (P == 1 && !comm));
      } else {
        /* in order with a root inside: at most one round more */
        assert_true(t <= (pat_ceil_log2(P) + 1) * 2.5e-6 + 1e-12);
      }
      pat_schedule_free(s);
    }
  }
}

/* One rank late by delta (in units of d), the others at 0.  The late
 * partial merges r times, the i-th time with a partial of the others that
 * must be ready (2^k ranks need k d) by T - (r - i + 1) d; so T is the
 * least time, among k d and delta + k d, for which r = floor(T - delta) >= 1
 * merges with partials of up to 2^(floor(T) - r - 1 + i) ranks cover the
 * P - 1 others. */
static int covers(int P, double T, double delta) {
  int F = (int)floor(T + 1e-9), r = (int)floor(T - delta + 1e-9);
  double cover = 0;
  for (int i = 1; i <= r; i++)
    if (F - r - 1 + i >= 0)
      cover += pow(2, F - r - 1 + i);
  return r >= 1 && cover >= P - 1;
}

static double one_late(int P, double delta) {
  int i = 0, j = 0; /* candidates i (times k d) and delta + j, merged */
  if (P == 1)
    return delta;
  for (;;) {
    double T = i <= delta + j ? i++ : delta + j++;
    if (covers(P, T, delta))
      return T;
  }
}

static void one_late_rank_follows_closed_form(void **state) {
  static double a[257];
  const double d = 1e-5;
  (void)state;
  for (int P = 2; P <= 257; P++) {
    int late[3] = {P - 1, 0, P / 2};
    for (int k = 0; k < 3; k++) {
      for (double x = 0; x <= pat_ceil_log2(P) + 2; x += 0.37) {
        pat_schedule *s;
        memset(a, 0, sizeof a);
        a[late[k]] = x * d;
        s = clairvoyant(P, (P / 3) % P, 1, 0, a, d, -1);
        double got = check(s, a, d), want = one_late(P, x) * d;
        if (fabs(got - want) > 1e-12)
          fail_msg("P=%d late=%d delta=%gd: %g d, closed form %g d", P, late[k],
                   x, got / d, want / d);
        pat_schedule_free(s);
      }
    }
  }
  /* the thesis' best case: P = 128, delta = log2 P d, speedup over
   * binomial (delta + 7 d) is 2 / (1 + 1/7) */
  memset(a, 0, sizeof a);
  a[127] = 7 * d;
  pat_schedule *s = clairvoyant(128, 0, 1, 0, a, d, -1);
  double t = check(s, a, d);
  assert_true(fabs((14 * d) / t - 2 / (1 + 1.0 / 7)) < 1e-9);
  pat_schedule_free(s);
}

static uint64_t rng = 88172645463325252ull;
static double uniform(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

static void random_arrivals_give_valid_trees(void **state) {
  static double a[1024];
  int sizes[] = {2, 3, 7, 16, 33, 100, 255, 1000, 1024};
  (void)state;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    int P = sizes[k];
    for (int trial = 0; trial < (P > 500 ? 3 : 20); trial++) {
      int root = (int)(uniform() * P);
      for (int i = 0; i < P; i++)
        a[i] = trial % 3 == 0 ? floor(uniform() * 4) : uniform() * 1e-3;
      for (int comm = 0; comm <= 1; comm++) {
        pat_schedule *s = clairvoyant(P, root, comm, trial & 1, a, 1e-4, -1);
        double t = check(s, a, 1e-4);
        double latest = 0;
        for (int i = 0; i < P; i++)
          latest = a[i] > latest ? a[i] : latest;
        assert_true(t >= latest + (P > 1 ? 1e-4 : 0) - 1e-12);
        pat_schedule_free(s);
      }
    }
  }
}

static void one_rank_program_matches_full_build(void **state) {
  double a[37];
  (void)state;
  for (int i = 0; i < 37; i++)
    a[i] = uniform();
  for (int comm = 0; comm <= 1; comm++) {
    pat_schedule *all = clairvoyant(37, 11, comm, 0, a, 0.1, -1);
    for (int r = 0; r < 37; r++) {
      pat_schedule *one = clairvoyant(37, 11, comm, 0, a, 0.1, r);
      assert_int_equal(pat_schedule_nops(one, r), pat_schedule_nops(all, r));
      assert_memory_equal(pat_schedule_ops(one, r), pat_schedule_ops(all, r),
                          (size_t)pat_schedule_nops(all, r) *
                              sizeof(pat_sched_op));
      assert_true(pat_schedule_hash(one) == pat_schedule_hash(all));
      pat_schedule_free(one);
    }
    pat_schedule_free(all);
  }
}

static void hash_changes_with_the_tree(void **state) {
  double a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  pat_schedule *s1, *s2;
  (void)state;
  s1 = clairvoyant(8, 0, 1, 0, a, 1, -1);
  a[5] = 3;
  s2 = clairvoyant(8, 0, 1, 0, a, 1, -1);
  assert_true(pat_schedule_hash(s1) != pat_schedule_hash(s2));
  assert_true(pat_schedule_hash(s1) != 0);
  pat_schedule_free(s1);
  pat_schedule_free(s2);
}

static void bad_inputs_are_rejected(void **state) {
  double a[4] = {0, 1, 2, NAN};
  pat_sched_params p = {.nranks = 3,
                        .root = 0,
                        .count = 1,
                        .commutative = 1,
                        .arrivals = NULL,
                        .model = {1, 0, 0}};
  pat_schedule *s = NULL;
  (void)state;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_CLAIRVOYANT, &p, -1, &s),
                   PAT_ERR_INVALID_ARG);
  p.arrivals = a;
  p.model.alpha = 0;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_CLAIRVOYANT, &p, -1, &s),
                   PAT_ERR_INVALID_ARG);
  p.model.alpha = 1;
  p.nranks = 4;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_CLAIRVOYANT, &p, -1, &s),
                   PAT_ERR_INVALID_ARG);
  assert_null(s);
}

static void simulate_binomial_with_a_late_leaf(void **state) {
  double a[16] = {0};
  pat_sched_params p = {.nranks = 16, .root = 0, .count = 1, .commutative = 1};
  pat_schedule *s = NULL;
  double t = 0;
  (void)state;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, -1, &s),
                   PAT_SUCCESS);
  assert_int_equal(pat_schedule_simulate(s, a, &(pat_model){1, 0, 0}, &t),
                   PAT_SUCCESS);
  assert_true(t == 4);
  a[15] = 4; /* rank 15 sends in round 0: the whole tree waits */
  assert_int_equal(pat_schedule_simulate(s, a, &(pat_model){1, 0, 0}, &t),
                   PAT_SUCCESS);
  assert_true(t == 8);
  assert_true(isnan(pat_schedule_predicted_time(s)));
  pat_schedule_free(s);
}

int main(void) {
  /* the executor's default bound, whatever the caller's environment says:
   * check() compares with a plan in which receives do not overlap */
  setenv("PAT_REDUCE_MAX_OUTSTANDING", "1", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(greedy_is_optimal_for_small_p),
      cmocka_unit_test(balanced_takes_log2_rounds),
      cmocka_unit_test(one_late_rank_follows_closed_form),
      cmocka_unit_test(random_arrivals_give_valid_trees),
      cmocka_unit_test(one_rank_program_matches_full_build),
      cmocka_unit_test(hash_changes_with_the_tree),
      cmocka_unit_test(bad_inputs_are_rejected),
      cmocka_unit_test(simulate_binomial_with_a_late_leaf),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
