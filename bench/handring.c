/*
 * A ring reduce-scatter and a binomial gather written by hand as a
 * schedule: a large valid schedule with uneven blocks and messages of
 * several sizes, for the validator's tests (tests/unit/test_schedule.c) and
 * benchmark (patvalidatespeed).  Not an algorithm of the library.
 */
#include "handring.h"

static int block_start(int b, int P, int count) {
  return (int)((long long)b * count / P);
}

/* Adds one op per contiguous part of blocks lo+1 .. hi (block P is block
 * 0): what ranks lo .. hi-1 own after the reduce-scatter. */
static void add_blocks(pat_schedule *s, int rank, pat_sched_op op, int lo,
                       int hi, int P, int count, int *err) {
  int a = block_start(lo + 1, P, count);
  int e = hi < P ? block_start(hi + 1, P, count) : count;
  op.offset = a;
  op.count = e - a;
  if (pat_schedule_add(s, rank, &op) != PAT_SUCCESS)
    *err = 1;
  if (hi == P) {
    op.offset = 0;
    op.count = block_start(1, P, count);
    if (pat_schedule_add(s, rank, &op) != PAT_SUCCESS)
      *err = 1;
  }
}

/* Ring reduce-scatter (commutative op, root 0): in step s rank r sends
 * block r - s to r + 1 and receives and combines block r - s - 1, so it
 * ends owning block r + 1.  Then a binomial gather to rank 0 (messages
 * of several blocks).  broken: rank 2 combines one block twice. */
pat_schedule *pat_handring_alloc(int P, int count, int broken) {
  pat_sched_params p = {
      .nranks = P, .root = 0, .count = count, .commutative = 1};
  pat_schedule *s = NULL;
  int err = 0;
  if (pat_schedule_alloc(&p, &s) != PAT_SUCCESS)
    return NULL;
  for (int r = 0; r < P; r++) {
    int round = 0;
    err |= pat_schedule_mark_built(s, r) != PAT_SUCCESS;
    for (int st = 0; st < P - 1; st++, round++) {
      int sb = ((r - st) % P + P) % P, rb = ((r - st - 1) % P + P) % P;
      pat_sched_op snd = {PAT_SCHED_SEND,
                          round,
                          (r + 1) % P,
                          st == 0 ? PAT_SLOT_SEND : PAT_SLOT_TMP0,
                          -1,
                          block_start(sb, P, count),
                          block_start(sb + 1, P, count) -
                              block_start(sb, P, count)};
      pat_sched_op rcv = {PAT_SCHED_RECV,
                          round,
                          (r + P - 1) % P,
                          -1,
                          PAT_SLOT_TMP0,
                          block_start(rb, P, count),
                          block_start(rb + 1, P, count) -
                              block_start(rb, P, count)};
      pat_sched_op cmb = rcv;
      cmb.kind = PAT_SCHED_COMBINE;
      cmb.peer = -1;
      cmb.src = PAT_SLOT_SEND;
      err |= pat_schedule_add(s, r, &snd) != PAT_SUCCESS;
      err |= pat_schedule_add(s, r, &rcv) != PAT_SUCCESS;
      err |= pat_schedule_add(s, r, &cmb) != PAT_SUCCESS;
      if (broken && r == 2 && st == 1)
        err |= pat_schedule_add(s, r, &cmb) != PAT_SUCCESS;
    }
    if (r == 0) { /* the root's own block into the receive buffer */
      pat_sched_op cp = {
          PAT_SCHED_COPY, round, -1, P == 1 ? PAT_SLOT_SEND : PAT_SLOT_TMP0,
          PAT_SLOT_RECV,  0,     0};
      add_blocks(s, r, cp, 0, 1, P, count, &err);
    }
    for (int mask = 1; mask < P; mask <<= 1, round++) {
      if (r & mask) { /* send ranks r .. r+mask-1's blocks, done */
        pat_sched_op op = {
            PAT_SCHED_SEND, round, r - mask, PAT_SLOT_TMP0, -1, 0, 0};
        add_blocks(s, r, op, r, r + mask < P ? r + mask : P, P, count, &err);
        break;
      }
      if (r + mask < P) {
        int hi = r + 2 * mask < P ? r + 2 * mask : P;
        pat_sched_op op = {PAT_SCHED_RECV,
                           round,
                           r + mask,
                           -1,
                           r == 0 ? PAT_SLOT_RECV : PAT_SLOT_TMP0,
                           0,
                           0};
        add_blocks(s, r, op, r + mask, hi, P, count, &err);
      }
    }
  }
  if (err) {
    pat_schedule_free(s);
    s = NULL;
  }
  return s;
}
