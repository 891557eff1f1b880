/* Unit tests (no MPI run): the schedule validator rejects broken schedules,
 * and binomial schedules are valid trees for every P in 1..257 and every
 * root, commutative or not, in place or not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/pat_internal.h"
#include "handring.h"

static pat_schedule *binomial(int P, int root, int count, int comm,
                              int in_place) {
  pat_sched_params p = {.nranks = P,
                        .root = root,
                        .count = count,
                        .commutative = comm,
                        .in_place = in_place};
  pat_schedule *s = NULL;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, -1, &s),
                   PAT_SUCCESS);
  return s;
}

static void expect_valid(const pat_schedule *s) {
  char why[256];
  int err = pat_schedule_validate_tree(s, why, sizeof why);
  if (err != PAT_SUCCESS) {
    const pat_sched_params *p = pat_schedule_params(s);
    fail_msg("P=%d root=%d comm=%d in_place=%d: %s", p->nranks, p->root,
             p->commutative, p->in_place, why);
  }
}

static void expect_invalid(const pat_schedule *s, const char *reason) {
  char why[256];
  assert_int_equal(pat_schedule_validate(s, why, sizeof why),
                   PAT_ERR_INVALID_SCHEDULE);
  if (strstr(why, reason) == NULL)
    fail_msg("rejected for \"%s\", expected \"%s\"", why, reason);
}

/* Copies s with other params, letting edit drop (return 0), keep (1) or
 * keep and repeat (2) each operation, possibly changing it. */
typedef int (*edit_fn)(int rank, int index, pat_sched_op *op);

static pat_schedule *copy_edit(const pat_schedule *s,
                               const pat_sched_params *params, edit_fn edit) {
  pat_schedule *t = NULL;
  const pat_sched_params *p = params ? params : pat_schedule_params(s);
  assert_int_equal(pat_schedule_alloc(p, &t), PAT_SUCCESS);
  for (int r = 0; r < p->nranks; r++) {
    assert_int_equal(pat_schedule_mark_built(t, r), PAT_SUCCESS);
    for (int i = 0; i < pat_schedule_nops(s, r); i++) {
      pat_sched_op op = pat_schedule_ops(s, r)[i];
      int keep = edit ? edit(r, i, &op) : 1;
      for (int k = 0; k < keep; k++)
        assert_int_equal(pat_schedule_add(t, r, &op), PAT_SUCCESS);
    }
  }
  return t;
}

/* ---- binomial schedules ----------------------------------------------- */

static void check_binomial_shape(const pat_schedule *s) {
  const pat_sched_params *p = pat_schedule_params(s);
  int P = p->nranks, sends = 0, extra = !p->commutative && p->root != 0;
  int depth = pat_ceil_log2(p->root) > pat_ceil_log2(P - 1 - p->root)
                  ? pat_ceil_log2(p->root)
                  : pat_ceil_log2(P - 1 - p->root);
  for (int r = 0; r < P; r++) {
    int mine = 0;
    for (int i = 0; i < pat_schedule_nops(s, r); i++)
      mine += pat_schedule_ops(s, r)[i].kind == PAT_SCHED_SEND;
    /* every rank but the tree root sends once (plus rank 0's forward) */
    assert_int_equal(mine, r == p->root ? 0 : 1);
    sends += mine;
    assert_true(pat_schedule_nrounds(s, r) <=
                (P == 1 ? 1 : pat_ceil_log2(P) + extra));
    assert_true(pat_schedule_ntmp(s, r) <= 2);
  }
  assert_int_equal(sends, P - 1);
  /* root 0 or commutative: ceil(log2 P) rounds; else 1 + the deeper of
   * the trees left and right of the root */
  assert_int_equal(pat_schedule_nrounds(s, p->root),
                   P == 1  ? p->in_place ? 0 : 1
                   : extra ? 1 + depth
                           : pat_ceil_log2(P));
}

static void binomial_valid_for_every_size_and_root(void **state) {
  (void)state;
  for (int P = 1; P <= 257; P++) {
    for (int root = 0; root < P; root++) {
      for (int variant = 0; variant < 4; variant++) {
        /* several elements where it is cheap, one above */
        pat_schedule *s =
            binomial(P, root, P <= 64 ? 3 : 1, variant & 1, variant >> 1);
        expect_valid(s);
        check_binomial_shape(s);
        pat_schedule_free(s);
      }
    }
  }
}

/* For every row with a schedule: the schedule built for one rank is that
 * rank's program of the whole schedule, and holds nothing of the other
 * ranks (a call's schedule is O(its own operations), not O(P): issue 17). */
static void one_rank_schedule_equals_full_schedule(void **state) {
  static const int sizes[] = {1, 6, 13};
  double arrivals[13];
  (void)state;
  for (int i = 0; i < 13; i++)
    arrivals[i] = i == 4 ? 3e-5 : 1e-6 * (i % 3);
  for (int a = 0; a < PAT_REDUCE_ALG_COUNT; a++)
    for (int k = 0; k < 3; k++)
      for (int comm = 0; comm < 2 && pat_alg_table[a]->build != NULL; comm++) {
        pat_sched_params p = {.nranks = sizes[k],
                              .root = sizes[k] / 2,
                              .count = 7,
                              .commutative = comm,
                              .in_place = 1,
                              .model = {2.66e-6, 4.8e-10, 1.7e-10},
                              .elem_size = 8,
                              .arrivals = arrivals};
        pat_schedule *all = NULL;
        int err = pat_schedule_build((pat_reduce_alg)a, &p, -1, &all);
        for (int r = 0; r < p.nranks; r++) {
          pat_schedule *one = NULL;
          int other = (r + 1) % p.nranks;
          assert_int_equal(pat_schedule_build((pat_reduce_alg)a, &p, r, &one),
                           err);
          if (err != PAT_SUCCESS)
            continue;
          assert_true(pat_schedule_has_rank(one, r));
          assert_int_equal(pat_schedule_nops(one, r),
                           pat_schedule_nops(all, r));
          assert_memory_equal(
              pat_schedule_ops(one, r), pat_schedule_ops(all, r),
              (size_t)pat_schedule_nops(all, r) * sizeof(pat_sched_op));
          if (other != r) {
            assert_false(pat_schedule_has_rank(one, other));
            assert_null(pat_schedule_ops(one, other));
            assert_int_equal(pat_schedule_nops(one, other), 0);
          }
          pat_schedule_free(one);
        }
        pat_schedule_free(all);
      }
}

/* A binomial leaf's schedule holds the same bytes at P = 13 and 13000:
 * one program of one send, nothing per rank. */
static void one_rank_schedule_does_not_grow_with_p(void **state) {
  size_t bytes[2];
  (void)state;
  for (int k = 0; k < 2; k++) {
    pat_sched_params p = {.nranks = k ? 13000 : 13, .root = 0, .count = 7};
    pat_schedule *s = NULL;
    assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, 1, &s),
                     PAT_SUCCESS);
    assert_int_equal(pat_schedule_nops(s, 1), 1);
    bytes[k] = pat_schedule_footprint(s);
    pat_schedule_free(s);
  }
  assert_int_equal(bytes[0], bytes[1]);
}

static void build_rejects_bad_params(void **state) {
  pat_sched_params p = {.nranks = 4, .root = 4, .count = 1};
  pat_schedule *s = (pat_schedule *)&p;
  (void)state;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, -1, &s),
                   PAT_ERR_INVALID_ARG);
  assert_null(s);
  p.root = 0;
  p.count = -1;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, -1, &s),
                   PAT_ERR_INVALID_ARG);
  p.count = 1;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, 4, &s),
                   PAT_ERR_INVALID_ARG);
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_NATIVE, &p, -1, &s),
                   PAT_ERR_NOT_A_SCHEDULE);
  pat_schedule_free(NULL);
}

/* ---- the validator rejects broken schedules -------------------------- */

static int drop_root_recv(int rank, int i, pat_sched_op *op) {
  (void)i;
  return !(rank == 0 && op->kind == PAT_SCHED_RECV && op->round == 0);
}
static int send_to_wrong_peer(int rank, int i, pat_sched_op *op) {
  (void)i;
  if (rank == 1 && op->kind == PAT_SCHED_SEND)
    op->peer = 2;
  return 1;
}
static int rank1_twice(int rank, int i, pat_sched_op *op) {
  (void)i;
  /* rank 1 sends twice, the root receives both into one buffer at once */
  if (rank == 1 && op->kind == PAT_SCHED_SEND)
    return 2;
  if (rank == 0 && op->round == 0 && op->kind == PAT_SCHED_RECV)
    return 2;
  return 1;
}
static int write_send_buffer(int rank, int i, pat_sched_op *op) {
  (void)i;
  if (rank == 2 && op->kind == PAT_SCHED_COMBINE)
    op->dst = PAT_SLOT_SEND;
  return 1;
}
static int send_unwritten_tmp(int rank, int i, pat_sched_op *op) {
  (void)i;
  if (rank == 3 && op->kind == PAT_SCHED_SEND)
    op->src = PAT_SLOT_TMP0;
  return 1;
}
static int short_send(int rank, int i, pat_sched_op *op) {
  (void)i;
  if (rank == 1 && op->kind == PAT_SCHED_SEND)
    op->count--;
  return 1;
}
static int rounds_go_back(int rank, int i, pat_sched_op *op) {
  if (rank == 0 && i == 3) /* the combine of round 1 goes to round 0 */
    op->round = 0;
  return 1;
}
static int drop_copy(int rank, int i, pat_sched_op *op) {
  (void)rank;
  (void)i;
  return op->kind != PAT_SCHED_COPY;
}
static int recv_into_sent_slot(int rank, int i, pat_sched_op *op) {
  (void)i;
  /* rank 2 receives from 3 into the slot it sends from in the same round:
   * program order serializes them, so the schedule stays valid */
  if (rank == 2)
    op->round = 1;
  if (rank == 3 && op->kind == PAT_SCHED_SEND)
    op->round = 1;
  if (rank == 2 && op->kind == PAT_SCHED_RECV)
    op->dst = PAT_SLOT_TMP0;
  return 1;
}
static int nonroot_uses_recvbuf(int rank, int i, pat_sched_op *op) {
  (void)i;
  if (rank == 2 && op->kind == PAT_SCHED_RECV)
    op->dst = PAT_SLOT_RECV;
  return 1;
}
static int unknown_slot(int rank, int i, pat_sched_op *op) {
  (void)i;
  if (rank == 2 && op->kind == PAT_SCHED_RECV)
    op->dst = 99;
  return 1;
}

static void validator_rejects_broken_schedules(void **state) {
  struct {
    edit_fn edit;
    int P, root, comm, in_place;
    const char *reason;
  } cases[] = {
      {drop_root_recv, 4, 0, 1, 0, "no matching receive"},
      {send_to_wrong_peer, 4, 0, 1, 0, "no matching"},
      {rank1_twice, 4, 0, 1, 0,
       "overwrites slot 2 [0, 3) before anything "
       "read it"},
      {write_send_buffer, 4, 0, 1, 0, "cannot write slot"},
      {send_unwritten_tmp, 4, 0, 1, 0, "before it is written"},
      {short_send, 4, 0, 1, 0, "but rank 0 receives"},
      {rounds_go_back, 4, 0, 1, 0, "after round"},
      {drop_copy, 1, 0, 1, 0, "0 contributions"},
      {nonroot_uses_recvbuf, 4, 0, 1, 0, "cannot write slot"},
      {unknown_slot, 4, 0, 1, 0, "cannot write slot 99"},
  };
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pat_schedule *s = binomial(cases[i].P, cases[i].root, 3, cases[i].comm,
                               cases[i].in_place);
    pat_schedule *t = copy_edit(s, NULL, NULL);
    expect_valid(t); /* the unedited copy is valid */
    pat_schedule_free(t);
    t = copy_edit(s, NULL, cases[i].edit);
    expect_invalid(t, cases[i].reason);
    pat_schedule_free(t);
    pat_schedule_free(s);
  }
}

static void commutative_tree_is_wrong_for_noncommutative_op(void **state) {
  pat_schedule *s = binomial(6, 3, 2, 1, 0);
  pat_sched_params p = *pat_schedule_params(s);
  pat_schedule *t;
  (void)state;
  p.commutative = 0;
  t = copy_edit(s, &p, NULL);
  expect_invalid(t, "not rank order");
  pat_schedule_free(t);
  pat_schedule_free(s);
}

static void missing_program_is_rejected(void **state) {
  pat_sched_params p = {.nranks = 3, .root = 0, .count = 1, .commutative = 1};
  pat_schedule *s = NULL;
  (void)state;
  assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_BINOMIAL, &p, 1, &s),
                   PAT_SUCCESS);
  expect_invalid(s, "rank 0 has no program");
  pat_schedule_free(s);
}

/* A schedule that delivers the right data, but rank 1 receives after it
 * has sent: valid as a schedule, not as a tree. */
static void tree_check_catches_receive_after_send(void **state) {
  pat_sched_params p = {.nranks = 2, .root = 0, .count = 1, .commutative = 1};
  pat_sched_op ops0[] = {
      {PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_SEND, 1, 1, PAT_SLOT_SEND, -1, 0, 1},
      {PAT_SCHED_RECV, 2, 1, -1, PAT_SLOT_RECV, 0, 1},
  };
  pat_sched_op ops1[] = {
      {PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 0, 1},
      {PAT_SCHED_RECV, 1, 0, -1, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_COMBINE, 1, -1, PAT_SLOT_SEND, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_SEND, 2, 0, PAT_SLOT_TMP0, -1, 0, 1},
  };
  pat_schedule *s = NULL;
  char why[256];
  (void)state;
  assert_int_equal(pat_schedule_alloc(&p, &s), PAT_SUCCESS);
  for (size_t i = 0; i < 3; i++)
    assert_int_equal(pat_schedule_add(s, 0, &ops0[i]), PAT_SUCCESS);
  for (size_t i = 0; i < 4; i++)
    assert_int_equal(pat_schedule_add(s, 1, &ops1[i]), PAT_SUCCESS);
  assert_int_equal(pat_schedule_validate(s, why, sizeof why), PAT_SUCCESS);
  assert_int_equal(pat_schedule_validate_tree(s, why, sizeof why),
                   PAT_ERR_INVALID_SCHEDULE);
  assert_non_null(strstr(why, "rank 1 receives element 0 in round 1 after "
                              "sending it in round 0"));
  pat_schedule_free(s);
}

/* Rank 1's data reaches the root twice and rank 2's never: the right
 * number of contributions, the wrong ones. */
static void duplicate_contribution_is_rejected(void **state) {
  pat_sched_params p = {.nranks = 3, .root = 0, .count = 2, .commutative = 1};
  pat_sched_op ops0[] = {
      {PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 0, 2},
      {PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_SEND, PAT_SLOT_TMP0, 0, 2},
      {PAT_SCHED_RECV, 1, 1, -1, PAT_SLOT_RECV, 0, 2},
      {PAT_SCHED_COMBINE, 1, -1, PAT_SLOT_TMP0, PAT_SLOT_RECV, 0, 2},
  };
  pat_sched_op ops1[] = {
      {PAT_SCHED_SEND, 0, 0, PAT_SLOT_SEND, -1, 0, 2},
      {PAT_SCHED_SEND, 1, 0, PAT_SLOT_SEND, -1, 0, 2},
  };
  pat_schedule *s = NULL;
  (void)state;
  assert_int_equal(pat_schedule_alloc(&p, &s), PAT_SUCCESS);
  for (size_t i = 0; i < 4; i++)
    assert_int_equal(pat_schedule_add(s, 0, &ops0[i]), PAT_SUCCESS);
  for (size_t i = 0; i < 2; i++)
    assert_int_equal(pat_schedule_add(s, 1, &ops1[i]), PAT_SUCCESS);
  assert_int_equal(pat_schedule_mark_built(s, 2), PAT_SUCCESS);
  expect_invalid(s, "holds rank 1's data twice");
  pat_schedule_free(s);
}

/* Under program order, receiving into the range a rank sends in the same
 * round is serialized: the edited binomial schedule is still valid. */
static void program_order_serializes_receive_after_send(void **state) {
  pat_schedule *s = binomial(4, 0, 3, 1, 0);
  pat_schedule *t = copy_edit(s, NULL, recv_into_sent_slot);
  char why[256];
  (void)state;
  if (pat_schedule_validate(t, why, sizeof why) != PAT_SUCCESS)
    fail_msg("%s", why);
  pat_schedule_free(t);
  pat_schedule_free(s);
}

static pat_schedule *from_ops(const pat_sched_params *p, const int *nops,
                              const pat_sched_op *const *ops) {
  pat_schedule *s = NULL;
  assert_int_equal(pat_schedule_alloc(p, &s), PAT_SUCCESS);
  for (int r = 0; r < p->nranks; r++) {
    assert_int_equal(pat_schedule_mark_built(s, r), PAT_SUCCESS);
    for (int i = 0; i < nops[r]; i++)
      assert_int_equal(pat_schedule_add(s, r, &ops[r][i]), PAT_SUCCESS);
  }
  return s;
}

/* Both ranks send their temporary, then receive into it: each receive
 * waits for its own rank's send to finish, each send (rendezvous) for the
 * other rank's receive. */
static void rendezvous_cycle_is_a_deadlock(void **state) {
  pat_sched_params p = {.nranks = 2, .root = 0, .count = 1, .commutative = 1};
  pat_sched_op ops0[] = {
      {PAT_SCHED_COPY, 0, -1, PAT_SLOT_SEND, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_SEND, 0, 1, PAT_SLOT_TMP0, -1, 0, 1},
      {PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_SEND, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_COPY, 0, -1, PAT_SLOT_TMP0, PAT_SLOT_RECV, 0, 1},
  };
  pat_sched_op ops1[] = {
      {PAT_SCHED_COPY, 0, -1, PAT_SLOT_SEND, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_SEND, 0, 0, PAT_SLOT_TMP0, -1, 0, 1},
      {PAT_SCHED_RECV, 0, 0, -1, PAT_SLOT_TMP0, 0, 1},
  };
  const pat_sched_op *ops[] = {ops0, ops1};
  int nops[] = {5, 3};
  pat_schedule *s = from_ops(&p, nops, ops);
  (void)state;
  expect_invalid(s, "deadlock: rank 0 op 1 (round 0 send to 1) waits for "
                    "rank 1 op 2 (round 0 recv from 0), which waits for op 1 "
                    "(round 0 send to 0) to finish");
  pat_schedule_free(s);
}

/* Every rank receives before it sends on what it received: around a
 * ring of three ranks each receive waits for a send that waits for its
 * rank's receive.  (A cycle across rounds cannot happen: rounds never
 * decrease along a program and a message's two ends share a round.) */
static void receive_first_ring_is_a_deadlock(void **state) {
  pat_sched_params p = {.nranks = 3, .root = 0, .count = 2, .commutative = 1};
  pat_sched_op ops[3][4];
  const pat_sched_op *rows[3] = {ops[0], ops[1], ops[2]};
  int nops[] = {4, 3, 3};
  pat_schedule *s;
  (void)state;
  for (int r = 0; r < 3; r++) {
    ops[r][0] =
        (pat_sched_op){PAT_SCHED_RECV, 0, (r + 2) % 3, -1, PAT_SLOT_TMP0, 0, 2};
    ops[r][1] = (pat_sched_op){PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_SEND,
                               PAT_SLOT_TMP0,     0, 2};
    ops[r][2] =
        (pat_sched_op){PAT_SCHED_SEND, 0, (r + 1) % 3, PAT_SLOT_TMP0, -1, 0, 2};
  }
  ops[0][3] =
      (pat_sched_op){PAT_SCHED_COPY, 0, -1, PAT_SLOT_TMP0, PAT_SLOT_RECV, 0, 2};
  s = from_ops(&p, nops, rows);
  expect_invalid(s, "deadlock: rank 0 op 0 (round 0 recv from 2) waits for "
                    "rank 2 op 2 (round 0 send to 0), which waits for op 1 "
                    "(round 0 combine) to finish");
  pat_schedule_free(s);
}

/* ---- a ring reduce-scatter and a binomial gather, by hand ------------- */

static pat_schedule *ring(int P, int count, int broken) {
  pat_schedule *s = pat_handring_alloc(P, count, broken);
  assert_non_null(s);
  return s;
}

static void ring_with_uneven_blocks_is_valid(void **state) {
  pat_schedule *s = ring(5, 13, 0);
  char why[256];
  (void)state;
  assert_int_equal(pat_schedule_validate(s, why, sizeof why), PAT_SUCCESS);
  pat_schedule_free(s);
  for (int P = 1; P <= 33; P++) /* blocks of 0, 1 or 2 elements */
    for (int count = 0; count <= 2 * P + 1; count += P / 2 + 1) {
      s = ring(P, count, 0);
      if (pat_schedule_validate(s, why, sizeof why) != PAT_SUCCESS)
        fail_msg("ring P=%d count=%d: %s", P, count, why);
      pat_schedule_free(s);
    }
}

static void ring_combining_a_block_twice_is_rejected(void **state) {
  pat_schedule *s = ring(5, 13, 1);
  (void)state;
  expect_invalid(s, "rank 2 op 6 (round 1): slot 2 element 0 holds rank 2's "
                    "data twice");
  pat_schedule_free(s);
}

/* Count 1 and count 2^30 give the same verdicts (and take the same
 * time: the validator works on ranges). */
static void verdict_does_not_depend_on_count(void **state) {
  edit_fn edits[] = {NULL,       rank1_twice,    send_unwritten_tmp,
                     short_send, drop_root_recv, write_send_buffer};
  (void)state;
  for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
    char why1[256], why2[256];
    int err1, err2;
    pat_schedule *s = binomial(64, 0, 1, 1, 0), *t;
    pat_sched_params p = *pat_schedule_params(s);
    t = copy_edit(s, NULL, edits[e]);
    err1 = pat_schedule_validate(t, why1, sizeof why1);
    pat_schedule_free(t);
    pat_schedule_free(s);
    s = binomial(64, 0, 1 << 30, 1, 0);
    p = *pat_schedule_params(s);
    t = copy_edit(s, &p, edits[e]);
    err2 = pat_schedule_validate(t, why2, sizeof why2);
    if (err1 != err2 || (err1 == PAT_SUCCESS) != (e == 0))
      fail_msg("edit %d: \"%s\" vs \"%s\"", (int)e, why1, why2);
    /* the messages differ at most in ranges: compare what precedes them */
    if (strncmp(why1, why2, strcspn(why1, "[")) != 0)
      fail_msg("\"%s\" vs \"%s\"", why1, why2);
    pat_schedule_free(t);
    pat_schedule_free(s);
  }
}

static void dump_lists_every_operation(void **state) {
  pat_schedule *s = binomial(5, 2, 4, 0, 1);
  char *text = NULL;
  size_t len = 0;
  int lines = 0, ops = 0;
  FILE *f = open_memstream(&text, &len);
  (void)state;
  assert_int_equal(pat_schedule_dump(s, f), PAT_SUCCESS);
  fclose(f);
  for (size_t i = 0; i < len; i++)
    lines += text[i] == '\n';
  for (int r = 0; r < 5; r++)
    ops += pat_schedule_nops(s, r);
  assert_int_equal(lines, 1 + 5 + ops); /* header, rank lines, ops */
  assert_non_null(strstr(text, "rank 0 -> tmp1 [0, 4)"));
  assert_non_null(strstr(text, "tmp0 -> recvbuf [0, 4)"));
  free(text);
  pat_schedule_free(s);
}

static int in_order(const pat_sched_op *ops, int n) {
  pat_deps *d = NULL;
  int flag;
  assert_int_equal(pat_deps_alloc(ops, n, 0, &d), PAT_SUCCESS);
  flag = d->in_order;
  pat_deps_free(d);
  return flag;
}

/* The executor runs a program op by op, with blocking transfers, when it
 * is a tree node's: receives, then at most one send, no round with two
 * transfers (pat_deps.in_order; exec.c proves that safe from the
 * validator's round gate): every commutative binomial program, for every
 * P, root and rank, qualifies, and the non-commutative ones for root 0;
 * the rendezvous cycle above (a send and a receive in one round), a
 * ring's step, rounds that decrease, a chain's middle rank on two
 * segments (sends and receives alternate: the dataflow overlaps them), and
 * the root of a non-commutative tree for another root (two halves in one
 * round) do not. */
static void in_order_is_one_transfer_per_round(void **state) {
  const pat_sched_op send_recv[] = {
      {PAT_SCHED_SEND, 0, 1, PAT_SLOT_SEND, -1, 0, 1},
      {PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 0, 1}};
  const pat_sched_op tree[] = {
      {PAT_SCHED_RECV, 0, 1, -1, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_SEND, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_RECV, 1, 2, -1, PAT_SLOT_TMP0 + 1, 0, 1},
      {PAT_SCHED_COMBINE, 1, -1, PAT_SLOT_TMP0 + 1, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_SEND, 2, 3, PAT_SLOT_TMP0, -1, 0, 1}};
  const pat_sched_op decreasing[] = {
      {PAT_SCHED_RECV, 1, 1, -1, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_SEND, 0, 2, PAT_SLOT_TMP0, -1, 0, 1}};
  /* a chain's middle rank on two segments, one transfer per round */
  const pat_sched_op chain[] = {
      {PAT_SCHED_RECV, 0, 2, -1, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_COMBINE, 0, -1, PAT_SLOT_SEND, PAT_SLOT_TMP0, 0, 1},
      {PAT_SCHED_SEND, 1, 0, PAT_SLOT_TMP0, -1, 0, 1},
      {PAT_SCHED_RECV, 2, 2, -1, PAT_SLOT_TMP0, 1, 1},
      {PAT_SCHED_COMBINE, 2, -1, PAT_SLOT_SEND, PAT_SLOT_TMP0, 1, 1},
      {PAT_SCHED_SEND, 3, 0, PAT_SLOT_TMP0, -1, 1, 1}};
  (void)state;
  assert_int_equal(in_order(send_recv, 2), 0);
  assert_int_equal(in_order(tree, 5), 1);
  assert_int_equal(in_order(tree, 0), 1);
  assert_int_equal(in_order(decreasing, 2), 0);
  assert_int_equal(in_order(chain, 6), 0);
  assert_int_equal(in_order(chain, 3), 1); /* one segment: a tree node */
  for (int P = 1; P <= 33; P++)
    for (int root = 0; root < P; root++)
      for (int comm = 0; comm < 2; comm++) {
        /* the in-order tree for root > 0 may receive two parts in one
         * round at the root (below) */
        pat_schedule *s = binomial(P, root, 4, comm, 0);
        for (int r = 0; r < P; r++)
          if ((comm || root == 0 || r != root) &&
              !in_order(pat_schedule_ops(s, r), pat_schedule_nops(s, r)))
            fail_msg("binomial P=%d root=%d comm=%d rank %d: not in order", P,
                     root, comm, r);
        pat_schedule_free(s);
      }
  {
    pat_schedule *s = binomial(4, 2, 4, 0, 0);
    assert_int_equal(in_order(pat_schedule_ops(s, 2), pat_schedule_nops(s, 2)),
                     0);
    pat_schedule_free(s);
  }
  {
    pat_sched_params p = {
        .nranks = 5, .root = 0, .count = 10, .commutative = 1};
    pat_schedule *s = NULL;
    assert_int_equal(pat_schedule_build(PAT_REDUCE_ALG_RING, &p, -1, &s),
                     PAT_SUCCESS);
    for (int r = 0; r < 5; r++)
      assert_int_equal(
          in_order(pat_schedule_ops(s, r), pat_schedule_nops(s, r)), 0);
    pat_schedule_free(s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(binomial_valid_for_every_size_and_root),
      cmocka_unit_test(one_rank_schedule_equals_full_schedule),
      cmocka_unit_test(one_rank_schedule_does_not_grow_with_p),
      cmocka_unit_test(build_rejects_bad_params),
      cmocka_unit_test(validator_rejects_broken_schedules),
      cmocka_unit_test(commutative_tree_is_wrong_for_noncommutative_op),
      cmocka_unit_test(missing_program_is_rejected),
      cmocka_unit_test(tree_check_catches_receive_after_send),
      cmocka_unit_test(duplicate_contribution_is_rejected),
      cmocka_unit_test(program_order_serializes_receive_after_send),
      cmocka_unit_test(rendezvous_cycle_is_a_deadlock),
      cmocka_unit_test(receive_first_ring_is_a_deadlock),
      cmocka_unit_test(ring_with_uneven_blocks_is_valid),
      cmocka_unit_test(ring_combining_a_block_twice_is_rejected),
      cmocka_unit_test(verdict_does_not_depend_on_count),
      cmocka_unit_test(dump_lists_every_operation),
      cmocka_unit_test(in_order_is_one_transfer_per_round),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
