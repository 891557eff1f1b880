/* Unit tests (no MPI run): the process-wide memo of src/core/memo.c and
 * the clairvoyant plans kept in it.
 *  - a put value is found under exactly its key (head and body bytewise;
 *    another head, body or length misses), and the counts say so;
 *  - the byte limit (PAT_REDUCE_PLAN_MEMO) drops the least recently found
 *    entries first, never one that is held: a held value stays valid
 *    until its release even after a clear or an eviction;
 *  - PAT_REDUCE_PLAN_MEMO=0 keeps nothing, yet a put value is usable until
 *    released;
 *  - at most 64 entries, whatever the bytes;
 *  - clairvoyant, commutative or not, automatic or 4 segments: the other
 *    ranks' builds of the same inputs find the first one's plan (one plan
 *    stored; the root passing MPI_IN_PLACE takes it too), other arrivals
 *    or another executor bound (PAT_REDUCE_MAX_SENDS, which the in-order
 *    choice simulates with) plan again, and schedules built from a found
 *    plan equal those built with the memo off, rank by rank, with the
 *    same prediction and hash; so do the estimates and segment choice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clairvoyant/clairvoyant.h"
#include "core/memo.h"
#include "core/pat_internal.h"

static void use_limit(const char *bytes) {
  if (bytes != NULL)
    setenv("PAT_REDUCE_PLAN_MEMO", bytes, 1);
  else
    unsetenv("PAT_REDUCE_PLAN_MEMO");
  pat_reduce_config_reload();
  pat_memo_clear();
}

static int teardown(void **state) {
  (void)state;
  unsetenv("PAT_REDUCE_SEGMENTS");
  unsetenv("PAT_REDUCE_MAX_SENDS");
  use_limit(NULL);
  return 0;
}

static void *value_of(const char *text) {
  char *v = malloc(strlen(text) + 1);
  assert_non_null(v);
  strcpy(v, text);
  return v;
}

static void found_under_exactly_its_key(void **state) {
  double body[3] = {1, 2, 3}, other[3] = {1, 2, 4};
  int head = 7, head2 = 8;
  pat_memo_key k = {&head, sizeof head, body, sizeof body};
  pat_memo_held *h = NULL, *h2 = NULL;
  unsigned long s0, f0, s1, f1;
  const void *v;
  (void)state;
  use_limit(NULL);
  pat_memo_counts(&s0, &f0);
  assert_null(pat_memo_find(&k, &h));
  assert_null(h);
  pat_memo_release(NULL);
  v = pat_memo_put(&k, value_of("seven"), 6, &h);
  assert_string_equal(v, "seven");
  pat_memo_release(h);
  assert_ptr_equal(pat_memo_find(&k, &h2), v);
  pat_memo_release(h2);
  /* another body, head or length misses */
  k.body = other;
  assert_null(pat_memo_find(&k, &h2));
  k.body = body;
  k.head = &head2;
  assert_null(pat_memo_find(&k, &h2));
  k.head = &head;
  k.body_len = 2 * sizeof *body;
  assert_null(pat_memo_find(&k, &h2));
  pat_memo_counts(&s1, &f1);
  assert_int_equal(s1 - s0, 1);
  assert_int_equal(f1 - f0, 1);
}

static void limit_drops_least_recent_never_held(void **state) {
  int keys[3] = {1, 2, 3};
  pat_memo_held *h[3], *again;
  const void *v[3];
  (void)state;
  /* room for two entries of ~100 bytes, not three */
  use_limit("400");
  for (int i = 0; i < 2; i++) {
    pat_memo_key k = {&keys[i], sizeof keys[i], NULL, 0};
    v[i] = pat_memo_put(&k, calloc(1, 100), 100, &h[i]);
    assert_non_null(v[i]);
    pat_memo_release(h[i]);
  }
  {
    /* find key 0 again: key 1 is now the least recently found */
    pat_memo_key k = {&keys[0], sizeof keys[0], NULL, 0};
    assert_ptr_equal(pat_memo_find(&k, &again), v[0]);
    pat_memo_release(again);
  }
  {
    pat_memo_key k = {&keys[2], sizeof keys[2], NULL, 0};
    v[2] = pat_memo_put(&k, calloc(1, 100), 100, &h[2]);
    pat_memo_release(h[2]);
  }
  for (int i = 0; i < 3; i++) {
    pat_memo_key k = {&keys[i], sizeof keys[i], NULL, 0};
    const void *f = pat_memo_find(&k, &again);
    if (i == 1)
      assert_null(f);
    else
      assert_ptr_equal(f, v[i]);
    pat_memo_release(again);
  }
  /* a held entry survives a clear and stays usable until its release
   * (valgrind and ASan check the reads and that it is freed) */
  {
    pat_memo_key k = {&keys[0], sizeof keys[0], NULL, 0};
    unsigned char *held = (unsigned char *)pat_memo_find(&k, &again);
    assert_non_null(held);
    pat_memo_clear();
    assert_null(pat_memo_find(&k, &h[0]));
    assert_int_equal(held[99], 0);
    pat_memo_release(again);
  }
}

static void zero_keeps_nothing(void **state) {
  int key = 42;
  pat_memo_key k = {&key, sizeof key, NULL, 0};
  pat_memo_held *h, *h2;
  const void *v;
  unsigned long s0, f0, s1, f1;
  (void)state;
  use_limit("0");
  pat_memo_counts(&s0, &f0);
  v = pat_memo_put(&k, value_of("kept while held"), 16, &h);
  assert_string_equal(v, "kept while held");
  assert_null(pat_memo_find(&k, &h2));
  pat_memo_release(h);
  pat_memo_counts(&s1, &f1);
  assert_int_equal(s1, s0);
  assert_int_equal(f1, f0);
}

/* A build of clairvoyant for rank on arrivals. */
static pat_schedule *build(const pat_sched_params *p, int rank) {
  pat_schedule *s = NULL;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_CLAIRVOYANT, p, rank, &s),
                   PAT_SUCCESS);
  return s;
}

/* with[r] and without (the memo off) are the same program for r. */
static void same_program(pat_schedule *with, pat_schedule *without, int r) {
  assert_int_equal(pat_schedule_nops(with, r), pat_schedule_nops(without, r));
  assert_memory_equal(pat_schedule_ops(with, r), pat_schedule_ops(without, r),
                      (size_t)pat_schedule_nops(without, r) *
                          sizeof(pat_sched_op));
  assert_true(pat_schedule_predicted_time(with) ==
              pat_schedule_predicted_time(without));
  assert_true(pat_schedule_hash(with) == pat_schedule_hash(without));
}

static void clairvoyant_ranks_share_one_plan(void **state) {
  enum { P = 37, ROOT = 5 };
  double arrivals[P], later[P];
  pat_sched_params p = {.nranks = P,
                        .root = ROOT,
                        .count = 1 << 14,
                        .model = {2.66e-6, 4.8179e-10, 1.6654e-10},
                        .elem_size = 8,
                        .arrivals = arrivals};
  unsigned long s0, f0, s1, f1;
  (void)state;
  for (int r = 0; r < P; r++) {
    arrivals[r] = 1e-6 * ((r * 7919) % 23);
    later[r] = arrivals[r] + (r == 3 ? 1e-4 : 0);
  }
  for (int c = 0; c < 4; c++) {
    /* commutative or not, automatic or 4 segments */
    char text[8];
    pat_schedule *with[P], *without;
    double estimate[2], actual[2];
    int segments[2];
    p.commutative = c < 2;
    snprintf(text, sizeof text, "%d", c % 2 == 0 ? 0 : 4);
    setenv("PAT_REDUCE_SEGMENTS", text, 1);
    use_limit(NULL);
    pat_memo_counts(&s0, &f0);
    /* the root passes MPI_IN_PLACE and builds last: it takes the plan
     * of ranks that did not */
    for (int i = 0; i < P; i++) {
      int r = (i + ROOT + 1) % P;
      p.in_place = r == ROOT;
      with[r] = build(&p, r);
    }
    p.in_place = 0;
    estimate[0] = pat_clairvoyant_estimate(&p, NULL);
    actual[0] = pat_clairvoyant_estimate(&p, later);
    segments[0] = pat_clairvoyant_segments(&p, 0);
    pat_memo_counts(&s1, &f1);
    if (c % 2 == 0)
      assert_int_equal(s1 - s0, 1); /* one plan for the P ranks */
    else /* and the estimate's with 0 segments configured */
      assert_int_equal(s1 - s0, 2);
    assert_true(f1 - f0 >= P - 1);
    p.arrivals = later; /* other inputs: planned again */
    pat_schedule_free(build(&p, 0));
    pat_memo_counts(&s0, &f0);
    assert_int_equal(s0 - s1, 1);
    p.arrivals = arrivals;
    if (!p.commutative) {
      /* the executor's bounds shape the in-order choice: a miss */
      setenv("PAT_REDUCE_MAX_SENDS", "1", 1);
      pat_reduce_config_reload(); /* the memo kept */
      pat_memo_counts(&s1, &f1);
      pat_schedule_free(build(&p, 0));
      pat_memo_counts(&s0, &f0);
      assert_int_equal(s0 - s1, 1);
      assert_int_equal(f0 - f1, 0);
      unsetenv("PAT_REDUCE_MAX_SENDS");
    }
    /* the same programs as each rank planning for itself */
    use_limit("0");
    for (int r = 0; r < P; r++) {
      p.in_place = r == ROOT;
      without = build(&p, r);
      same_program(with[r], without, r);
      pat_schedule_free(without);
      pat_schedule_free(with[r]);
    }
    p.in_place = 0;
    estimate[1] = pat_clairvoyant_estimate(&p, NULL);
    actual[1] = pat_clairvoyant_estimate(&p, later);
    segments[1] = pat_clairvoyant_segments(&p, 0);
    assert_true(estimate[0] == estimate[1]);
    assert_true(actual[0] == actual[1]);
    assert_int_equal(segments[0], segments[1]);
  }
}

static void entries_are_bounded(void **state) {
  enum { N = 65 };
  pat_memo_held *h;
  (void)state;
  use_limit("1G");
  for (int i = 0; i < N; i++) {
    pat_memo_key k = {&i, sizeof i, NULL, 0};
    pat_memo_put(&k, calloc(1, 8), 8, &h);
    pat_memo_release(h);
  }
  for (int i = 0; i < N; i++) {
    pat_memo_key k = {&i, sizeof i, NULL, 0};
    const void *v = pat_memo_find(&k, &h);
    /* 64 entries at most: the first one put is gone */
    if (i == 0)
      assert_null(v);
    else
      assert_non_null(v);
    pat_memo_release(h);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(found_under_exactly_its_key, teardown),
      cmocka_unit_test_teardown(limit_drops_least_recent_never_held, teardown),
      cmocka_unit_test_teardown(zero_keeps_nothing, teardown),
      cmocka_unit_test_teardown(entries_are_bounded, teardown),
      cmocka_unit_test_teardown(clairvoyant_ranks_share_one_plan, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
