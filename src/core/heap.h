/*
 * An indexed binary min-heap of integer ids 0..n-1 keyed by (time, tie):
 * the priority queue of the schedule builders (src/core/heap.c).  Internal,
 * not installed.
 *
 * Order: lower time first, then lower tie, then lower id, so the minimum
 * is always unique and the order of pops depends on the keys alone, never
 * on the history of the heap (the same bits on every rank).  Times must not
 * be NaN.
 *
 * Every operation is O(log n) or better; nothing allocates after
 * pat_heap_alloc.  Preconditions (ids in range, push of an id not in the
 * heap, update of an id in it) are checked with assert() only.
 */
#ifndef PAT_HEAP_H
#define PAT_HEAP_H

typedef struct pat_heap pat_heap;

/* An empty heap for the ids 0..n-1 (n >= 0), or NULL if out of memory. */
pat_heap *pat_heap_alloc(int n);
/* Frees the heap; NULL is accepted. */
void pat_heap_free(pat_heap *heap);

/* Inserts id, which must not be in the heap, with key (t, tie). */
void pat_heap_push(pat_heap *heap, int id, double t, int tie);
/* The id of the minimum, its key in *t and *tie (either may be NULL);
 * -1 (and the outputs untouched) if the heap is empty.  pop_min also
 * removes it. */
int pat_heap_peek_min(const pat_heap *heap, double *t, int *tie);
int pat_heap_pop_min(pat_heap *heap, double *t, int *tie);
/* Changes the key of id, which must be in the heap, in place: decrease or
 * increase. */
void pat_heap_update(pat_heap *heap, int id, double t, int tie);
/* Removes id; nothing happens if it is not in the heap. */
void pat_heap_remove(pat_heap *heap, int id);
/* 1 if id (any int) is in the heap, else 0. */
int pat_heap_contains(const pat_heap *heap, int id);
/* The number of ids in the heap. */
int pat_heap_size(const pat_heap *heap);

#endif
