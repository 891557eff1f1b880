/*
 * memo: results of deterministic computations kept process-wide by their
 * inputs, so that the ranks of one process that compute the same thing
 * compute it once.
 *
 * Idea.  Principle 5: every rank derives the same plan from the same
 * inputs, without asking anyone.  On a real machine a rank is a process
 * and plans once per call.  In SimGrid SMPI all P simulated ranks are one
 * process, so a plan of O(P log P) made by every rank is O(P^2 log P) of
 * the machine's time per call (clairvoyant at P = 16384: P plans of 16383
 * heap merges each, minutes per call).  The ranks that find the plan of
 * the same inputs here take it instead: each rank still cuts its own
 * program out of it, so what runs is what the rank would have planned.
 *
 * Where it lives.  SMPI gives each rank its own copy of the program's and
 * the static library's globals, so the list hangs off the one slot of
 * src/share/share.c (a shared object in the SMPI build, not privatized).
 * Values must be plain memory (no pointers into a rank's globals, no
 * function pointers): in SMPI's dlopen privatization each rank runs its
 * own copy of the code.
 *
 * Holding.  A found or stored value is held until released, so an entry
 * dropped meanwhile (by another thread, or by the limits) is freed only at
 * its last release.
 *
 * Cost.  A find compares the key with each entry's, most recently used
 * first (memcmp: O(key bytes) when it matches, usually a few bytes when it
 * does not), so the list holds at most PAT_MEMO_ENTRIES: a process whose
 * plans never repeat (predicted arrivals that change every call) pays a
 * bounded walk and one copy of its key per call.
 *
 * Threads.  The lock covers the threads of a real process.  In SMPI it is
 * none (pat_internal.h) and, being a global of the library, would be each
 * rank's own anyway: the memo relies on SMPI running one simulated rank at
 * a time (contexts/nthreads 1, its default), like the rest of the library,
 * and switching ranks only inside MPI calls, which no user of the memo
 * makes while it holds an entry.
 *
 * Tunable: PAT_REDUCE_PLAN_MEMO, the most bytes kept (keys, values and
 * entries; 0: nothing kept, every put's value freed at its release).
 */
#include <stdlib.h>
#include <string.h>

#include "core/memo.h"
#include "core/pat_internal.h"
#include "share/share.h"

struct pat_memo_held {
  struct pat_memo_held *prev, *next; /* the list, most recent first */
  unsigned char *key;                /* head then body */
  size_t head_len, body_len;
  void *value;
  size_t bytes; /* entry + key + value */
  int refs;     /* holds */
  int listed;   /* in the list (else freed at its last release) */
};

typedef struct memo_state {
  pat_memo_held *first, *last;
  size_t bytes; /* of the listed entries */
  int n;        /* listed entries */
  unsigned long stored, found;
} memo_state;

/* Most entries kept, whatever their bytes. */
#define PAT_MEMO_ENTRIES 64

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

/* The process's list, made on first use (under memo_lock), or NULL
 * without memory. */
static memo_state *state(void) {
  void **slot = pat_share_slot();
  if (*slot == NULL)
    *slot = calloc(1, sizeof(memo_state));
  return *slot;
}

static void entry_free(pat_memo_held *e) {
  free(e->key);
  free(e->value);
  free(e);
}

static void unlink_entry(memo_state *s, pat_memo_held *e) {
  if (e->prev != NULL)
    e->prev->next = e->next;
  else
    s->first = e->next;
  if (e->next != NULL)
    e->next->prev = e->prev;
  else
    s->last = e->prev;
  e->prev = e->next = NULL;
  e->listed = 0;
  s->bytes -= e->bytes;
  s->n--;
}

static void push_front(memo_state *s, pat_memo_held *e) {
  e->prev = NULL;
  e->next = s->first;
  if (s->first != NULL)
    s->first->prev = e;
  else
    s->last = e;
  s->first = e;
  e->listed = 1;
  s->bytes += e->bytes;
  s->n++;
}

static int matches(const pat_memo_held *e, const pat_memo_key *k) {
  return e->head_len == k->head_len && e->body_len == k->body_len &&
         (k->head_len == 0 || memcmp(e->key, k->head, k->head_len) == 0) &&
         (k->body_len == 0 ||
          memcmp(e->key + k->head_len, k->body, k->body_len) == 0);
}

const void *pat_memo_find(const pat_memo_key *key, pat_memo_held **held) {
  memo_state *s;
  pat_memo_held *e = NULL;
  PAT_LOCK(&memo_lock);
  s = state();
  for (e = s != NULL ? s->first : NULL; e != NULL && !matches(e, key);
       e = e->next)
    ;
  if (e != NULL) {
    e->refs++;
    s->found++;
    unlink_entry(s, e); /* to the front: the least recent are dropped */
    push_front(s, e);
  }
  PAT_UNLOCK(&memo_lock);
  *held = e;
  return e != NULL ? e->value : NULL;
}

const void *pat_memo_put(const pat_memo_key *key, void *value, size_t size,
                         pat_memo_held **held) {
  size_t limit = (size_t)pat_config_get()->plan_memo;
  size_t klen = key->head_len + key->body_len;
  pat_memo_held *e = calloc(1, sizeof *e);
  memo_state *s;
  *held = e;
  if (e == NULL) {
    free(value);
    return NULL;
  }
  e->value = value;
  e->refs = 1;
  e->bytes = sizeof *e + klen + size;
  if (limit == 0 || e->bytes > limit ||
      (e->key = malloc(klen > 0 ? klen : 1)) == NULL)
    return value; /* held alone: freed at its release */
  if (key->head_len > 0)
    memcpy(e->key, key->head, key->head_len);
  if (key->body_len > 0)
    memcpy(e->key + key->head_len, key->body, key->body_len);
  e->head_len = key->head_len;
  e->body_len = key->body_len;
  PAT_LOCK(&memo_lock);
  s = state();
  if (s != NULL) {
    push_front(s, e);
    s->stored++;
    /* drop the least recently found entries nobody holds */
    for (pat_memo_held *d = s->last, *prev;
         d != NULL && (s->bytes > limit || s->n > PAT_MEMO_ENTRIES); d = prev) {
      prev = d->prev;
      if (d->refs == 0) {
        unlink_entry(s, d);
        entry_free(d);
      }
    }
  }
  PAT_UNLOCK(&memo_lock);
  return value;
}

void pat_memo_release(pat_memo_held *held) {
  int gone;
  if (held == NULL)
    return;
  PAT_LOCK(&memo_lock);
  gone = --held->refs == 0 && !held->listed;
  PAT_UNLOCK(&memo_lock);
  if (gone)
    entry_free(held);
}

void pat_memo_counts(unsigned long *stored, unsigned long *found) {
  memo_state *s;
  PAT_LOCK(&memo_lock);
  s = *pat_share_slot();
  *stored = s != NULL ? s->stored : 0;
  *found = s != NULL ? s->found : 0;
  PAT_UNLOCK(&memo_lock);
}

void pat_memo_clear(void) {
  memo_state *s;
  PAT_LOCK(&memo_lock);
  s = *pat_share_slot();
  while (s != NULL && s->first != NULL) {
    pat_memo_held *e = s->first;
    unlink_entry(s, e);
    if (e->refs == 0)
      entry_free(e); /* a held one goes at its last release */
  }
  PAT_UNLOCK(&memo_lock);
}
