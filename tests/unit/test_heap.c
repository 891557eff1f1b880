/* Unit tests (no MPI run): the indexed min-heap of src/core/heap.c.
 *  - the tie-break: lower time, then lower tie, then lower id;
 *  - empty heaps, alloc(0), free(NULL), contains out of range;
 *  - random sequences of push, pop_min, peek_min, update (up and down),
 *    remove and contains against a brute-force reference, with keys drawn
 *    from small sets so that ties are frequent;
 *  - 10^5 items come out sorted, before and after updating every key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/heap.h"

static uint64_t rng = 88172645463325252ull;

static unsigned next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng >> 32);
}

static unsigned below(unsigned n) { return next() % n; }

/* The reference: a key per id and a flag, the minimum by a scan. */
typedef struct ref {
  int n, size;
  char *in;
  double *t;
  int *tie;
} ref;

static int ref_before(const ref *r, int a, int b) {
  if (r->t[a] != r->t[b])
    return r->t[a] < r->t[b];
  if (r->tie[a] != r->tie[b])
    return r->tie[a] < r->tie[b];
  return a < b;
}

static int ref_min(const ref *r) {
  int m = -1;
  for (int id = 0; id < r->n; id++)
    if (r->in[id] && (m < 0 || ref_before(r, id, m)))
      m = id;
  return m;
}

/* A random id that is (want = 1) or is not (want = 0) in the reference. */
static int ref_pick(const ref *r, int want) {
  int k = (int)below((unsigned)(want ? r->size : r->n - r->size));
  for (int id = 0; id < r->n; id++)
    if (r->in[id] == want && k-- == 0)
      return id;
  return -1;
}

/* Keys from small sets: ties in time and in tie are frequent. */
static double rand_t(void) {
  return below(4) == 0 ? (double)next() / 4294967296.0 : 0.5 * below(5);
}

static int rand_tie(void) { return (int)below(4) - 1; }

/* peek_min or pop_min (the caller updates the reference) against it. */
static void check_min(pat_heap *h, const ref *r, int pop) {
  double t = -7;
  int tie = -7, want = ref_min(r);
  int id = pop ? pat_heap_pop_min(h, &t, &tie) : pat_heap_peek_min(h, &t, &tie);
  assert_int_equal(id, want);
  if (want < 0) {
    assert_true(t == -7); /* untouched */
    assert_int_equal(tie, -7);
    return;
  }
  assert_true(t == r->t[want]);
  assert_int_equal(tie, r->tie[want]);
}

static void tie_break_order(void **state) {
  pat_heap *h = pat_heap_alloc(8);
  int want[] = {1, 3, 5, 7, 2, 0}, tie = 0;
  double t = 0;
  (void)state;
  assert_non_null(h);
  pat_heap_push(h, 5, 1.0, 0);
  pat_heap_push(h, 2, 1.0, 1);
  pat_heap_push(h, 3, 1.0, 0);
  pat_heap_push(h, 1, 0.5, 9);
  pat_heap_push(h, 0, 2.0, -5);
  pat_heap_push(h, 7, 1.0, -1);
  pat_heap_push(h, 6, 3.0, 0);
  pat_heap_update(h, 7, 1.0, 0); /* increase the tie: now after 3 */
  pat_heap_remove(h, 6);
  pat_heap_remove(h, 6); /* not in the heap: nothing */
  pat_heap_remove(h, 4); /* never was */
  assert_int_equal(pat_heap_size(h), 6);
  for (int i = 0; i < 6; i++) {
    assert_int_equal(pat_heap_pop_min(h, &t, &tie), want[i]);
    assert_false(pat_heap_contains(h, want[i]));
  }
  assert_true(t == 2.0);
  assert_int_equal(tie, -5);
  assert_int_equal(pat_heap_size(h), 0);
  pat_heap_free(h);
}

static void empty_and_edges(void **state) {
  pat_heap *h = pat_heap_alloc(0);
  double t = 3;
  int tie = 3;
  (void)state;
  assert_non_null(h);
  assert_int_equal(pat_heap_size(h), 0);
  assert_int_equal(pat_heap_peek_min(h, &t, &tie), -1);
  assert_int_equal(pat_heap_pop_min(h, NULL, NULL), -1);
  assert_true(t == 3);
  assert_int_equal(tie, 3);
  assert_false(pat_heap_contains(h, 0));
  assert_false(pat_heap_contains(h, -1));
  pat_heap_remove(h, 0);
  pat_heap_free(h);
  pat_heap_free(NULL);
  assert_null(pat_heap_alloc(-1));

  h = pat_heap_alloc(1);
  pat_heap_push(h, 0, -1e300, 0);
  assert_true(pat_heap_contains(h, 0));
  assert_false(pat_heap_contains(h, 1));
  pat_heap_update(h, 0, 1e300, 0);
  assert_int_equal(pat_heap_peek_min(h, &t, NULL), 0);
  assert_true(t == 1e300);
  assert_int_equal(pat_heap_pop_min(h, NULL, &tie), 0);
  assert_int_equal(tie, 0);
  assert_int_equal(pat_heap_pop_min(h, NULL, NULL), -1);
  /* reusable after being emptied */
  pat_heap_push(h, 0, 2, 2);
  assert_int_equal(pat_heap_size(h), 1);
  pat_heap_free(h);
}

static void random_ops_match_reference(void **state) {
  int sizes[] = {1, 2, 3, 5, 8, 17, 64, 257};
  (void)state;
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    int n = sizes[k];
    ref r = {.n = n,
             .size = 0,
             .in = calloc((size_t)n, 1),
             .t = calloc((size_t)n, sizeof(double)),
             .tie = calloc((size_t)n, sizeof(int))};
    pat_heap *h = pat_heap_alloc(n);
    int ups = 0, downs = 0;
    assert_non_null(h);
    assert_non_null(r.in);
    for (int step = 0; step < 20000; step++) {
      unsigned op = below(100);
      int id;
      if (op < 30) { /* push, if there is room */
        if (r.size == n)
          continue;
        id = ref_pick(&r, 0);
        r.t[id] = rand_t();
        r.tie[id] = rand_tie();
        r.in[id] = 1;
        r.size++;
        pat_heap_push(h, id, r.t[id], r.tie[id]);
      } else if (op < 45) { /* pop_min */
        int want = ref_min(&r);
        check_min(h, &r, 1);
        if (want >= 0) {
          r.in[want] = 0;
          r.size--;
        }
      } else if (op < 55) { /* peek_min */
        check_min(h, &r, 0);
      } else if (op < 80) { /* update, either direction */
        double t = rand_t();
        int tie = rand_tie();
        if (r.size == 0)
          continue;
        id = ref_pick(&r, 1);
        if (t < r.t[id] || (t == r.t[id] && tie < r.tie[id]))
          downs++;
        else if (t > r.t[id] || (t == r.t[id] && tie > r.tie[id]))
          ups++;
        r.t[id] = t;
        r.tie[id] = tie;
        pat_heap_update(h, id, t, tie);
      } else if (op < 90) { /* remove, present or not */
        id = (int)below((unsigned)n);
        if (r.in[id]) {
          r.in[id] = 0;
          r.size--;
        }
        pat_heap_remove(h, id);
      } else { /* contains, also out of range */
        id = (int)below((unsigned)n + 2) - 1;
        assert_int_equal(pat_heap_contains(h, id),
                         id >= 0 && id < n && r.in[id]);
      }
      assert_int_equal(pat_heap_size(h), r.size);
      if (step % 1000 == 999) /* drain: the whole order, tie-breaks too */
        while (r.size > 0) {
          int want = ref_min(&r);
          check_min(h, &r, 1);
          r.in[want] = 0;
          r.size--;
        }
    }
    for (int id = 0; id < n; id++)
      assert_int_equal(pat_heap_contains(h, id), r.in[id]);
    if (n > 1) { /* both directions were exercised */
      assert_true(ups > 100);
      assert_true(downs > 100);
    }
    pat_heap_free(h);
    free(r.in);
    free(r.t);
    free(r.tie);
  }
}

/* Pops everything: keys nondecreasing in (t, tie, id), every id once. */
static void drain_sorted(pat_heap *h, int n) {
  char *seen = calloc((size_t)n, 1);
  double pt = 0, t;
  int ptie = 0, pid = -1, tie, id, count = 0;
  assert_non_null(seen);
  while ((id = pat_heap_pop_min(h, &t, &tie)) >= 0) {
    assert_true(id < n && !seen[id]);
    seen[id] = 1;
    if (pid >= 0)
      assert_true(pt < t ||
                  (pt == t && (ptie < tie || (ptie == tie && pid < id))));
    pt = t;
    ptie = tie;
    pid = id;
    count++;
  }
  assert_int_equal(count, n);
  assert_int_equal(pat_heap_size(h), 0);
  free(seen);
}

static void many_items_come_out_sorted(void **state) {
  const int n = 100000;
  int *order = malloc((size_t)n * sizeof *order);
  pat_heap *h = pat_heap_alloc(n);
  (void)state;
  assert_non_null(h);
  assert_non_null(order);
  for (int i = 0; i < n; i++)
    order[i] = i;
  for (int i = n - 1; i > 0; i--) { /* ids in random order */
    int j = (int)below((unsigned)i + 1), x = order[i];
    order[i] = order[j];
    order[j] = x;
  }
  for (int i = 0; i < n; i++)
    pat_heap_push(h, order[i], (double)below(1000) * 1e-6, (int)below(50));
  assert_int_equal(pat_heap_size(h), n);
  drain_sorted(h, n);
  /* again, then every key changed in place, up or down */
  for (int i = 0; i < n; i++)
    pat_heap_push(h, order[i], (double)next(), (int)below(3));
  for (int i = 0; i < n; i++)
    pat_heap_update(h, i, (double)below(100), (int)below(3));
  drain_sorted(h, n);
  free(order);
  pat_heap_free(h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tie_break_order),
      cmocka_unit_test(empty_and_edges),
      cmocka_unit_test(random_ops_match_reference),
      cmocka_unit_test(many_items_come_out_sorted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
