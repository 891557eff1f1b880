/*
 * heap: an indexed binary min-heap of ids 0..n-1 keyed by (time, tie), the
 * priority queue of the schedule builders: the clairvoyant builders' ranks
 * keyed by the time their partial is ready and candidate merges keyed by
 * their completion time, and per-segment queues of ranks keyed by ready
 * time.
 *
 * Idea.  An implicit binary heap in an array of nodes that carry their key
 * and id (the comparisons read the array, no indirection), plus pos[id],
 * the node's index or -1: contains is O(1) and update and remove find the
 * node directly, so a key changes in place instead of leaving stale
 * entries behind.  Sifts move a hole instead of swapping.
 *
 * Complexity.  push, pop_min, update, remove: O(log n) comparisons and
 * moves; peek_min, contains, size: O(1).  Memory: 16 + 4 bytes per id,
 * allocated once by pat_heap_alloc; no operation allocates.
 *
 * Tie-break.  Lower time first, then lower tie, then lower id: the order
 * is total, so the sequence of pops is a function of the keys alone, the
 * same on every rank whatever the heap's history.  Times must not be NaN
 * (NaN compares neither below nor above, and would break the order).
 */
#include "heap.h"

#include <assert.h>
#include <stdlib.h>

typedef struct node {
  double t;
  int tie;
  int id;
} node;

struct pat_heap {
  node *h;  /* h[0..n-1]: the heap */
  int *pos; /* pos[id]: index of id's node in h, or -1 */
  int n;    /* ids in the heap */
  int cap;  /* ids are 0..cap-1 */
};

static int before(const node *x, const node *y) {
  return x->t < y->t || (x->t == y->t && (x->tie < y->tie ||
                                          (x->tie == y->tie && x->id < y->id)));
}

/* The sifts work on local copies of the arrays and the size: stores to the
 * nodes' int fields could otherwise alias the heap's own fields and force
 * reloads at every step. */

/* Puts x into the hole at i, moving the hole up past later parents. */
static void sift_up(pat_heap *heap, int i, node x) {
  node *h = heap->h;
  int *pos = heap->pos;
  while (i > 0 && before(&x, &h[(i - 1) / 2])) {
    node y = h[(i - 1) / 2];
    h[i] = y;
    pos[y.id] = i;
    i = (i - 1) / 2;
  }
  h[i] = x;
  pos[x.id] = i;
}

/* Puts x into the hole at i, moving the hole down past earlier children. */
static void sift_down(pat_heap *heap, int i, node x) {
  node *h = heap->h;
  int *pos = heap->pos, n = heap->n;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && before(&h[c + 1], &h[c]))
      c++;
    if (!before(&h[c], &x))
      break;
    node y = h[c];
    h[i] = y;
    pos[y.id] = i;
    i = c;
  }
  h[i] = x;
  pos[x.id] = i;
}

/* Puts x into the hole at i, up or down as its key requires. */
static void settle(pat_heap *heap, int i, node x) {
  if (i > 0 && before(&x, &heap->h[(i - 1) / 2]))
    sift_up(heap, i, x);
  else
    sift_down(heap, i, x);
}

pat_heap *pat_heap_alloc(int n) {
  size_t cap = n > 0 ? (size_t)n : 1;
  pat_heap *heap;
  if (n < 0)
    return NULL;
  heap = malloc(sizeof *heap);
  if (heap == NULL)
    return NULL;
  heap->h = malloc(cap * sizeof *heap->h);
  heap->pos = malloc(cap * sizeof *heap->pos);
  if (heap->h == NULL || heap->pos == NULL) {
    pat_heap_free(heap);
    return NULL;
  }
  for (int id = 0; id < n; id++)
    heap->pos[id] = -1;
  heap->n = 0;
  heap->cap = n;
  return heap;
}

void pat_heap_free(pat_heap *heap) {
  if (heap == NULL)
    return;
  free(heap->h);
  free(heap->pos);
  free(heap);
}

void pat_heap_push(pat_heap *heap, int id, double t, int tie) {
  assert(id >= 0 && id < heap->cap && heap->pos[id] < 0);
  assert(t == t);
  sift_up(heap, heap->n++, (node){.t = t, .tie = tie, .id = id});
}

int pat_heap_peek_min(const pat_heap *heap, double *t, int *tie) {
  if (heap->n == 0)
    return -1;
  if (t != NULL)
    *t = heap->h[0].t;
  if (tie != NULL)
    *tie = heap->h[0].tie;
  return heap->h[0].id;
}

int pat_heap_pop_min(pat_heap *heap, double *t, int *tie) {
  int id = pat_heap_peek_min(heap, t, tie);
  if (id < 0)
    return -1;
  heap->pos[id] = -1;
  if (--heap->n > 0)
    sift_down(heap, 0, heap->h[heap->n]);
  return id;
}

void pat_heap_update(pat_heap *heap, int id, double t, int tie) {
  assert(pat_heap_contains(heap, id));
  assert(t == t);
  settle(heap, heap->pos[id], (node){.t = t, .tie = tie, .id = id});
}

void pat_heap_remove(pat_heap *heap, int id) {
  int i;
  if (!pat_heap_contains(heap, id))
    return;
  i = heap->pos[id];
  heap->pos[id] = -1;
  if (i != --heap->n)
    settle(heap, i, heap->h[heap->n]);
}

int pat_heap_contains(const pat_heap *heap, int id) {
  return id >= 0 && id < heap->cap && heap->pos[id] >= 0;
}

int pat_heap_size(const pat_heap *heap) { return heap->n; }
