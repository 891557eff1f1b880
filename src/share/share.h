/*
 * One pointer that every rank of a process sees, the simulated ranks of an
 * SMPI process too (src/share/share.c).  Internal, not installed.
 */
#ifndef PAT_SHARE_H
#define PAT_SHARE_H

/* The process's one slot (NULL until someone stores a pointer in it).
 * Its only user is the memo (src/core/memo.c), which keeps its list
 * there under its own lock. */
void **pat_share_slot(void);

#endif
