/*
 * The PAT layer and the clairvoyant algorithm under real MPI.
 *
 * test_patlayer clock: every rank skews its clock by a known amount (a
 *   debug hook); the ping-pong estimator must recover it within half the
 *   least round trip.
 * test_patlayer hash [ALG]: 500 back-to-back calls of ALG (default
 *   clairvoyant; auto too), no barrier, random real sleeps with a
 *   persistently late rank: every rank must choose the same row and build
 *   the same schedule in every call (the row and the hash of the tree are
 *   compared with an allreduce) and every result must be right.
 * test_patlayer execute: schedules built through the advanced API
 *   (pat_schedule_build with explicit arrival times, validated, run with
 *   pat_schedule_execute), in place at the root or not; a program with an
 *   element range outside the buffer is refused, not run.
 * test_patlayer exchange: after the first call every rank's clock is
 *   skewed by rank seconds, so its stamps say it arrives rank s late; with
 *   PAT_REDUCE_PREDICTOR=last the clairvoyant tree of every later call
 *   must be planned for those arrivals (each rank's stamp reached every
 *   rank, in its place, through the stamp exchange's rounds), within
 *   0.4 s (a misplaced stamp is off by 1 s or more; ranks oversubscribed
 *   on 2 cores arrive up to tens of ms apart), for any P, lag and interval.
 * test_patlayer wrong: predictions that are badly wrong (the late rank
 *   moves every call; the oracle is told the opposite of the truth) still
 *   give right results, for commutative and non-commutative ops.
 * test_patlayer quiet: the layer driven call by call as the dispatcher
 *   does, 8 B and 64 KiB calls by turns, each size with a pace of its own
 *   that changes (stretched, a call asked for at once):
 *   where pat_state_quiet says a call needs nothing, the calls up to
 *   pat_state_quiet_through are skipped (pat_state_skip) and each must
 *   be quiet, the one after not, and its own size's pace (counting that
 *   size's calls) must not exchange it; a quiet call that arrives all the
 *   same must start no exchange and sample as it would have skipped;
 *   every 64th call of each size (an exchange at the paces it sets,
 *   which stretch to 8) must have arrived, and the call before it, of
 *   the same size, sampled (quiet or not).  The ranks run free, so
 *   their stamps are the node's scheduling noise, which cycle:5 may take
 *   for a cycle (a call that follows one is never quiet: 1488 of 3000
 *   skipped in a CI run, 1815 with sma:5): the ctest sets sma:5.
 * test_patlayer quiet_cycle: every 5th call exchanged, its last rank
 *   1 s late on every other one (the clock skew hook, a barrier before
 *   each call), quiet calls skipped one by one: some calls are quiet
 *   before the default predictor sees the cycle (at call 28: the 6th
 *   exchanged call, 25, observed a lag of 2 later; 40 at most), and none
 *   once it follows it (the predictions differ from call to call).
 * test_patlayer idle: the layer driven call by call, every call exchanged;
 *   first rank r sleeps 2 ms (even r) or 4 ms (odd r) between its
 *   departure and its next arrival, and 5 ms within each call, then the
 *   calls come back to back, no MPI call between them but the layer's
 *   own: an observed call's median idle time (pat_state_idle_nth: the
 *   layer's own work left out) must be 3 ms at least in the first part
 *   (P = 4: the median of 2, 2, 4 and 4) and, back to back, the ranks'
 *   median of the time the test measures between the calls (within 5 us,
 *   by the median over the calls), the same on every rank, with a clock
 *   refresh at every call too (its ping-pong is the layer's work); each
 *   realized time (exits
 *   carried as offsets from each rank's stamp) must be the latest exit
 *   less the earliest arrival (each exit read just before and after the
 *   departure that stamps it); each rank's exit-to-exit interval
 *   (pat_state_intervals_nth) the same on every rank and, while the ranks
 *   sleep, at least its sleep before the call plus the 5 ms within it and
 *   at most the time from its previous call's end to this one's exit.
 * test_patlayer idle_paced: the same at the automatic pace, quiet calls
 *   skipped, then stretched past PAT_EXCHANGE_MAX_EVERY (see there).
 * test_patlayer pace: the layer driven call by call with five sizes,
 *   each paced as auto would pace its size class (pat_state_pace), the
 *   intervals counted in the size's own calls: 8 B stretched to every
 *   64th, one 64 KiB call in 100 at every call, one of 256 KiB stretched
 *   to every 8th; a 1 MiB call after 8 B ones and a 4 KiB call after the
 *   256 KiB one, both sizes never paced, at the last stretch set on their
 *   own automatic interval (8 and 64); every call must exchange exactly
 *   where its size's pace says (a pace counted in all calls, or a size
 *   never paced held to the paced interval of the last size, fail), and
 *   the idle time before each observed 64 KiB call must be known.
 * test_patlayer pace_cap: 8 B calls paced past the longest interval a
 *   pace may set (a stretch of 4096 on their automatic every 8th: every
 *   32768th) exchange at every PAT_EXCHANGE_MAX_PACED-th of their calls
 *   (16384: auto's pace back to back), at those calls and no others.
 * test_patlayer named: auto's 8 B calls back to back, the root in place
 *   every other call, with clairvoyant and binomial calls by name of the
 *   same size between and a 64 KiB auto call every 29th: right sums, the
 *   same last observed call on every rank, and no hang (an exchange
 *   started on some ranks only).
 * test_patlayer cycle: stamps that flip between two late ranks call by
 *   call (the clock skew hook again, every call exchanged, a barrier
 *   before each so that the stamps differ by the skews only): with the
 *   default predictor the clairvoyant tree of every call from the
 *   flip's 7th observed call on (a lag later) is planned for its own
 *   call's late rank.
 * test_patlayer mixed: auto serves one call of 64 KiB in 128, binomial
 *   the 127 of 8 B between (as a rules file's lines would), a barrier before
 *   each: auto must hear its own calls' exchanges, which the 8 B calls'
 *   push out of the layer's last PAT_OBSERVED_KEPT before auto's next
 *   call, so it must finish measuring the rows (settle) and stretch the
 *   exchange's pace (in most rounds from a few after it settled at most
 *   one call in 32 exchanged, where every 8th was before auto heard them).
 *   Every sum is checked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "auto/auto.h"
#include "core/pat_internal.h"
#include "pat/pat_layer.h"
#include "reduce/pat_pat.h"
#include "reduce/pat_reduce.h"
#include "reduce/pat_schedule.h"

static int rank, size, checks, failures;
static pat_reduce_alg g_alg = PAT_REDUCE_ALG_CLAIRVOYANT;

static void check(int ok, const char *fmt, int call) {
  checks++;
  if (!ok) {
    failures++;
    if (failures < 20) {
      fprintf(stderr, "test_patlayer: rank %d: FAILED: ", rank);
      fprintf(stderr, fmt, call);
      fputc('\n', stderr);
    }
  }
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  if (us > 0)
    nanosleep(&ts, NULL);
}

static void test_clock(void) {
  /* Clocks differ already (Open MPI's MPI_Wtime counts from each process's
   * MPI_Init): estimate that offset, then skew rank r's clock by r * 0.3 s
   * + 1 ms and estimate again; the difference must be the skew, within
   * half the least round trips of both estimates. */
  double skew = rank * 0.3 + (rank ? 1e-3 : 0);
  double natural = 0, b0 = -1, offset = 0, b1 = -1, err;
  check(pat_clock_estimate_offset(MPI_COMM_WORLD, 20, &natural, &b0) ==
            MPI_SUCCESS,
        "estimate returned an error (%d)", 0);
  pat_clock_debug_skew(skew);
  check(pat_clock_estimate_offset(MPI_COMM_WORLD, 20, &offset, &b1) ==
            MPI_SUCCESS,
        "estimate returned an error (%d)", 1);
  err = offset - natural + skew;
  if (fabs(err) > b0 + b1 + 1e-6 || b0 + b1 > 0.05)
    fprintf(stderr,
            "test_patlayer: rank %d: skew %.6f s, offsets %.6f s -> "
            "%.6f s, bounds %.6f s + %.6f s\n",
            rank, skew, natural, offset, b0, b1);
  check(fabs(err) <= b0 + b1 + 1e-6,
        "skew not recovered within the round-trip bounds (%d)", 0);
  check(b0 >= 0 && b1 >= 0 && b0 + b1 < 0.05, "round-trip bounds >= 50 ms (%d)",
        0);
  pat_clock_debug_skew(0);
}

/* Reduces rank + 1 + call (SUM) with g_alg and checks it; returns the
 * hash of the row that served it and of its tree. */
static unsigned long long one_call(int call, int count, int root) {
  static long in[64], out[64];
  const pat_schedule *s = NULL;
  pat_reduce_alg served = PAT_REDUCE_ALG_COUNT;
  long want = (long)size * (size + 1) / 2 + (long)size * call;
  for (int i = 0; i < count; i++)
    in[i] = rank + 1 + call + i;
  check(pat_reduce_using(g_alg, in, out, count, MPI_LONG, MPI_SUM, root,
                         MPI_COMM_WORLD) == MPI_SUCCESS,
        "call %d returned an error", call);
  if (rank == root)
    for (int i = 0; i < count; i++)
      check(out[i] == want + (long)size * i, "call %d: wrong sum", call);
  pat_reduce_last_algorithm(MPI_COMM_WORLD, &served);
  pat_reduce_last_schedule(MPI_COMM_WORLD, &s);
  return pat_schedule_hash(s) ^ (unsigned long long)served << 56;
}

static void test_hash(void) {
  unsigned int seed = 1234u + 77u * (unsigned)rank;
  int differ = 0, shapes = 0;
  unsigned long long prev = 0;
  for (int call = 0; call < 500; call++) {
    unsigned long long h, lo, hi;
    /* a rank is late by ~1 ms, another every 50 calls (so the predicted
     * tree changes between the root's changes, not only with the jitter
     * of up to 200 us everybody has) */
    long us = rand_r(&seed) % 200 + (rank == (call / 50) % size ? 1000 : 0);
    sleep_us(us);
    /* the root changes every 100 calls, the count every call */
    h = one_call(call, 1 + call % 7, (call / 100) % size);
    MPI_Allreduce(&h, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    differ += lo != hi;
    shapes += call % 100 != 0 && h != prev; /* changed by the prediction */
    prev = h;
  }
  check(differ == 0, "schedule hashes differed between ranks (%d calls)",
        differ);
  /* the predictions changed the tree along the way */
  if (rank == 0)
    printf("test_patlayer hash: the predicted tree changed %d times in "
           "500 calls\n",
           shapes);
  check(size < 3 || shapes > 1 || g_alg != PAT_REDUCE_ALG_CLAIRVOYANT,
        "the tree never changed (%d)", shapes);
}

static void test_exchange(void) {
  /* the ctest sets PAT_REDUCE_ROUND_COST=1ms: the model {1 ms, 0, 0} */
  const pat_model m = {1e-3, 0, 0};
  int lag = pat_exchange_lag(&m, 2 * sizeof(long), size),
      every = pat_exchange_interval(&m, 2 * sizeof(long), size);
  /* the first call sets the clocks up (offsets to rank 0) */
  one_call(0, 1, 0);
  pat_clock_debug_skew(rank * 1.0);
  for (int call = 1; call < 3 * (lag + every) + 4; call++) {
    const pat_schedule *s = NULL;
    const double *arr;
    double worst = 0;
    one_call(call, 2, call % size);
    pat_reduce_last_schedule(MPI_COMM_WORLD, &s);
    arr = s ? pat_schedule_params(s)->arrivals : NULL;
    /* the stamps of call 1 are observed in the first call c >= 1 + lag
     * after an exchange started: by call 1 + lag + every at the latest */
    if (call < 1 + lag + every)
      continue;
    check(arr != NULL, "call %d: no predicted arrivals", call);
    for (int r = 0; arr != NULL && r < size; r++)
      worst = fmax(worst, fabs(arr[r] - arr[0] - r));
    if (worst > 0.4 && rank == 0)
      fprintf(stderr,
              "test_patlayer exchange: call %d: predicted arrival "
              "off by %.3f s\n",
              call, worst);
    check(worst <= 0.4, "call %d: a rank's stamp is not in its place", call);
  }
  pat_clock_debug_skew(0);
}

/* Stamps that flip: on even calls the last rank's clock runs 1 s ahead
 * (its stamp says it came 1 s late), on odd calls rank 0's.  With the
 * default predictor (cycle:5) every clairvoyant call from a few exchanges
 * on must be planned for its own call's late rank, from the calls of its
 * parity (sma:5 predicts both ranks half late: each off by 0.5 s; with
 * PAT_REDUCE_PREDICTOR set, no call may be planned right). */
static void test_cycle(void) {
  /* the ctests set PAT_REDUCE_ROUND_COST=1ms: the model {1 ms, 0, 0} */
  const pat_model m = {1e-3, 0, 0};
  int lag = pat_exchange_lag(&m, 2 * sizeof(long), size), right = 0, from = 1,
      right_both = 0;
  one_call(0, 1, 0); /* the clocks set up (offsets to rank 0) */
  for (int call = 1; call < 40; call++) {
    const pat_schedule *s = NULL;
    const double *arr;
    int late = call % 2 ? 0 : size - 1;
    double worst = 0;
    pat_clock_debug_skew(rank == late ? 1.0 : 0.0);
    /* the stamps differ by the skews only: back to back the ranks run
     * apart by up to the exchange's lag in calls, which under ASan on a
     * loaded node reached the 0.2 s tolerance (CI's ASan pass, 1 call) */
    MPI_Barrier(MPI_COMM_WORLD);
    one_call(call, 2, 0);
    pat_reduce_last_schedule(MPI_COMM_WORLD, &s);
    arr = s ? pat_schedule_params(s)->arrivals : NULL;
    check(arr != NULL, "call %d: no predicted arrivals", call);
    for (int r = 0; arr != NULL && r < size; r++)
      worst = fmax(worst, fabs(arr[r] - (r == late ? 1.0 : 0.0)));
    if (worst > 0.2) /* right from the call after on, so far */
      from = call + 1;
    if (worst > 0.2 && rank == 0)
      fprintf(stderr,
              "test_patlayer cycle: call %d: predicted arrival off by "
              "%.3f s\n",
              call, worst);
    right += worst <= 0.2;
    /* once both phases are observed (calls 1 and 2, lag calls later) */
    right_both += worst <= 0.2 && call >= 2 + lag;
  }
  pat_clock_debug_skew(0);
  if (rank == 0)
    printf("test_patlayer cycle: the late rank predicted from call %d on, "
           "%d of 39 calls\n",
           from, right);
  if (getenv("PAT_REDUCE_PREDICTOR") != NULL) {
    /* sma:5: never right once it has seen both phases (before, the one
     * phase seen is right for the calls of its parity: with an even lag,
     * the call it is first used in) */
    check(right_both == 0, "sma planned %d calls for the late rank",
          right_both);
    return;
  }
  /* the flip shows in the predictor from its 7th observed call (3 scores
   * of a cycle of 2 after 4 patterns), which the next calls see lag later;
   * and every call after it is planned for its own late rank (an early
   * call may be right by chance: the one pattern seen names its rank) */
  check(from <= 8 + lag, "the cycle seen only at call %d", from);
}

/* A duplicate of MPI_COMM_WORLD into *comm and its PAT layer (NULL, a
 * failed check, if it has none). */
static pat_state *layer_of(MPI_Comm *comm) {
  pat_comm_state *st = NULL;
  pat_state *ps = NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, comm);
  check(pat_comm_state_get(*comm, &st) == MPI_SUCCESS &&
            pat_comm_state_pat(st, &ps) == MPI_SUCCESS,
        "call %d: no PAT layer", 0);
  return ps;
}

/* test_quiet's size of call k: 8 B and 64 KiB by turns, 250 calls each,
 * and the index of call k among the calls of its size (the layer paces
 * each size's own calls). */
static double quiet_size(long k) { return (k / 250) % 2 ? 65536 : 8; }
static long quiet_own(long k) { return k / 500 * 250 + k % 250; }

static void test_quiet(void) {
  /* the ctest sets PAT_REDUCE_ROUND_COST=1us (every size: an exchange
   * every 8th call, paced) and PAT_REDUCE_CLOCK_REFRESH */
  enum { CALLS = 3000 };
  static char arrived[CALLS + 1], sampled[CALLS + 1];
  int stretch = 1, skipped = 0, paced[2] = {1, 1}; /* 8 B's, 64 KiB's */
  long soon = -1;
  MPI_Comm comm;
  pat_state *ps;
  ps = layer_of(&comm);
  while (ps != NULL && pat_state_calls(ps) < CALLS) {
    long k = pat_state_calls(ps), through;
    double stamp, bytes = quiet_size(k);
    if (!pat_state_quiet(ps, bytes)) {
      arrived[k] = 1;
      check(pat_state_arrive(ps, bytes, &stamp) == MPI_SUCCESS,
            "call %d: arrive failed", (int)k);
      sampled[k] = (char)pat_state_sampling(ps);
      check(pat_state_depart(ps, bytes) == MPI_SUCCESS,
            "call %d: depart failed", (int)k);
      /* a pace as auto's, each size its own: stretched by turns, a call
       * asked for at once */
      stretch = bytes == 8 ? (k % 700 < 350 ? 1 << (k / 100 % 4) : 1)
                           : (k % 600 < 300 ? 1 << ((k / 100 + 2) % 4) : 1);
      soon = k % 97 == 0 ? k + 5 : soon;
      pat_state_pace(ps, bytes, stretch, soon);
      paced[bytes != 8] = stretch;
      continue;
    }
    /* now and then a quiet call arrives after all: it must start no
     * exchange, and sample as it would have skipped */
    if (k % 13 == 0) {
      int would = pat_state_sampling(ps);
      arrived[k] = 1;
      check(pat_state_arrive(ps, bytes, &stamp) == MPI_SUCCESS &&
                !pat_state_exchanging(ps) && pat_state_sampling(ps) == would,
            "call %d: quiet, but it exchanged or sampled otherwise", (int)k);
      sampled[k] = (char)pat_state_sampling(ps);
      check(pat_state_depart(ps, bytes) == MPI_SUCCESS,
            "call %d: depart failed", (int)k);
      continue;
    }
    through = pat_state_quiet_through(ps, bytes);
    check(through >= k, "call %d: quiet, but through before it", (int)k);
    /* (a call of another size is not the same call: the dispatcher asks
     * again) */
    for (long j = k; j <= through && j < CALLS && quiet_size(j) == bytes; j++) {
      check(pat_state_quiet(ps, bytes), "call %d: not quiet within through",
            (int)j);
      /* and its own size's pace does not exchange it */
      check(quiet_own(j) % (PAT_EXCHANGE_SMALL_EVERY * paced[bytes != 8]) !=
                    0 &&
                j != soon,
            "call %d: quiet, but its size's pace exchanges it", (int)j);
      sampled[j] = (char)pat_state_sampling(ps);
      pat_state_skip(ps);
      skipped++;
    }
    if (through < CALLS && quiet_size(through + 1) == bytes)
      check(!pat_state_quiet(ps, bytes), "call %d: quiet after through",
            (int)through + 1);
  }
  /* every paced interval divides PAT_EXCHANGE_MAX_EVERY: those calls of
   * each size exchange, and the call before, of the same size, samples */
  for (int k = 1; k < CALLS; k++)
    if (quiet_own(k) % PAT_EXCHANGE_MAX_EVERY == 0 && k % 250 != 0)
      check(arrived[k] && sampled[k - 1],
            "call %d: an exchange skipped, or the call before did not sample",
            k);
  if (rank == 0)
    printf("test_patlayer quiet: %d of %d calls skipped\n", skipped, CALLS);
  check(skipped > CALLS / 2, "%d: too few calls skipped", skipped);
  MPI_Comm_free(&comm);
}

static void test_quiet_cycle(void) {
  /* the ctest sets PAT_REDUCE_EXCHANGE_INTERVAL=5 (odd: a flip of the
   * exchanged calls is a cycle of 2 calls) and PAT_REDUCE_ROUND_COST */
  enum { CALLS = 150, EVERY = 5 };
  int quiet = 0, quiet_in_cycle = 0;
  long seen = -1;
  MPI_Comm comm;
  pat_state *ps = layer_of(&comm);
  while (ps != NULL && pat_state_calls(ps) < CALLS) {
    long k = pat_state_calls(ps);
    int cycle = pat_state_cycle(ps);
    double stamp;
    pat_clock_debug_skew(rank == size - 1 && k / EVERY % 2 ? 1.0 : 0.0);
    MPI_Barrier(comm); /* the stamps differ by the skews only */
    if (cycle > 1 && seen < 0)
      seen = k;
    if (pat_state_quiet(ps, 8)) {
      quiet++;
      quiet_in_cycle += cycle > 1;
      pat_state_skip(ps);
      continue;
    }
    check(pat_state_arrive(ps, 8, &stamp) == MPI_SUCCESS &&
              pat_state_depart(ps, 8) == MPI_SUCCESS,
          "call %d: arrive or depart failed", (int)k);
  }
  pat_clock_debug_skew(0);
  if (rank == 0)
    printf("test_patlayer quiet_cycle: the cycle seen from call %ld on; "
           "%d quiet calls, %d of them in the cycle\n",
           seen, quiet, quiet_in_cycle);
  /* seen at call 28 (the 6th exchanged call, 25, observed a lag of 2
   * later): two exchanged calls of room */
  check(seen >= 0 && seen <= 8 * EVERY, "the cycle seen at call %d", (int)seen);
  check(quiet > 0, "no call quiet before the cycle (%d)", quiet);
  check(quiet_in_cycle == 0, "%d calls quiet in the cycle", quiet_in_cycle);
  MPI_Comm_free(&comm);
}

static void sleep_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The ranks' median of gap[c] (each rank's own, NAN where unknown),
 * per call c < n, into med (gathered over comm). */
static void median_over_ranks(const double *gap, int n, double *med,
                              MPI_Comm comm) {
  double *all = malloc((size_t)n * size * sizeof *all), v[64];
  MPI_Allgather(gap, n, MPI_DOUBLE, all, n, MPI_DOUBLE, comm);
  for (int c = 0; c < n; c++) {
    int m = 0;
    for (int r = 0; r < size && m < 64; r++)
      if (!isnan(all[(size_t)r * n + c]))
        v[m++] = all[(size_t)r * n + c];
    qsort(v, (size_t)m, sizeof *v, by_value);
    med[c] = m == 0 ? NAN : m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
  }
  free(all);
}

/* The layer's idle time of call c against the test's own (the ranks'
 * median of the time from just after the call before returned to just
 * before this one's arrival): idle counts that and no more than a little
 * work of the layer's around it, so their median difference over the
 * calls back to back must stay under 5 us (0.0-0.2 us here, more under
 * ASan; the layer's own work counted: 10 us and more for an exchange's
 * progress, 200 us for a clock refresh).  A preempted rank moves both. */
static void check_idle_excess(const double *idle, const long *idle_of,
                              const double *mine, int n, long from,
                              MPI_Comm comm) {
  double *med = malloc((size_t)n * sizeof *med), *ex = malloc(n * sizeof *ex);
  int m = 0;
  median_over_ranks(mine, n, med, comm);
  for (int k = 1; k < n; k++) {
    long c = idle_of[k];
    if (c < from || c >= n || c == idle_of[k - 1] || isnan(med[c]))
      continue;
    ex[m++] = idle[k] - med[c];
  }
  qsort(ex, (size_t)m, sizeof *ex, by_value);
  if (rank == 0 && m > 0)
    printf("test_patlayer idle: back to back, the layer's idle time over the "
           "test's: %+.2f us (median of %d calls)\n",
           1e6 * ex[m / 2], m);
  check(m > 10 && fabs(ex[m / 2]) < 5e-6,
        "%d: the idle time is not the time between the calls", m);
  free(med);
  free(ex);
}

/* the most ranks test_idle keeps intervals of */
#define MAX_RANKS 8

static void test_idle(void) {
  /* the ctest sets PAT_REDUCE_EXCHANGE_INTERVAL=1 and P = 4 */
  enum { CALLS = 80, APART = 40 };
  const double bytes = 8;
  MPI_Comm comm;
  pat_state *ps;
  /* per call: this rank's arrival and exit (just before and after its
   * departure), the idle time and realized time observed at its end (and
   * of which calls), the test's own idle time before it */
  static double arrived_at[CALLS], leaving[CALLS], left_at[CALLS];
  static double idle[CALLS], took[CALLS], mine[CALLS];
  static double both[3 * CALLS], most[3 * CALLS];
  static long idle_of[CALLS], took_of[CALLS];
  /* per call: every rank's interval of the realized call took_of (-1:
   * not known), and the least of them over the ranks */
  static double iv[CALLS][MAX_RANKS], least[CALLS][MAX_RANKS];
  double back = NAN;
  int apart = 0;
  check(size <= MAX_RANKS, "%d ranks: test_idle keeps 8 at most", size);
  if (size > MAX_RANKS)
    return;
  ps = layer_of(&comm);
  /* no MPI call between the layer's calls but its own */
  while (ps != NULL && pat_state_calls(ps) < CALLS) {
    long k = pat_state_calls(ps);
    double stamp;
    if (k > 0 && k < APART)
      sleep_ms(rank % 2 ? 4 : 2);
    mine[k] = pat_clock_local() - back;
    check(pat_state_arrive(ps, bytes, &stamp) == MPI_SUCCESS &&
              pat_state_exchanging(ps),
          "call %d: arrive failed, or did not exchange", (int)k);
    if (k < APART) /* the call takes 5 ms: its exits are not its stamps */
      sleep_ms(5);
    leaving[k] = pat_state_now(ps);
    check(pat_state_depart(ps, bytes) == MPI_SUCCESS, "call %d: depart failed",
          (int)k);
    back = pat_clock_local();
    left_at[k] = pat_state_now(ps);
    arrived_at[k] = stamp;
    idle[k] = pat_state_idle_nth(ps, 0, &idle_of[k]);
    took[k] = pat_state_realized_nth(ps, 0, &took_of[k]);
    {
      const double *all = pat_state_intervals_nth(ps, 0);
      for (int r = 0; r < MAX_RANKS; r++)
        iv[k][r] = all != NULL && r < size && isfinite(all[r]) ? all[r] : -1;
    }
  }
  /* alike on every rank (NAN compares as -1); the realized time is the
   * latest exit less the earliest arrival */
  for (int k = 0; k < CALLS; k++) {
    both[k] = isnan(idle[k]) ? -1 : idle[k];
    both[CALLS + k] = -both[k];
  }
  MPI_Allreduce(both, most, 2 * CALLS, MPI_DOUBLE, MPI_MAX, comm);
  for (int k = 0; k < CALLS; k++)
    check(most[k] == both[k] && most[CALLS + k] == both[CALLS + k],
          "call %d: the ranks see different idle times", k);
  for (int k = 0; k < CALLS; k++) {
    both[k] = leaving[k];
    both[CALLS + k] = left_at[k];
    both[2 * CALLS + k] = -arrived_at[k];
  }
  MPI_Allreduce(both, most, 3 * CALLS, MPI_DOUBLE, MPI_MAX, comm);
  for (int k = 0; k < CALLS; k++) {
    long c = took_of[k];
    double first = -most[2 * CALLS + c];
    if (c < 1)
      continue;
    check(isfinite(took[k]) && took[k] >= most[c] - first - 1e-6 &&
              took[k] <= most[CALLS + c] - first + 1e-6,
          "call %d: the realized time is not the latest exit less the "
          "earliest arrival",
          (int)c);
  }
  /* sleeping: the median of 2, 2, 4 and 4 ms, and more (a sleep may last
   * longer) */
  for (int k = 1; k < CALLS; k++) {
    long c = idle_of[k];
    if (c < 1 || c >= APART || c == idle_of[k - 1])
      continue;
    apart++;
    check(idle[k] >= 3e-3 && idle[k] < 0.1,
          "call %d: the ranks slept, but idle under 3 ms", (int)c);
  }
  check(apart > APART / 2, "%d: too few calls observed", apart);
  /* the intervals: alike everywhere, and what the rank slept and took */
  MPI_Allreduce(iv, least, CALLS * MAX_RANKS, MPI_DOUBLE, MPI_MIN, comm);
  for (int k = 0; k < CALLS; k++) {
    long c = took_of[k];
    check(memcmp(iv[k], least[k], sizeof iv[k]) == 0,
          "call %d: the ranks see different intervals", k);
    if (c < 2 || c >= APART)
      continue;
    /* the interval runs from the end of the layer's work in the call
     * before (inside its depart) to this call's exit stamp (inside this
     * depart): within [leaving[c-1], left_at[c]], whatever a preempted
     * rank lost in either depart (100 us: the clock refresh moves the
     * offset; leaving[c] - left_at[c-1] + 100 us, the bound before,
     * failed under load in CI) */
    check(iv[k][rank] >= (rank % 2 ? 4e-3 : 2e-3) + 5e-3 &&
              iv[k][rank] <= left_at[c] - leaving[c - 1] + 1e-4,
          "call %d: this rank's interval is not its sleep before the call "
          "and within it, or exceeds the time from its last call's "
          "departure to the end of its own",
          (int)c);
  }
  check_idle_excess(idle, idle_of, mine, CALLS, APART + 1, comm);
  MPI_Comm_free(&comm);
}

/* test_idle at the automatic pace (the ctest sets
 * PAT_REDUCE_ROUND_COST=1us: 8 B exchanges every 8th call), calls back to
 * back and quiet ones skipped as the dispatcher does (pat_state_skip):
 * the idle time of every observed call but the first is known (the call
 * before it read the clock: it knew its successor exchanges) and is the
 * time between the calls; stretched by 32 (every 256th call, past
 * PAT_EXCHANGE_MAX_EVERY), the calls that exchange are those multiples,
 * and they are still observed. */
static void test_idle_paced(void) {
  enum { CALLS = 2000, SWITCH = 400 };
  const double bytes = 8;
  MPI_Comm comm;
  pat_state *ps;
  static double idle[CALLS], mine[CALLS];
  static long idle_of[CALLS];
  double back = NAN;
  long seen = -1;
  int unknown = 0, late = 0, off = 0;
  ps = layer_of(&comm);
  for (int k = 0; k < CALLS; k++) {
    mine[k] = idle[k] = NAN;
    idle_of[k] = -1;
  }
  while (ps != NULL && pat_state_calls(ps) < CALLS) {
    long k = pat_state_calls(ps), call;
    double stamp;
    if (k == SWITCH)
      pat_state_pace(ps, bytes, 32, -1);
    if (pat_state_quiet(ps, bytes)) {
      long through = pat_state_quiet_through(ps, bytes);
      for (long j = k; j <= through && j < CALLS; j++)
        pat_state_skip(ps);
      back = pat_clock_local();
      continue;
    }
    mine[k] = pat_clock_local() - back;
    check(pat_state_arrive(ps, bytes, &stamp) == MPI_SUCCESS,
          "call %d: arrive failed", (int)k);
    /* after the switch (its exchanges observed), only multiples of 256 */
    if (k > SWITCH + 16 && pat_state_exchanging(ps))
      off += k % 256 != 0;
    check(pat_state_depart(ps, bytes) == MPI_SUCCESS, "call %d: depart failed",
          (int)k);
    back = pat_clock_local();
    idle[k] = pat_state_idle_nth(ps, 0, &call);
    idle_of[k] = call;
    if (call <= seen)
      continue;
    seen = call;
    late += call > SWITCH + 16;
    unknown += call >= 1 && isnan(idle[k]);
  }
  check(unknown == 0, "%d observed calls with no idle time", unknown);
  check(off == 0, "%d exchanges off the stretched interval's multiples", off);
  check(late >= (CALLS - SWITCH) / 256 - 1,
        "%d exchanges observed at every 256th call, too few", late);
  check_idle_excess(idle, idle_of, mine, CALLS, 1, comm);
  MPI_Comm_free(&comm);
}

static void test_pace(void) {
  /* the ctest sets PAT_REDUCE_MODEL to the CURIE-like model: 8 B and
   * 4 KiB exchange every 8th call at the automatic interval, 64 KiB and
   * up every call.  Per period of 100 calls: position, size, the stretch
   * the test sets after each of its calls as auto would (0: never paced)
   * and the interval that must follow, counted in the size's own calls. */
  enum { CALLS = 13000, PERIOD = 100, KINDS = 5 };
  static const struct {
    int at;
    double bytes;
    int stretch, every;
  } kind[KINDS] = {{-1, 8, 8, 64},      /* the others: 8 x 8 */
                   {0, 65536, 1, 1},    /* 1 x 1 */
                   {8, 1 << 20, 0, 8},  /* after 8 B: 1 x 8 (8 B's stretch) */
                   {63, 1 << 18, 8, 8}, /* 1 x 8 */
                   {64, 4096, 0, 64}}; /* after it: 8 x 8 (256 KiB's stretch) */
  int off = 0, in[KINDS] = {0}, known = 0, unknown = 0;
  long seen = -1, own[KINDS] = {0};
  MPI_Comm comm;
  pat_state *ps = layer_of(&comm);
  while (ps != NULL && pat_state_calls(ps) < CALLS) {
    long k = pat_state_calls(ps), call;
    int x = 0;
    double idle, stamp;
    for (int i = 1; i < KINDS; i++)
      x = k % PERIOD == kind[i].at ? i : x;
    check(pat_state_arrive(ps, kind[x].bytes, &stamp) == MPI_SUCCESS,
          "call %d: arrive failed", (int)k);
    if (k >= 2 * PERIOD) {
      int ex = pat_state_exchanging(ps);
      off += ex != (own[x] % kind[x].every == 0);
      in[x] += ex;
    }
    own[x]++;
    check(pat_state_depart(ps, kind[x].bytes) == MPI_SUCCESS,
          "call %d: depart failed", (int)k);
    /* the idle time before each observed 64 KiB call, whose call before
     * (8 B) would not have read the clock at its own size's pace */
    idle = pat_state_idle_nth(ps, 0, &call);
    if (call > seen && call % PERIOD == 0) {
      known += !isnan(idle);
      unknown += isnan(idle);
    }
    seen = call;
    if (kind[x].stretch > 0)
      pat_state_pace(ps, kind[x].bytes, kind[x].stretch, -1);
  }
  if (rank == 0)
    printf("test_patlayer pace: %d calls off their size's pace; exchanged "
           "%d of 8 B, %d of 64 KiB, %d of 1 MiB, %d of 256 KiB, %d of "
           "4 KiB; the idle time before %d observed 64 KiB calls known, %d "
           "not\n",
           off, in[0], in[1], in[2], in[3], in[4], known, unknown);
  check(off == 0, "%d calls exchanged off their size's pace", off);
  check(in[0] > 0 && in[1] > 0 && in[2] > 0 && in[4] > 0,
        "a size never exchanged (%d)", in[0] * in[1] * in[2] * in[4]);
  /* the first, before its size's interval was known, may not be */
  check(unknown <= 1 && known > 0,
        "%d observed 64 KiB calls without their idle time", unknown);
  MPI_Comm_free(&comm);
}

static void test_pace_cap(void) {
  /* the ctest sets PAT_REDUCE_MODEL to the CURIE-like model: 8 B every
   * 8th call at the automatic interval, so call 0 exchanges before any
   * pace is set */
  enum { CALLS = 2 * PAT_EXCHANGE_MAX_PACED + 100 };
  int off = 0, exchanged = 0;
  MPI_Comm comm;
  pat_state *ps = layer_of(&comm);
  while (ps != NULL && pat_state_calls(ps) < CALLS) {
    long k = pat_state_calls(ps);
    double stamp;
    check(pat_state_arrive(ps, 8, &stamp) == MPI_SUCCESS,
          "call %d: arrive failed", (int)k);
    if (k > 0) {
      int ex = pat_state_exchanging(ps);
      off += ex != (k % PAT_EXCHANGE_MAX_PACED == 0);
      exchanged += ex;
    }
    check(pat_state_depart(ps, 8) == MPI_SUCCESS, "call %d: depart failed",
          (int)k);
    pat_state_pace(ps, 8, 4096, -1);
  }
  if (rank == 0)
    printf("test_patlayer pace_cap: %d calls paced to every %d: %d "
           "exchanged, %d off the pace\n",
           CALLS, PAT_EXCHANGE_MAX_PACED, exchanged, off);
  check(off == 0, "%d calls exchanged off the capped pace", off);
  check(exchanged == 2, "%d calls exchanged, not 2", exchanged);
  MPI_Comm_free(&comm);
}

/* auto's 64 KiB calls, one every PERIOD calls, with binomial's 8 B calls
 * between (a rules file's lines): auto must hear its own calls' exchanges,
 * settle, and then stretch the pace.  The measuring that settles it takes
 * a load-dependent number of its calls (calm calls are rare on a loaded
 * node: in CI it ended after round 100 of 150, and once on a busy node
 * not at all; at a load of 12-16, 10 of 33 runs settled in rounds
 * 33-137, against 15-21 usually: ROUNDS leaves room for more), so the
 * pace is judged on the rounds after it settled plus RAMP (the pace
 * doubles every PAT_AUTO_QUIET observed calls: 0-5 rounds here), and
 * the loop ends, alike on every rank, once EVIDENCE such rounds ran.
 * Most of them exchange at most one call in 32: auto may now and then
 * run predictions for a few rounds (the pace back to every call's then:
 * real imbalance on a loaded node can make them pay). */
static void test_mixed(void) {
  enum { ROUNDS = 1500, PERIOD = 128, BIG = 8192, RAMP = 10, EVIDENCE = 60 };
  static long in[BIG], out[BIG];
  static int per_round[ROUNDS];
  MPI_Comm comm;
  pat_comm_state *st = NULL;
  pat_state *ps = layer_of(&comm);
  int settled_at = -1, stretched = 0, rounds = 0, judged = 0;
  long seen = -1;
  if (ps == NULL || pat_comm_state_get(comm, &st) != MPI_SUCCESS)
    return;
  for (int i = 0; i < BIG; i++)
    in[i] = rank + i;
  for (int done = 0; !done && rounds < ROUNDS; rounds++) {
    for (int call = rounds * PERIOD; call < (rounds + 1) * PERIOD; call++) {
      int big = call % PERIOD == 0, count = big ? BIG : 1;
      long latest;
      MPI_Barrier(comm);
      check(pat_reduce_using(
                big ? PAT_REDUCE_ALG_AUTO : PAT_REDUCE_ALG_BINOMIAL, in, out,
                count, MPI_LONG, MPI_SUM, 0, comm) == MPI_SUCCESS,
            "call %d failed", call);
      for (int i = 0; rank == 0 && i < count; i += 1 + count / 7)
        check(out[i] == (long)size * (size - 1) / 2 + (long)size * i,
              "call %d: wrong sum", call);
      if (big && settled_at < 0 && pat_auto_of(st) != NULL &&
          pat_auto_settled(pat_auto_of(st)) != 0)
        settled_at = rounds;
      pat_state_observed_nth(ps, 0, &latest);
      per_round[rounds] += latest != seen;
      seen = latest;
    }
    done = settled_at >= 0 && rounds + 1 >= settled_at + RAMP + EVIDENCE;
    /* the ranks settle at the same call (exchanged data); agreeing on the
     * end anyway keeps a rank that did not from waiting for ever */
    MPI_Allreduce(MPI_IN_PLACE, &done, 1, MPI_INT, MPI_LAND, comm);
  }
  for (int i = settled_at + RAMP; settled_at >= 0 && i < rounds; i++) {
    judged++;
    stretched += per_round[i] <= PERIOD / 32;
  }
  if (rank == 0)
    printf("test_patlayer mixed: settled in round %d (-1: never) of %d; "
           "%d of the %d rounds from %d after it exchanged at most %d of "
           "their %d calls\n",
           settled_at, rounds, stretched, judged, RAMP, PERIOD / 32, PERIOD);
  check(settled_at >= 0 && judged >= EVIDENCE,
        "auto settled in round %d (-1: never), too late to judge the pace",
        settled_at);
  check(2 * stretched >= judged, "the pace did not stretch in most rounds (%d)",
        stretched);
  {
    /* auto's 64 KiB exchanges wait behind the 8 B calls' longer lag: the
     * layer tells auto its longest, alike on every rank */
    pat_model m;
    int lag = pat_state_lag(ps), lo = lag, hi = lag;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, comm);
    check(lo == hi, "the layer's longest lag differs between ranks (%d here)",
          lag);
    check(!pat_state_model(ps, &m) ||
              lag >= pat_exchange_lag(&m, sizeof(long), size),
          "the layer's longest lag (%d) is under the 8 B calls'", lag);
  }
  MPI_Comm_free(&comm);
}

/* auto's 8 B calls back to back, every other one in place at the root,
 * with calls of the same size by name between (clairvoyant every 13th:
 * its pace is every call; binomial every 17th) and an auto call of
 * 64 KiB every 29th: every rank must start the same exchanges (a rank
 * that starts one the others do not waits for it at its due call: the
 * ctest's timeout), the sums must be right, and the ranks must have
 * observed the same calls. */
static void test_named(void) {
  enum { CALLS = 4000, BIG = 8192 };
  static long in[BIG], out[BIG];
  MPI_Comm comm;
  pat_state *ps = layer_of(&comm);
  long latest, lo, hi;
  if (ps == NULL)
    return;
  for (int call = 0; call < CALLS; call++) {
    int big = call % 29 == 28, count = big ? BIG : 1;
    pat_reduce_alg alg = big               ? PAT_REDUCE_ALG_AUTO
                         : call % 13 == 12 ? PAT_REDUCE_ALG_CLAIRVOYANT
                         : call % 17 == 16 ? PAT_REDUCE_ALG_BINOMIAL
                                           : PAT_REDUCE_ALG_AUTO;
    int in_place = rank == 0 && call % 2 == 0;
    for (int i = 0; i < count; i++)
      in[i] = out[i] = rank + i + call % 5;
    check(pat_reduce_using(alg, in_place ? MPI_IN_PLACE : in, out, count,
                           MPI_LONG, MPI_SUM, 0, comm) == MPI_SUCCESS,
          "call %d failed", call);
    for (int i = 0; rank == 0 && i < count; i += 1 + count / 7)
      check(out[i] == (long)size * (size - 1) / 2 + (long)size * (i + call % 5),
            "call %d: wrong sum", call);
  }
  pat_state_observed_nth(ps, 0, &latest);
  MPI_Allreduce(&latest, &lo, 1, MPI_LONG, MPI_MIN, comm);
  MPI_Allreduce(&latest, &hi, 1, MPI_LONG, MPI_MAX, comm);
  if (rank == 0)
    printf("test_patlayer named: %d calls, the last observed call %ld\n", CALLS,
           latest);
  check(lo == hi && lo > 0, "the ranks observed other calls last (%d)",
        (int)(hi - lo));
  MPI_Comm_free(&comm);
}

/* 2x2 unsigned matrix product, a non-commutative op */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt) {
  unsigned *a = in, *b = inout;
  (void)dt;
  for (int k = 0; k < *len; k++, a += 4, b += 4) {
    unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(b, r, sizeof r);
  }
}

static void test_wrong(void) {
  MPI_Datatype mat;
  MPI_Op op;
  double *lie = malloc((size_t)size * sizeof *lie);
  MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
  MPI_Type_commit(&mat);
  MPI_Op_create(matmul, 0, &op);
  for (int call = 0; call < 200; call++) {
    int late = call % size, root = (call * 3) % size;
    unsigned m[4] = {1u + (unsigned)rank, 2, (unsigned)call, 1}, r[4],
             want[4] = {1, 0, 0, 1};
    sleep_us(rank == late ? 800 : 0);
    /* the oracle is told that every other rank is the late one */
    for (int i = 0; i < size; i++)
      lie[i] = i == late ? 0 : 2e-3 * (i + 1);
    if (call % 2)
      check(pat_reduce_with_arrivals(PAT_REDUCE_ALG_CLAIRVOYANT, m, r, 1, mat,
                                     op, root, MPI_COMM_WORLD, lie,
                                     1e-6) == MPI_SUCCESS,
            "oracle call %d failed", call);
    else
      check(pat_reduce_clairvoyant(m, r, 1, mat, op, root, MPI_COMM_WORLD) ==
                MPI_SUCCESS,
            "call %d failed", call);
    if (rank == root) {
      for (int i = 0; i < size; i++) {
        unsigned x[4] = {1u + (unsigned)i, 2, (unsigned)call, 1};
        int one = 1;
        matmul(want, x, &one, NULL); /* x = want * x */
        memcpy(want, x, sizeof x);
      }
      check(memcmp(r, want, sizeof r) == 0,
            "call %d: wrong non-commutative result", call);
    }
    /* and a commutative sum with the same lies */
    one_call(call, 3, root);
  }
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
  free(lie);
}

static void test_execute(void) {
  double *a = malloc((size_t)size * sizeof *a);
  char why[256];
  for (int i = 0; i < size; i++)
    a[i] = (i * 37 % 11) * 1e-6;
  for (int alg = 0; alg < 2; alg++) {
    for (int in_place = 0; in_place <= 1; in_place++) {
      int root = (size - 1) / (1 + in_place);
      pat_sched_params p = {.nranks = size,
                            .root = root,
                            .count = 5,
                            .commutative = alg,
                            .in_place = in_place,
                            .arrivals = a,
                            .model = {1e-6, 0, 0}};
      pat_schedule *s = NULL;
      long in[5], out[5];
      pat_reduce_alg id =
          alg ? PAT_REDUCE_ALG_CLAIRVOYANT : PAT_REDUCE_ALG_BINOMIAL;
      check(pat_schedule_build(id, &p, -1, &s) == PAT_SUCCESS,
            "build failed (%d)", alg);
      check(pat_schedule_validate(s, why, sizeof why) == PAT_SUCCESS,
            "schedule invalid (%d)", alg);
      for (int i = 0; i < 5; i++)
        in[i] = out[i] = rank * 10 + i;
      check(pat_schedule_execute(
                s, in_place && rank == root ? MPI_IN_PLACE : in, out, MPI_LONG,
                MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
            "execute failed (%d)", alg);
      if (rank == root)
        for (int i = 0; i < 5; i++)
          check(out[i] == 10L * size * (size - 1) / 2 + (long)size * i,
                "executed schedule gave a wrong sum (%d)", i);
      pat_schedule_free(s);
    }
  }
  /* one rank: a copy past the end of the buffer must not run */
  {
    pat_sched_params p = {.nranks = 1, .root = 0, .count = 1, .commutative = 1};
    pat_sched_op bad = {PAT_SCHED_COPY, 0, -1, PAT_SLOT_SEND,
                        PAT_SLOT_TMP0,  0, 64};
    pat_schedule *s = NULL;
    long in = 1, out = 0;
    pat_schedule_alloc(&p, &s);
    pat_schedule_add(s, 0, &bad);
    check(pat_schedule_execute(s, &in, &out, MPI_LONG, MPI_SUM,
                               MPI_COMM_SELF) == MPI_ERR_ARG,
          "an out-of-range program ran (%d)", 0);
    pat_schedule_free(s);
  }
  free(a);
}

/* The modes by name (see the header); the sentinel's, hash, for any
 * other name. */
typedef struct test_mode {
  const char *name;
  void (*run)(void);
} test_mode;
static const test_mode modes[] = {
    {"clock", test_clock},       {"execute", test_execute},
    {"exchange", test_exchange}, {"wrong", test_wrong},
    {"quiet", test_quiet},       {"quiet_cycle", test_quiet_cycle},
    {"idle", test_idle},         {"idle_paced", test_idle_paced},
    {"mixed", test_mixed},       {"pace", test_pace},
    {"pace_cap", test_pace_cap}, {"named", test_named},
    {"cycle", test_cycle},       {NULL, test_hash}};

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "hash";
  const test_mode *m;
  int total[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  if (argc > 2 && pat_reduce_algorithm_lookup(argv[2], &g_alg) != PAT_SUCCESS)
    check(0, "unknown algorithm (%d)", 0);
  for (m = modes; m->name != NULL && strcmp(m->name, mode) != 0; m++)
    ;
  m->run(); /* the sentinel's: hash */
  total[0] = checks - failures;
  total[1] = failures;
  MPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_patlayer %s: %d passed, %d failed\n", mode, total[0],
           total[1]);
  MPI_Finalize();
  return total[1] != 0;
}
