/*
 * The memo: results of deterministic computations kept process-wide by
 * their inputs, so that the ranks of one process that compute the same
 * thing compute it once (src/core/memo.c).  Internal, not installed.
 */
#ifndef PAT_MEMO_H
#define PAT_MEMO_H

#include <stddef.h>

/* A key: the bytes of head, then those of body (either length may be 0).
 * Keys match when both are bytewise equal, so a struct given as head must
 * have its padding zeroed. */
typedef struct pat_memo_key {
  const void *head;
  size_t head_len;
  const void *body;
  size_t body_len;
} pat_memo_key;

/* An entry a caller holds: its value stays valid until it is released,
 * whatever happens to the memo meanwhile. */
typedef struct pat_memo_held pat_memo_held;

/* The value stored under key, held (*held) until pat_memo_release; NULL
 * (and *held NULL) if there is none. */
const void *pat_memo_find(const pat_memo_key *key, pat_memo_held **held);

/* Takes over value (malloc'd, size bytes) and stores it under key, to be
 * found by later finds while the memo's bytes (PAT_REDUCE_PLAN_MEMO) and
 * entries (64) allow it; the least recently found are dropped first.  Returns
 * value, held (*held) until pat_memo_release, also when it is not stored (the
 * memo off or full of held entries, the value too large, no memory for
 * the key's copy): then the release frees it.  NULL (nothing held, value
 * freed) only without memory for the entry itself. */
const void *pat_memo_put(const pat_memo_key *key, void *value, size_t size,
                         pat_memo_held **held);

/* Ends a hold (NULL is accepted). */
void pat_memo_release(pat_memo_held *held);

/* Values stored and finds that hit, since the process started (all
 * threads and, in SMPI, all simulated ranks). */
void pat_memo_counts(unsigned long *stored, unsigned long *found);

/* Drops every entry nobody holds (tests; the library at finalize). */
void pat_memo_clear(void);

#endif
