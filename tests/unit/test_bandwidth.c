/* Unit tests (no MPI run) of the bandwidth family ring, butterfly, radixk
 * and (commutative ops; its own file has the rest) pipeline: their
 * schedules validate (every root up to P = 32, to 64 for butterfly and
 * radixk, sampled roots above; every root of every P to 257 for ring and
 * commutative pipeline, by rotation; every root of butterfly, radixk and
 * non-commutative pipeline by brute force in the long_* tests, ctest label
 * long), the byte model's simulation
 * reproduces each header's cost formula, radix-k with radices 2 is
 * butterfly, and radix vectors are chosen or rejected as the README
 * says. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fnmatch */
#endif
#include <fnmatch.h>
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
#include "radixk/radixk.h"

static const pat_model curie = {2.6677e-6, 4.8179e-10, 1.6654e-10};

static const pat_reduce_alg family[] = {
    PAT_REDUCE_ALG_RING, PAT_REDUCE_ALG_BUTTERFLY, PAT_REDUCE_ALG_RADIXK};
enum { NFAMILY = sizeof family / sizeof family[0] };

/* rank's program alone, or every rank's for rank -1. */
static pat_schedule *build_rank(pat_reduce_alg alg, int P, int root, int count,
                                int comm, int in_place, int rank) {
  pat_sched_params p = {.nranks = P,
                        .root = root,
                        .count = count,
                        .commutative = comm,
                        .in_place = in_place,
                        .model = curie,
                        .elem_size = 8};
  pat_schedule *s = NULL;
  int err = pat_schedule_build(alg, &p, rank, &s);
  if (alg == PAT_REDUCE_ALG_RING && !comm) {
    /* the ring cannot keep rank order: its row sends these to butterfly */
    assert_int_equal(err, PAT_ERR_INVALID_ARG);
    pat_schedule_free(s);
    return NULL;
  }
  if (err != PAT_SUCCESS)
    fail_msg("%s P=%d root=%d count=%d comm=%d in_place=%d: build error %s",
             pat_reduce_algorithm_name(alg), P, root, count, comm, in_place,
             pat_strerror(err));
  return s;
}

static pat_schedule *build(pat_reduce_alg alg, int P, int root, int count,
                           int comm, int in_place) {
  return build_rank(alg, P, root, count, comm, in_place, -1);
}

static void expect_valid_one(pat_reduce_alg alg, int P, int root, int count,
                             int comm, int in_place) {
  char why[300];
  pat_schedule *s = build(alg, P, root, count, comm, in_place);
  if (s != NULL && pat_schedule_validate(s, why, sizeof why) != PAT_SUCCESS)
    fail_msg("%s P=%d root=%d count=%d comm=%d in_place=%d: %s",
             pat_reduce_algorithm_name(alg), P, root, count, comm, in_place,
             why);
  pat_schedule_free(s);
}

/* Commutative or not, in place or not. */
static void expect_valid(pat_reduce_alg alg, int P, int root, int count) {
  for (int variant = 0; variant < 4; variant++)
    expect_valid_one(alg, P, root, count, variant & 1, variant >> 1);
}

/* Validation costs O(ops): ring and radix-k with a prime radix have
 * O(P) operations per rank, so every root of every P to 257 would be
 * O(P^4) (a quarter of an hour for the ring).  Every root up to P = 32 (counts: one element,
 * fewer than P: empty blocks, uneven blocks); every root up to 64 for
 * butterfly and radixk; above, every P with the roots that matter: the
 * ends and the middle, and for butterfly the last folded and first
 * unfolded rank (q the power of two below P).  Every root of the ring
 * and of commutative pipeline: valid_rot_* below. */
static void valid_every_root_to_32(void **state) {
  (void)state;
  for (int a = 0; a < NFAMILY; a++)
    for (int P = 1; P <= 32; P++)
      for (int root = 0; root < P; root++) {
        expect_valid(family[a], P, root, 1);
        expect_valid(family[a], P, root, 3 * P + 1);
        if (P > 2)
          expect_valid(family[a], P, root, P - 2);
      }
}

static void valid_to_64(void **state) {
  (void)state;
  for (int P = 33; P <= 64; P++) {
    for (int root = 0; root < P; root++) {
      expect_valid(PAT_REDUCE_ALG_BUTTERFLY, P, root, 3 * P + 1);
      expect_valid(PAT_REDUCE_ALG_RADIXK, P, root, 3 * P + 1);
    }
    expect_valid(PAT_REDUCE_ALG_RING, P, 0, 3 * P + 1);
    expect_valid(PAT_REDUCE_ALG_RING, P, P / 2, P - 2);
  }
}

/* Above 64 the variants (commutative or not, in place or not) alternate
 * with P and the root, so each is seen at every size class. */
static void valid_sampled_roots_to_257(void **state) {
  (void)state;
  for (int P = 65; P <= 257; P++) {
    int q = 1 << (pat_ceil_log2(P + 1) - 1), fold = 2 * (P - q);
    int roots[6] = {P - 1, 0, P / 2, 1, fold - 1, fold};
    for (int i = 0; i < 6; i++)
      if (roots[i] >= 0 && roots[i] < P)
        expect_valid_one(PAT_REDUCE_ALG_BUTTERFLY, P, roots[i], 3 * P + 1,
                         (P + i) % 2, (P / 2 + i) % 2);
    expect_valid(PAT_REDUCE_ALG_RADIXK, P, P - 1, 3 * P + 1);
    if (P % 8 == 0)
      expect_valid(PAT_REDUCE_ALG_RADIXK, P, P / 2, 3 * P + 1);
    expect_valid_one(PAT_REDUCE_ALG_RING, P, P % 3 ? P - 1 : P / 2, 3 * P + 1,
                     1, P % 2);
  }
}

/* ---- every root by rotation (commutative ops) ------------------------ */

/* Validating every root of every P to 257 costs O(P^4) for the ring (P
 * roots of 3 P^2 operations each: over ten minutes) and minutes for pipeline,
 * butterfly and radixk.  For a commutative op a rotation does instead:
 *
 * Claim.  Let S' be S with rank i's program moved to rank
 * pi(i) = i + t (mod P), every peer p replaced by pi(p), the root by
 * pi(root), the other parameters unchanged.  For a commutative op
 * pat_schedule_validate accepts S' iff it accepts S.  Its passes
 * (src/core/validate.c): (1) the static checks look at a rank's own
 * operations, the peer's range and its difference from the rank, and the
 * rank only through "rank == root" (which slots it may use, in-place
 * aliasing): all kept by pi; (2) matching pairs the k-th send a -> b with
 * b's k-th receive from a: pairs map to pairs; (3) the abstract run: a
 * rank's dataflow (pat_deps_alloc) is a function of its program and of
 * whether it is an in-place root, the channels map to channels, so the
 * operations that ever start (a closure, whatever the worklist order)
 * map to each other; the accesses to one (rank, buffer, piece) are
 * ordered by the dataflow, so what each piece holds and whether it is
 * read before written, overwritten unread or given a rank twice does
 * not depend on the order either, and values, sets of ranks for a
 * commutative op, map by pi; (4) the root's result holds every rank once
 * iff its image does (pi is a bijection; the rank-order check, applied to
 * every op, passes trivially for a commutative one, whose values are
 * sorted disjoint runs: P ranks once each are [0, P) whatever the
 * labels).
 *
 * So if root 0's schedule validates and root r's is root 0's rotated by
 * t = r, root r's validates.  The test checks that for every root, every
 * rank's program, built alone as each rank builds it in a call, equals
 * the program of rank v = rank - root (mod P) in root 0's schedule (built
 * whole) with its peers p relabelled p + root (mod P), operation by
 * operation (root 0: each rank's program built alone is the whole
 * schedule's).  It holds for the ring (src/ring: v = rank - root
 * numbers everything; non-commutative ops are refused, the row needs
 * commutative ones) and for pipeline with a commutative op (one chain
 * over v); not for butterfly and radixk, whose fold pairs and digits are
 * fixed rank positions. */
static void expect_rotated(pat_reduce_alg alg, int P, int count, int in_place) {
  pat_schedule *z = build(alg, P, 0, count, 1, in_place);
  for (int root = 0; root < P; root++)
    for (int r = 0; r < P; r++) {
      pat_schedule *s = build_rank(alg, P, root, count, 1, in_place, r);
      int v = (r - root + P) % P, n = pat_schedule_nops(z, v);
      const pat_sched_op *a = pat_schedule_ops(s, r);
      const pat_sched_op *b = pat_schedule_ops(z, v);
      if (pat_schedule_nops(s, r) != n)
        fail_msg("%s P=%d count=%d in_place=%d: rank %d at root %d has %d "
                 "operations, rank %d at root 0 %d",
                 pat_reduce_algorithm_name(alg), P, count, in_place, r, root,
                 pat_schedule_nops(s, r), v, n);
      for (int i = 0; i < n; i++) {
        pat_sched_op o = b[i];
        if (o.kind == PAT_SCHED_SEND || o.kind == PAT_SCHED_RECV)
          o.peer = (o.peer + root) % P;
        if (o.kind != a[i].kind || o.round != a[i].round ||
            o.peer != a[i].peer || o.src != a[i].src || o.dst != a[i].dst ||
            o.offset != a[i].offset || o.count != a[i].count)
          fail_msg("%s P=%d count=%d in_place=%d: rank %d op %d at root %d "
                   "is not rank %d's at root 0 rotated",
                   pat_reduce_algorithm_name(alg), P, count, in_place, r, i,
                   root, v);
      }
      pat_schedule_free(s);
    }
  pat_schedule_free(z);
}

/* Root 0's schedule validates and every root's is its rotation, for P in
 * [lo, hi], in place and not; also with count P - 1 (an empty block) up
 * to P = 128, not in place (half the cost again at every P). */
static void rotations(pat_reduce_alg alg, int lo, int hi) {
  for (int P = lo; P <= hi; P++) {
    for (int in_place = 0; in_place < 2; in_place++) {
      expect_valid_one(alg, P, 0, 3 * P + 1, 1, in_place);
      expect_rotated(alg, P, 3 * P + 1, in_place);
    }
    if (P >= 2 && P <= 128) {
      expect_valid_one(alg, P, 0, P - 1, 1, 0);
      expect_rotated(alg, P, P - 1, 0);
    }
  }
}

/* The ring only serves commutative ops (its row needs them): build_rank
 * asserts that every non-commutative build is refused with
 * PAT_ERR_INVALID_ARG. */
static void ring_refuses_non_commutative(void) {
  for (int P = 1; P <= 257; P++)
    for (int root = 0; root < P; root++)
      for (int in_place = 0; in_place < 2; in_place++)
        build_rank(PAT_REDUCE_ALG_RING, P, root, 3 * P + 1, 0, in_place, root);
}

/* The rotation checks cost O(P^4) for the ring (P roots x P ranks x 3 P
 * operations), O(P^2 N) per P for pipeline's N segments: shards of about
 * equal cost, each its own ctest (tests/CMakeLists.txt). */
static void valid_rot_ring_a(void **state) {
  (void)state;
  ring_refuses_non_commutative();
  rotations(PAT_REDUCE_ALG_RING, 1, 181);
}
static void valid_rot_ring_b(void **state) {
  (void)state;
  rotations(PAT_REDUCE_ALG_RING, 182, 215);
}
static void valid_rot_ring_c(void **state) {
  (void)state;
  rotations(PAT_REDUCE_ALG_RING, 216, 238);
}
static void valid_rot_ring_d(void **state) {
  (void)state;
  rotations(PAT_REDUCE_ALG_RING, 239, 257);
}
static void valid_rot_pipeline_a(void **state) {
  (void)state;
  rotations(PAT_REDUCE_ALG_PIPELINE, 1, 209);
}
static void valid_rot_pipeline_b(void **state) {
  (void)state;
  rotations(PAT_REDUCE_ALG_PIPELINE, 210, 257);
}

/* ---- every root, by brute force (ctest label long) ------------------ */

/* What rotation cannot cover: butterfly and radixk (fold pairs and digits
 * are fixed rank positions) and pipeline with a non-commutative op, every
 * root of every P above the ranges the tests above cover whole, validated
 * one by one: about 20 minutes of CPU (Release), so these run with
 * `ctest -L long` (make test-long), not in make test. */
static void full_roots(pat_reduce_alg alg, int lo, int hi, int comm_too) {
  for (int P = lo; P <= hi; P++)
    for (int root = 0; root < P; root++) {
      if (comm_too) {
        expect_valid(alg, P, root, 3 * P + 1);
      } else {
        expect_valid_one(alg, P, root, 3 * P + 1, 0, 0);
        expect_valid_one(alg, P, root, 3 * P + 1, 0, 1);
      }
    }
}
static void long_butterfly_a(void **state) {
  (void)state;
  full_roots(PAT_REDUCE_ALG_BUTTERFLY, 65, 200, 1);
}
static void long_butterfly_b(void **state) {
  (void)state;
  full_roots(PAT_REDUCE_ALG_BUTTERFLY, 201, 240, 1);
}
static void long_butterfly_c(void **state) {
  (void)state;
  full_roots(PAT_REDUCE_ALG_BUTTERFLY, 241, 257, 1);
}
static void long_radixk_a(void **state) {
  (void)state;
  full_roots(PAT_REDUCE_ALG_RADIXK, 65, 200, 1);
}
static void long_radixk_b(void **state) {
  (void)state;
  full_roots(PAT_REDUCE_ALG_RADIXK, 201, 257, 1);
}
static void long_pipeline(void **state) {
  (void)state;
  full_roots(PAT_REDUCE_ALG_PIPELINE, 41, 257, 0);
}

/* ---- the cost formulas --------------------------------------------- */

static double simulate(pat_reduce_alg alg, int P, int root, int count) {
  double t = -1;
  pat_schedule *s = build(alg, P, root, count, 1, 0);
  assert_non_null(s);
  assert_int_equal(pat_schedule_simulate(s, NULL, NULL, &t), PAT_SUCCESS);
  pat_schedule_free(s);
  return t;
}

static void expect_close(double got, double want, const char *what, int P,
                         double bytes) {
  if (!(fabs(got - want) <= 1e-9 * want))
    fail_msg("%s P=%d m=%.0f B: simulated %.12g, formula %.12g", what, P,
             bytes, got, want);
}

/* ring: (P-1)(alpha + b (beta + gamma)) + ceil(log2 P) alpha + (P-1) b beta
 * for b = m / P bytes per block (P divides the count). */
static void ring_cost(void **state) {
  (void)state;
  const pat_model *c = &curie;
  for (int P = 2; P <= 64; P++)
    for (int per = 1; per <= 4096; per *= 64) {
      int count = P * per;
      double b = 8.0 * per;
      double f = (P - 1) * (c->alpha + b * (c->beta + c->gamma)) +
                 pat_ceil_log2(P) * c->alpha + (P - 1) * b * c->beta;
      expect_close(simulate(PAT_REDUCE_ALG_RING, P, P / 3, count), f, "ring",
                   P, 8.0 * count);
    }
}

/* butterfly: 2 log2 q alpha + 2 (q-1)/q m beta + (q-1)/q m gamma for P = q
 * a power of two.  Otherwise the fold adds about alpha + m (beta + gamma):
 * the root's last combine may overlap the gather when its partner was the
 * one delayed by the fold, saving up to (q-1)/q m gamma, and a receive the
 * executor posts a round ahead may overlap its latency with the message
 * before it, saving up to alpha; the folded survivor, behind the others,
 * may send a later round's piece while an earlier one still flows, both
 * sharing its send port, which costs up to the later pieces' bytes,
 * m/4 + m/8 + ... < m/2, at beta. */
static void butterfly_cost(void **state) {
  (void)state;
  const pat_model *c = &curie;
  for (int P = 2; P <= 130; P++)
    for (int per = 1; per <= 4096; per *= 64) {
      int q = 1 << (pat_ceil_log2(P + 1) - 1), count = q * per;
      double m = 8.0 * count, L = log2(q);
      double f = 2 * L * c->alpha + 2.0 * (q - 1) / q * m * c->beta +
                 (double)(q - 1) / q * m * c->gamma;
      for (int root = 0; root < P; root += P / 3 + 1) {
        double t = simulate(PAT_REDUCE_ALG_BUTTERFLY, P, root, count);
        if (q == P) {
          expect_close(t, f, "butterfly", P, m);
        } else {
          double fold = c->alpha + m * (c->beta + c->gamma);
          double lo = f + fold - (double)(q - 1) / q * m * c->gamma - c->alpha;
          double hi = f + fold + m / 2 * c->beta;
          if (!(t <= hi * (1 + 1e-9) && t >= lo * (1 - 1e-9)))
            fail_msg("butterfly P=%d root=%d m=%.0f: simulated %.12g, not "
                     "within [%.12g, %.12g]",
                     P, root, m, t, lo, hi);
        }
      }
    }
}

/* radixk: sum_i 2 alpha + 2 (k_i - 1) s_i beta + (k_i - 1) s_i gamma, s_i
 * the piece of round i (automatic radices; P = product, pieces exact): a
 * round's k_i - 1 messages share the ports and arrive together.  Exact
 * while a round's receives fit in distinct temporaries (k_i <= 5);
 * a larger (prime) radix reuses them, so a receive waits for the combine
 * that frees its temporary (and the other combines overlap it): at least
 * the formula with one combine per round, s_i gamma, and at most one
 * message after the other, sum_i 2 (k_i - 1)(alpha + s_i beta) +
 * (k_i - 1) s_i gamma. */
static void radixk_cost(void **state) {
  (void)state;
  const pat_model *c = &curie;
  for (int P = 2; P <= 128; P++) {
    pat_scatter_plan plan;
    pat_radixk_auto(P, 4, &plan);
    for (int per = 1; per <= 4096; per *= 64) {
      int count = P * per;
      double piece = 8.0 * count, f = 0, least = 0, serial = 0, t;
      int kmax = 0;
      for (int i = 0; i < plan.nradix; i++) {
        int k = plan.radix[i];
        piece /= k;
        f += 2 * c->alpha + 2 * (k - 1) * piece * c->beta +
             (k - 1) * piece * c->gamma;
        least += 2 * c->alpha + 2 * (k - 1) * piece * c->beta +
                 piece * c->gamma;
        serial += 2 * (k - 1) * (c->alpha + piece * c->beta) +
                  (k - 1) * piece * c->gamma;
        kmax = k > kmax ? k : kmax;
      }
      t = simulate(PAT_REDUCE_ALG_RADIXK, P, 0, count);
      if (kmax <= 5)
        expect_close(t, f, "radixk", P, 8.0 * count);
      else if (!(t >= least * (1 - 1e-9) && t <= serial * (1 + 1e-9)))
        fail_msg("radixk P=%d m=%.0f B: simulated %.12g, not within "
                 "[%.12g, %.12g]",
                 P, 8.0 * count, t, least, serial);
    }
  }
}

/* ---- radix vectors --------------------------------------------------- */

static const char *g_radixk;
static const char *fake_env(const char *name) {
  return strcmp(name, "PAT_REDUCE_RADIXK") == 0 ? g_radixk : NULL;
}

static pat_radixk_config parse_radixk(const char *value, int *error,
                                      char *why, size_t whylen) {
  pat_config cfg;
  pat_radixk_config out;
  g_radixk = value;
  pat_config_parse(&cfg, fake_env);
  *error = cfg.error;
  snprintf(why, whylen, "%s", cfg.why);
  memcpy(&out, pat_config_alg(&cfg, PAT_REDUCE_ALG_RADIXK), sizeof out);
  return out;
}

static void radixk_auto_multiplies_to_P(void **state) {
  (void)state;
  for (int P = 1; P <= 1024; P++) {
    pat_scatter_plan plan;
    long long prod = 1;
    pat_radixk_auto(P, 4, &plan);
    assert_int_equal(pat_scatter_check(&plan, P), PAT_SUCCESS);
    for (int i = 0; i < plan.nradix; i++) {
      int k = plan.radix[i], prime = 1;
      for (int f = 2; f * f <= k; f++)
        prime &= k % f != 0;
      /* merged radices stay <= 4; a larger one is a prime factor */
      assert_true(k >= 2 && (k <= 4 || prime));
      if (i > 0)
        assert_true(k <= plan.radix[i - 1]); /* largest first */
      prod *= k;
    }
    assert_int_equal(prod, P);
  }
}

static void radixk_vectors_parsed_or_rejected(void **state) {
  (void)state;
  const char *bad[] = {"1,4", "4,x", "4,,4", "4,", ",4", "0", "-2", "65536",
                       "4 4", "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,"
                       "2,2"};
  char why[600];
  int err;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    parse_radixk(bad[i], &err, why, sizeof why);
    assert_int_equal(err, PAT_ERR_BAD_ENV);
    if (strstr(why, "PAT_REDUCE_RADIXK") == NULL || strstr(why, bad[i]) == NULL)
      fail_msg("message for %s names neither variable nor value: %s", bad[i],
               why);
  }
  {
    pat_radixk_config cfg = parse_radixk("4,4,8", &err, why, sizeof why);
    pat_scatter_plan plan;
    assert_int_equal(err, PAT_SUCCESS);
    assert_int_equal(cfg.n, 3);
    assert_int_equal(pat_radixk_plan(&cfg, 128, &plan, why, sizeof why),
                     PAT_SUCCESS);
    assert_int_equal(plan.nradix, 3);
    assert_int_equal(plan.radix[2], 8);
    /* P = 6: the product does not match; the message names P's factors */
    assert_int_equal(pat_radixk_plan(&cfg, 6, &plan, why, sizeof why),
                     PAT_ERR_BAD_ENV);
    if (strstr(why, "PAT_REDUCE_RADIXK") == NULL ||
        strstr(why, "6 = 2 x 3") == NULL || strstr(why, "128") == NULL)
      fail_msg("mismatch message: %s", why);
  }
  parse_radixk("auto", &err, why, sizeof why);
  assert_int_equal(err, PAT_SUCCESS);
}

/* PAT_REDUCE_RADIXK=2,2,...,2 gives butterfly's schedule, op for op. */
static void radixk_binary_is_butterfly(void **state) {
  (void)state;
  for (int P = 2; P <= 256; P *= 2) {
    char vec[200] = "";
    for (int i = 0; i < pat_ceil_log2(P); i++)
      strcat(vec, i ? ",2" : "2");
    setenv("PAT_REDUCE_RADIXK", vec, 1);
    pat_reduce_config_reload();
    for (int v = 0; v < 4; v++)
      for (int root = 0; root < P; root += P > 8 ? P / 8 + 1 : 1) {
        pat_schedule *r =
            build(PAT_REDUCE_ALG_RADIXK, P, root, 5 * P + 3, v & 1, v >> 1);
        pat_schedule *b =
            build(PAT_REDUCE_ALG_BUTTERFLY, P, root, 5 * P + 3, v & 1, v >> 1);
        for (int rank = 0; rank < P; rank++) {
          assert_int_equal(pat_schedule_nops(r, rank),
                           pat_schedule_nops(b, rank));
          assert_memory_equal(pat_schedule_ops(r, rank),
                              pat_schedule_ops(b, rank),
                              (size_t)pat_schedule_nops(r, rank) *
                                  sizeof(pat_sched_op));
        }
        pat_schedule_free(r);
        pat_schedule_free(b);
      }
  }
  unsetenv("PAT_REDUCE_RADIXK");
  pat_reduce_config_reload();
}

/* Usage: test_bandwidth [PATTERN [SKIP...]]: only the tests whose names
 * match the shell pattern PATTERN, less those matching any SKIP (ctest
 * runs the validation, the long sweeps and the rest apart). */
int main(int argc, char **argv) {
  static const struct CMUnitTest all[] = {
      cmocka_unit_test(valid_every_root_to_32),
      cmocka_unit_test(valid_to_64),
      cmocka_unit_test(valid_sampled_roots_to_257),
      cmocka_unit_test(valid_rot_ring_a),
      cmocka_unit_test(valid_rot_ring_b),
      cmocka_unit_test(valid_rot_ring_c),
      cmocka_unit_test(valid_rot_ring_d),
      cmocka_unit_test(valid_rot_pipeline_a),
      cmocka_unit_test(valid_rot_pipeline_b),
      cmocka_unit_test(long_butterfly_a),
      cmocka_unit_test(long_butterfly_b),
      cmocka_unit_test(long_butterfly_c),
      cmocka_unit_test(long_radixk_a),
      cmocka_unit_test(long_radixk_b),
      cmocka_unit_test(long_pipeline),
      cmocka_unit_test(ring_cost),
      cmocka_unit_test(butterfly_cost),
      cmocka_unit_test(radixk_cost),
      cmocka_unit_test(radixk_auto_multiplies_to_P),
      cmocka_unit_test(radixk_vectors_parsed_or_rejected),
      cmocka_unit_test(radixk_binary_is_butterfly),
  };
  enum { NALL = sizeof all / sizeof all[0] };
  struct CMUnitTest tests[NALL];
  size_t n = 0;
  for (size_t i = 0; i < NALL; i++) {
    int keep = argc < 2 || fnmatch(argv[1], all[i].name, 0) == 0;
    for (int k = 2; k < argc && keep; k++)
      keep = fnmatch(argv[k], all[i].name, 0) != 0;
    if (keep)
      tests[n++] = all[i];
  }
  if (n == 0) {
    fprintf(stderr, "test_bandwidth: no test matches the arguments\n");
    return 1;
  }
  /* what cmocka_run_group_tests expands to, with the count kept */
  return _cmocka_run_group_tests("test_bandwidth", tests, n, NULL, NULL);
}
