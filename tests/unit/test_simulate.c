/* Unit tests (no MPI run): pat_schedule_simulate charges alpha + bytes beta
 * per message (messages at one port share its bandwidth, latencies
 * overlap) and bytes gamma per combine, as the dataflow executor runs the
 * schedule; checked against times computed by hand for binomial trees, a
 * hand-written ring and messages sharing ports. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/pat_internal.h"

static const pat_model M = {.alpha = 1e-6, .beta = 1e-9, .gamma = 5e-10};

static void near(double got, double want) {
  if (fabs(got - want) > 1e-12 * (1 + fabs(want)))
    fail_msg("simulated %.12g s, expected %.12g s", got, want);
}

static pat_schedule *binomial(int P, int count) {
  pat_sched_params p = {.nranks = P,
                        .root = 0,
                        .count = count,
                        .commutative = 1,
                        .model = M,
                        .elem_size = 8};
  pat_schedule *s = NULL;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, -1, &s),
                   PAT_SUCCESS);
  return s;
}

/* log2 P rounds of d = alpha + m (beta + gamma); a late leaf of round 0
 * delays everything by its lateness. */
static void binomial_by_hand(void **state) {
  double m = 1000 * 8.0, d = M.alpha + m * (M.beta + M.gamma), t = -1;
  double a[8] = {0};
  (void)state;
  for (int P = 2, rounds = 1; P <= 8; P *= 2, rounds++) {
    pat_schedule *s = binomial(P, 1000);
    assert_int_equal(pat_schedule_simulate(s, NULL, NULL, &t), PAT_SUCCESS);
    near(t, rounds * d);
    pat_schedule_free(s);
  }
  {
    pat_schedule *s = binomial(8, 1000);
    a[7] = 5e-5;
    assert_int_equal(pat_schedule_simulate(s, a, NULL, &t), PAT_SUCCESS);
    near(t, 5e-5 + 3 * d);
    /* another model than the schedule's */
    assert_int_equal(
        pat_schedule_simulate(s, NULL, &(pat_model){2e-6, 0, 0}, &t),
        PAT_SUCCESS);
    near(t, 3 * 2e-6);
    pat_schedule_free(s);
  }
}

static void add(pat_schedule *s, int r, pat_sched_kind kind, int round,
                int peer, int src, int dst, int offset, int count) {
  pat_sched_op op = {kind, round, peer, src, dst, offset, count};
  assert_int_equal(pat_schedule_add(s, r, &op), PAT_SUCCESS);
}

/* An empty schedule to fill by hand: commutative, root 0, model M. */
static pat_schedule *by_hand(int nranks, int count, int elem_size) {
  pat_sched_params p = {.nranks = nranks,
                        .root = 0,
                        .count = count,
                        .commutative = 1,
                        .model = M,
                        .elem_size = elem_size};
  pat_schedule *s = NULL;
  assert_int_equal(pat_schedule_alloc(&p, &s), PAT_SUCCESS);
  return s;
}

/* Ring reduce-scatter over P blocks of c elements, then every block sent
 * straight to root 0: P - 1 steps of alpha + b (beta + gamma), then P - 1
 * messages into the root at once, which share its receive port: alpha +
 * (P - 1) b beta. */
static void ring_by_hand(void **state) {
  enum { P = 3, C = 1000 };
  pat_schedule *s = by_hand(P, P * C, 8);
  const int S = PAT_SLOT_SEND, R = PAT_SLOT_RECV, T0 = PAT_SLOT_TMP0,
            T1 = PAT_SLOT_TMP0 + 1;
  double b = C * 8.0, t = -1;
  (void)state;
  for (int r = 0; r < P; r++) {
    add(s, r, PAT_SCHED_COPY, 0, -1, S, T0, 0, P * C);
    for (int step = 0; step < P - 1; step++) {
      int out = ((r - step) % P + P) % P, in = ((r - step - 1) % P + P) % P;
      add(s, r, PAT_SCHED_SEND, step, (r + 1) % P, T0, -1, out * C, C);
      add(s, r, PAT_SCHED_RECV, step, (r + P - 1) % P, -1, T1, in * C, C);
      add(s, r, PAT_SCHED_COMBINE, step, -1, T1, T0, in * C, C);
    }
  }
  /* rank r holds block r + 1 complete */
  for (int r = 1; r < P; r++) {
    add(s, r, PAT_SCHED_SEND, P - 1, 0, T0, -1, (r + 1) % P * C, C);
    add(s, 0, PAT_SCHED_RECV, P - 1, r, -1, R, (r + 1) % P * C, C);
  }
  add(s, 0, PAT_SCHED_COPY, P - 1, -1, T0, R, 1 * C, C);
  assert_int_equal(pat_schedule_simulate(s, NULL, NULL, &t), PAT_SUCCESS);
  near(t, (P - 1) * (M.alpha + b * (M.beta + M.gamma)) + M.alpha +
              (P - 1) * b * M.beta);
  /* Rank 2 late by L; x = alpha + b beta, c = b gamma.  Rank 2's step-0
   * receive runs from L; its step-1 receive is held (the executor's
   * bound, PAT_REDUCE_MAX_OUTSTANDING = 1) until that one ends at L + x,
   * so its block is complete at L + 2x + c; ranks 0 and 1 get their
   * step-1 blocks from senders that combined until L + x + c, and
   * complete theirs at L + 2x + 2c.  The root's final receives are of a
   * later round than its step-1 combine, so only the first, from rank 1,
   * is posted early (at L + 2x + c) and rank 2's waits for that combine;
   * both messages then start at L + 2x + 2c and share the root's receive
   * port: alpha + 2 b beta -- less than a round-by-round execution's
   * L + 2 (x + c) + 2x. */
  {
    double a[P] = {0, 0, 1e-4}, x = M.alpha + b * M.beta;
    assert_int_equal(pat_schedule_simulate(s, a, NULL, &t), PAT_SUCCESS);
    near(t, 1e-4 + 2 * x + 2 * b * M.gamma + M.alpha + 2 * b * M.beta);
  }
  pat_schedule_free(s);
}

/* Two messages into one rank share its receive port: both latencies run
 * at once, then each gets half the bandwidth, so both end at
 * alpha + 2 b beta; a combine holds the processor, so the two combines
 * run one after the other. */
static void ports_and_processor(void **state) {
  pat_schedule *s = by_hand(3, 2, 4000);
  double b = 4000, t = -1;
  (void)state;
  add(s, 1, PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 0, 1);
  add(s, 2, PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 0, 1);
  add(s, 0, PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 0, 1);
  add(s, 0, PAT_SCHED_RECV, 0, 2, -1, PAT_SLOT_TMP0 + 1, 0, 1);
  add(s, 0, PAT_SCHED_COPY, 0, -1, PAT_SLOT_SEND, PAT_SLOT_RECV, 0, 2);
  add(s, 0, PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_TMP0, PAT_SLOT_RECV, 0, 1);
  add(s, 0, PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_TMP0 + 1, PAT_SLOT_RECV, 0, 1);
  assert_int_equal(pat_schedule_simulate(s, NULL, NULL, &t), PAT_SUCCESS);
  near(t, M.alpha + 2 * b * M.beta + 2 * b * M.gamma);
  pat_schedule_free(s);
}

/* Max-min fair sharing: rank 1 sends b bytes each to ranks 0, 2 and 4,
 * rank 3 sends 4 b to rank 0.  After their latencies (alpha, together),
 * rank 1's send port is the bottleneck: its three messages get a third
 * of the bandwidth each and end at alpha + 3 b beta; rank 3's message
 * gets what is left at rank 0's receive port, two thirds, so it has moved
 * 2 b by then and its last 2 b take 2 b beta at full rate: it ends at
 * alpha + 5 b beta (an equal split of rank 0's port would give
 * alpha + 5.5 b beta; one message at a time per port alpha + 5 b beta
 * only if rank 3's went first, and then the combine of rank 1's piece
 * would come last).  Rank 0's combine of rank 1's piece runs meanwhile;
 * that of rank 3's ends the call: alpha + 5 b beta + 4 b gamma. */
static void max_min_sharing(void **state) {
  pat_schedule *s = by_hand(5, 4, 4000);
  double b = 4000, t = -1;
  (void)state;
  add(s, 1, PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 0, 1);
  add(s, 1, PAT_SCHED_SEND, 0, 2, PAT_SLOT_SEND, -1, 1, 1);
  add(s, 1, PAT_SCHED_SEND, 0, 4, PAT_SLOT_SEND, -1, 2, 1);
  add(s, 3, PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 0, 4);
  add(s, 2, PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 1, 1);
  add(s, 4, PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 2, 1);
  add(s, 0, PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 0, 1);
  add(s, 0, PAT_SCHED_RECV, 0, 3, -1, PAT_SLOT_TMP0 + 1, 0, 4);
  add(s, 0, PAT_SCHED_COPY, 0, -1, PAT_SLOT_SEND, PAT_SLOT_RECV, 0, 4);
  add(s, 0, PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_TMP0, PAT_SLOT_RECV, 0, 1);
  add(s, 0, PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_TMP0 + 1, PAT_SLOT_RECV, 0, 4);
  assert_int_equal(pat_schedule_simulate(s, NULL, NULL, &t), PAT_SUCCESS);
  near(t, M.alpha + 5 * b * M.beta + 4 * b * M.gamma);
  /* infinite bandwidth: every message takes alpha, all at once; then the
   * two combines, one after the other */
  assert_int_equal(
      pat_schedule_simulate(s, NULL, &(pat_model){2e-6, 0, 1e-9}, &t),
      PAT_SUCCESS);
  near(t, 2e-6 + (1 + 4) * b * 1e-9);
  pat_schedule_free(s);
}

/* Edges of the flow model.  A message whose latency ends at the instant
 * another one's last byte leaves the same port gets the whole port: rank
 * 2, late by b beta, starts its message to rank 0 when rank 1's has
 * moved all its b bytes, so its own ends at alpha + 2 b beta and rank 0
 * combines it b gamma later.  An empty message costs alpha, and so does
 * every message when beta is too small for 1 / beta to be finite. */
static void flow_edges(void **state) {
  pat_schedule *s = by_hand(3, 2, 4000);
  double b = 4000, t = -1, a[3] = {0, 0, b * M.beta};
  (void)state;
  add(s, 1, PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 0, 1);
  add(s, 2, PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 1, 1);
  add(s, 0, PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 0, 1);
  add(s, 0, PAT_SCHED_RECV, 0, 2, -1, PAT_SLOT_TMP0, 1, 1);
  add(s, 0, PAT_SCHED_COPY, 0, -1, PAT_SLOT_SEND, PAT_SLOT_RECV, 0, 2);
  add(s, 0, PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_TMP0, PAT_SLOT_RECV, 0, 2);
  assert_int_equal(pat_schedule_simulate(s, a, NULL, &t), PAT_SUCCESS);
  near(t, M.alpha + 2 * b * M.beta + 2 * b * M.gamma);
  assert_int_equal(
      pat_schedule_simulate(s, NULL, &(pat_model){1e-6, 1e-310, 0}, &t),
      PAT_SUCCESS);
  near(t, 1e-6);
  pat_schedule_free(s);

  s = by_hand(2, 2, 4000);
  add(s, 1, PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 0, 0);
  add(s, 0, PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 0, 0);
  add(s, 0, PAT_SCHED_COPY, 0, -1, PAT_SLOT_SEND, PAT_SLOT_RECV, 0, 2);
  assert_int_equal(pat_schedule_simulate(s, NULL, NULL, &t), PAT_SUCCESS);
  near(t, M.alpha);
  pat_schedule_free(s);
}

/* As the executor: rank 0's sends of later rounds than its first
 * unfinished one are posted only while fewer than PAT_REDUCE_MAX_SENDS
 * sends are in flight.  Three messages of b bytes to three ranks, in
 * rounds 0, 1, 2, each receiver waiting from the start: all at once they
 * share rank 0's send port (alpha + 3 b beta); two at a time, the third
 * follows (2 alpha + 3 b beta); one at a time (or none early: 0), three
 * times alpha + b beta. */
static void sends_ahead_bounded(void **state) {
  const struct {
    const char *max;
    double want;
  } cases[] = {{NULL, 1}, {"4", 1}, {"3", 1}, {"2", 2}, {"1", 3}, {"0", 3}};
  pat_schedule *s = by_hand(4, 3, 4000);
  double b = 4000, t = -1;
  (void)state;
  for (int k = 1; k <= 3; k++) {
    add(s, 0, PAT_SCHED_SEND, k - 1, k, PAT_SLOT_SEND, -1, k - 1, 1);
    add(s, k, PAT_SCHED_RECV, k - 1, 0, -1, PAT_SLOT_TMP0, k - 1, 1);
  }
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    double n = cases[c].want; /* messages one after the other */
    if (cases[c].max != NULL)
      setenv("PAT_REDUCE_MAX_SENDS", cases[c].max, 1);
    else
      unsetenv("PAT_REDUCE_MAX_SENDS"); /* the default: 4 */
    pat_reduce_config_reload();
    assert_int_equal(pat_config_get()->error, PAT_SUCCESS);
    assert_int_equal(pat_schedule_simulate(s, NULL, NULL, &t), PAT_SUCCESS);
    near(t, n == 1   ? M.alpha + 3 * b * M.beta
            : n == 2 ? 2 * M.alpha + 3 * b * M.beta
                     : 3 * (M.alpha + b * M.beta));
  }
  unsetenv("PAT_REDUCE_MAX_SENDS");
  pat_reduce_config_reload();
  pat_schedule_free(s);
}

static void unmatched_schedule_is_refused(void **state) {
  pat_sched_params p = {.nranks = 2, .root = 0, .count = 1, .model = M};
  pat_schedule *s = NULL;
  double t;
  (void)state;
  assert_int_equal(pat_schedule_alloc(&p, &s), PAT_SUCCESS);
  add(s, 1, PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 0, 1);
  assert_int_equal(pat_schedule_mark_built(s, 0), PAT_SUCCESS);
  assert_int_equal(pat_schedule_simulate(s, NULL, NULL, &t),
                   PAT_ERR_INVALID_SCHEDULE);
  assert_int_equal(pat_schedule_simulate(s, NULL, &(pat_model){-1, 0, 0}, &t),
                   PAT_ERR_INVALID_ARG);
  pat_schedule_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(binomial_by_hand),
      cmocka_unit_test(ring_by_hand),
      cmocka_unit_test(ports_and_processor),
      cmocka_unit_test(max_min_sharing),
      cmocka_unit_test(flow_edges),
      cmocka_unit_test(sends_ahead_bounded),
      cmocka_unit_test(unmatched_schedule_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
