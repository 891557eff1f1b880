/*
 * share: the one pointer every rank of a process sees.
 *
 * Idea.  SimGrid SMPI runs all simulated ranks in one process and gives
 * each its own copy of the program's global variables (privatization,
 * dlopen or mmap), those of the statically linked library too; the
 * libraries the program loads are not copied.  So in the SMPI build this
 * file alone is built as the shared library libpatreduce_share.so
 * (cmake/smpi.cmake), and its variable is the same for every rank: the
 * memo (src/core/memo.c) keeps there what ranks that compute the same
 * thing from the same inputs may share.  In every other build it is an
 * ordinary part of the library, whose globals are the process's anyway.
 *
 * Nothing else belongs here: every global added to this file is shared by
 * the simulated ranks, so it must be state that a real process's ranks
 * could share too (a process-wide cache of pure computations).
 */
#include "share/share.h"

static void *slot;

void **pat_share_slot(void) { return &slot; }
