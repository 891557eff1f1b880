/*
 * replay: a plan's transfers in order, run again under other arrival
 * times.  A builder that plans with predicted arrivals (clairvoyant)
 * attaches one to its schedule (pat_schedule_set_replay); auto keeps a
 * reference to it and, once the call's real arrivals are exchanged, asks
 * what the plan took under them (pat_replay_time), without planning it
 * again.
 *
 * Idea.  Each transfer moves the sender's partial of one segment into
 * the receiver's.  In plan order, a transfer starts once the sender holds
 * that segment's partial, the receiver holds its own (it has arrived) and
 * both ports are free (one send and one receive port per rank), and ends
 * a segment round d later: both partials are then the receiver's, and
 * the two ports free.  The root's last segment ends the reduction.  For
 * one segment this is the tree taking its children in the plan's order.
 *
 * Cost.  O(n) for n transfers, O(P N) memory for P ranks and N segments
 * while it runs.  The replay's memory: 12 bytes per transfer.
 *
 * Sharing.  A replay is shared by counted references (a schedule in the
 * communicator's cache and auto's pending decisions), all on the
 * communicator of one call at a time, so the count is a plain int.
 */
#include <math.h>
#include <stdlib.h>

#include "pat_internal.h"

typedef struct transfer {
  int sender, receiver, seg;
} transfer;

struct pat_replay {
  int refs;
  int nranks, root, nseg, n;
  double d;
  transfer t[]; /* n of them, in plan order */
};

pat_replay *pat_replay_alloc(int nranks, int root, int nseg, double d, int n) {
  pat_replay *r;
  if (nranks < 1 || root < 0 || root >= nranks || nseg < 1 || n < 0 ||
      !(d >= 0) || !isfinite(d))
    return NULL;
  r = malloc(sizeof *r + (size_t)n * sizeof r->t[0]);
  if (r != NULL)
    *r = (pat_replay){.refs = 1,
                      .nranks = nranks,
                      .root = root,
                      .nseg = nseg,
                      .n = n,
                      .d = d};
  return r;
}

int pat_replay_set(pat_replay *r, int i, int sender, int receiver, int seg) {
  if (r == NULL || i < 0 || i >= r->n || sender < 0 || sender >= r->nranks ||
      receiver < 0 || receiver >= r->nranks || sender == receiver || seg < 0 ||
      seg >= r->nseg)
    return PAT_ERR_INVALID_ARG;
  r->t[i] = (transfer){sender, receiver, seg};
  return PAT_SUCCESS;
}

pat_replay *pat_replay_ref(pat_replay *r) {
  if (r != NULL)
    r->refs++;
  return r;
}

void pat_replay_free(pat_replay *r) {
  if (r != NULL && --r->refs == 0)
    free(r);
}

double pat_replay_time(const pat_replay *r, const double *actual) {
  int P, S;
  double *ready, *port, done = -INFINITY, first = INFINITY;
  if (r == NULL)
    return INFINITY;
  P = r->nranks;
  S = r->nseg;
  ready = malloc((size_t)P * (size_t)S * sizeof *ready);
  port = malloc(2 * (size_t)P * sizeof *port);
  if (ready == NULL || port == NULL) {
    done = INFINITY;
    goto out;
  }
  for (int k = 0; k < P; k++) {
    double a = actual != NULL ? actual[k] : 0; /* NULL: balanced */
    if (!isfinite(a)) {
      done = INFINITY; /* no time for a plan under an unknown arrival */
      goto out;
    }
    first = a < first ? a : first;
    port[2 * k] = port[2 * k + 1] = a;
    for (int s = 0; s < S; s++)
      ready[(size_t)k * S + s] = a;
  }
  for (int i = 0; i < r->n; i++) {
    const transfer *x = &r->t[i];
    double *from = &ready[(size_t)x->sender * S + x->seg];
    double *into = &ready[(size_t)x->receiver * S + x->seg];
    double t = *from > *into ? *from : *into;
    t = port[2 * x->sender] > t ? port[2 * x->sender] : t;
    t = port[2 * x->receiver + 1] > t ? port[2 * x->receiver + 1] : t;
    *into = t + r->d;
    port[2 * x->sender] = port[2 * x->receiver + 1] = t + r->d;
  }
  for (int s = 0; s < S; s++)
    done = ready[(size_t)r->root * S + s] > done
               ? ready[(size_t)r->root * S + s]
               : done;
  done -= first;
out:
  free(ready);
  free(port);
  return done;
}
