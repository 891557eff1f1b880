/* Unit tests (no MPI run): the tree emitter over segments
 * (pat_tree_emit_segments).  A pipelined binomial tree, segment s running
 * the tree s rounds after segment 0, must validate for every P, root,
 * segment count, op kind and in-place use; each operation must stay inside
 * its segment; one segment must equal pat_tree_emit; and under the byte
 * model the pipeline must beat the atomic tree for large messages by
 * overlapping the combines. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/pat_internal.h"

/* Binomial events of rank r (tree rooted at root, children after the
 * parent in rank order relative to the root) for segment seg, shifted by
 * seg rounds. */
static int binomial_events(int P, int root, int r, int seg,
                           pat_tree_event *ev) {
  int v = (r - root + P) % P, n = 0, round = 0;
  for (int mask = 1; mask < P; mask <<= 1, round++) {
    if (v & mask) {
      ev[n++] = (pat_tree_event){.kind = PAT_TREE_SEND,
                                 .round = round + seg,
                                 .peer = (v - mask + root) % P,
                                 .seg = seg};
      break;
    }
    if (v + mask < P)
      ev[n++] = (pat_tree_event){.kind = PAT_TREE_RECV_AFTER,
                                 .round = round + seg,
                                 .peer = (v + mask + root) % P,
                                 .seg = seg};
  }
  return n;
}

static int by_round(const void *a, const void *b) {
  const pat_tree_event *x = a, *y = b;
  return x->round != y->round ? (x->round > y->round) - (x->round < y->round)
                              : (x->seg > y->seg) - (x->seg < y->seg);
}

/* The pipelined tree of nseg segments (events in round order). */
static pat_schedule *pipelined(const pat_sched_params *p, int nseg) {
  pat_schedule *s = NULL;
  pat_tree_event *ev = malloc((size_t)(nseg * 40) * sizeof *ev);
  assert_non_null(ev);
  assert_int_equal(pat_schedule_alloc(p, &s), PAT_SUCCESS);
  for (int r = 0; r < p->nranks; r++) {
    int n = 0;
    for (int seg = 0; seg < nseg; seg++)
      n += binomial_events(p->nranks, p->root, r, seg, ev + n);
    qsort(ev, (size_t)n, sizeof *ev, by_round);
    assert_int_equal(pat_tree_emit_segments(s, p, r, nseg, ev, n), PAT_SUCCESS);
    assert_int_equal(pat_schedule_mark_built(s, r), PAT_SUCCESS);
  }
  free(ev);
  return s;
}

static void pipelined_trees_are_valid(void **state) {
  char why[256];
  (void)state;
  for (int P = 1; P <= 33; P++)
    for (int nseg = 1; nseg <= 5; nseg++)
      for (int variant = 0; variant < 4; variant++) {
        int root = (P * 7 + nseg) % P, count = 3 * nseg + variant;
        pat_sched_params p = {.nranks = P,
                              .root = root,
                              .count = count,
                              .commutative = 1,
                              .in_place = variant & 1};
        pat_schedule *s = pipelined(&p, nseg);
        if (pat_schedule_validate_tree(s, why, sizeof why) != PAT_SUCCESS)
          fail_msg("P=%d root=%d nseg=%d count=%d in_place=%d: %s", P, root,
                   nseg, count, p.in_place, why);
        /* every operation inside one segment */
        for (int r = 0; r < P; r++)
          for (int i = 0; i < pat_schedule_nops(s, r); i++) {
            const pat_sched_op *o = &pat_schedule_ops(s, r)[i];
            int seg = 0;
            while (seg + 1 < nseg &&
                   (long long)(seg + 1) * count / nseg <= o->offset)
              seg++;
            assert_int_equal(o->offset, (long long)seg * count / nseg);
            assert_int_equal(o->offset + o->count,
                             (long long)(seg + 1) * count / nseg);
          }
        pat_schedule_free(s);
      }
}

static void one_segment_is_the_atomic_tree(void **state) {
  pat_sched_params p = {
      .nranks = 13, .root = 4, .count = 9, .commutative = 1, .in_place = 1};
  pat_schedule *seg = pipelined(&p, 1), *atomic = NULL;
  (void)state;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, -1, &atomic),
                   PAT_SUCCESS);
  for (int r = 0; r < p.nranks; r++) {
    assert_int_equal(pat_schedule_nops(seg, r), pat_schedule_nops(atomic, r));
    assert_memory_equal(pat_schedule_ops(seg, r), pat_schedule_ops(atomic, r),
                        (size_t)pat_schedule_nops(seg, r) *
                            sizeof(pat_sched_op));
  }
  pat_schedule_free(seg);
  pat_schedule_free(atomic);
}

/* 1 MiB, P = 16, CURIE-like model: 8 segments flow through the tree
 * (log2 P + N - 1 segment rounds instead of log2 P whole rounds). */
static void pipeline_beats_atomic_tree_for_large_messages(void **state) {
  pat_sched_params p = {.nranks = 16,
                        .root = 0,
                        .count = 131072,
                        .commutative = 1,
                        .model = {2.66e-6, 4.8179e-10, 1.6654e-10},
                        .elem_size = 8};
  pat_schedule *seg = pipelined(&p, 8), *atomic = pipelined(&p, 1);
  double ts = 0, ta = 0;
  (void)state;
  assert_int_equal(pat_schedule_simulate(seg, NULL, NULL, &ts), PAT_SUCCESS);
  assert_int_equal(pat_schedule_simulate(atomic, NULL, NULL, &ta), PAT_SUCCESS);
  assert_true(fabs(ta - 4 * pat_sched_round_cost(&p)) < 1e-12);
  /* the root takes log2 P messages per segment, so the pipeline saves the
   * combines it overlaps: beta / (beta + gamma) = 0.74 of the time */
  print_message("P=16 1 MiB: atomic %.3f ms, 8 segments %.3f ms\n", ta * 1e3,
                ts * 1e3);
  assert_true(ts < 0.8 * ta);
  pat_schedule_free(seg);
  pat_schedule_free(atomic);
}

static void bad_segment_is_refused(void **state) {
  pat_sched_params p = {.nranks = 2, .root = 0, .count = 4, .commutative = 1};
  pat_tree_event ev = {.kind = PAT_TREE_SEND, .round = 0, .peer = 0, .seg = 2};
  pat_schedule *s = NULL;
  (void)state;
  assert_int_equal(pat_schedule_alloc(&p, &s), PAT_SUCCESS);
  assert_int_equal(pat_tree_emit_segments(s, &p, 1, 2, &ev, 1),
                   PAT_ERR_INVALID_ARG);
  assert_int_equal(pat_tree_emit_segments(s, &p, 1, 0, &ev, 1),
                   PAT_ERR_INVALID_ARG);
  pat_schedule_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pipelined_trees_are_valid),
      cmocka_unit_test(one_segment_is_the_atomic_tree),
      cmocka_unit_test(pipeline_beats_atomic_tree_for_large_messages),
      cmocka_unit_test(bad_segment_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
