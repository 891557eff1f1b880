/*
 * pipeline: the pipelined chain reduction (Marendic 2016, Algorithm 5).
 *
 * Idea.  The ranks form a chain ending at the root and the message is cut
 * into N segments (segment s = [s count / N, (s + 1) count / N), as
 * src/core/tree.c cuts them).  With v = rank - root (mod P), rank P - 1
 * sends segment 0, then 1, ... to rank P - 2; every rank v > 0 receives
 * segment s from v + 1 (in round P - 2 - v + s), combines it with its own
 * and sends it to v - 1 (round P - 1 - v + s), so while a rank combines
 * segment s the next one is already arriving and the previous one leaves:
 * after P - 1 hops the segments reach the root one after the other.  The
 * builder lists each rank's events and pat_tree_emit_segments picks the
 * slots: a receive lands in one temporary and the combine writes there, so
 * a rank needs one temporary and no copy (the root receives into its
 * receive buffer; in place it copies each segment's result there once).
 * P - 2 + N rounds; 3 N operations per rank.
 *
 * Cost (the byte model of pat_schedule_simulate, balanced arrivals).  For
 * m bytes a segment holds b = m / N bytes; its message costs
 * t = alpha + b beta on the sender's send port and the receiver's receive
 * port, its combine c = b gamma on the receiver's processor.  Segment 0
 * crosses P - 1 hops, a message then a combine each; behind it the
 * slowest resource of a rank, its ports (t per segment) or its processor
 * (c), lets one more segment through per max(t, c):
 *
 *   T(N) = (P - 1) (t + c) + (N - 1) max(t, c).
 *
 * The simulator gives exactly this (tests/unit/test_pipeline.c: relative
 * error below 1e-9 when N divides count; otherwise the segments differ by
 * one element and so do the times, slightly).  Expanded, where t >= c:
 * T = (P + N - 2) alpha + m beta + ((P - 2) beta + (P - 1) gamma) m / N,
 * least at N_A = sqrt(((P - 2) beta + (P - 1) gamma) m / alpha); where
 * t < c (possible only for gamma > beta, N < N_B = m (gamma - beta) /
 * alpha) T = (P - 1) alpha + m gamma + ((P - 1) beta + (P - 2) gamma) m / N
 * decreases with N.  T is therefore unimodal with its minimum at
 * N* = max(N_A, N_B).  The root receives and combines all m bytes, so
 * T > m max(beta, gamma) for any N; at N_A (beta >= gamma) T is
 * m beta + 2 sqrt(alpha ((P - 2) beta + (P - 1) gamma) m) + (P - 2) alpha,
 * against binomial's ceil(log2 P) (alpha + m (beta + gamma)): the
 * pipeline wins for large m, and for small m, a chain of P - 1 steps, it
 * is much slower than a tree.
 *
 * The executor and the simulator.  The executor posts a receive of a later
 * round than its earliest unfinished one only while fewer than
 * PAT_REDUCE_MAX_OUTSTANDING (default 1) receives are in flight, and the
 * simulator posts them the same way.  On a chain the bound costs nothing:
 * a rank receives from one peer whose sends leave one at a time, and the
 * receive of segment s + 1 is posted the moment segment s has arrived,
 * which is when its sender can start it; so no port ever carries two
 * messages at once and the simulator's bandwidth sharing never applies.
 * The leaf, whose segments are all ready at once, posts at most
 * PAT_REDUCE_MAX_SENDS (default 4) of them ahead: posting all 64 flooded
 * its parent on real Open MPI (1.11-1.44x Open MPI's chain at 4 MiB,
 * 0.98-1.04x with the bound); in the model a message waits for its
 * receive anyway, so the bound changes no simulated time here.
 *
 * Root and non-commutative ops.  A commutative op uses the chain above.  A
 * non-commutative one keeps rank order: with root 0 the chain is the same
 * one over ranks P - 1 -> ... -> 0 (each rank: mine (op) partial after);
 * with root P - 1 it is 0 -> 1 -> ... -> P - 1 (partial before (op) mine:
 * a rank copies its own segment into a temporary first, as tree.c does);
 * with 0 < root < P - 1 the left chain 0 -> ... -> root - 1 (L = root
 * ranks) and the right chain P - 1 -> ... -> root + 1 (R = P - 1 - root
 * ranks) both end at the root, the shorter one shifted by |L - R| rounds
 * so that both deliver segment s in round max(L, R) - 1 + s, and the root
 * computes left (op) (x_root (op) right): x_0 (op) ... (op) x_{P-1}.  The
 * root then takes two messages and two combines per segment, so
 *
 *   T(N) ~ (D - 1) (t + c) + 2 N max(t, c) + c,   D = max(L, R),
 *
 * an estimate only, for which chain's segment takes the root's receive
 * port first depends on timing.  The executor posts the receives of both
 * chains for the earliest round and at most one more, so the streams
 * alternate (unless MPI delivers the sends eagerly); the simulator posts
 * every receive at once and gives the port to messages in posting order,
 * so a side whose leaf is next to the root sends all its segments first.
 * The simulator takes 0.58 to 1.34 times the estimate (P <= 20, N <= 64,
 * the CURIE-like model and one with gamma = 5 beta).  Automatic N
 * minimises the estimate the same way: N_A = sqrt(((D - 1) (beta + gamma)
 * + gamma) m / (2 alpha)), N_B as above.
 *
 * Arrivals.  A chain absorbs a late rank by how far it sits from the
 * leaves: rank r's first event (its first receive, at a leaf its first
 * send) is due in round k_r, k_r (t + c) after the calls start when all
 * arrive at once; arriving d_r later than the earliest rank, it makes
 * the segments flow from it on d_r - k_r (t + c) later, so
 *
 *   T(arrivals) = max(T, max_r (d_r + T - k_r (t + c))):
 *
 * the leaf late (k = 0) adds all of its delay, the root of a commutative
 * chain (k = P - 2) arrives up to P - 2 hops late for free.  The
 * simulator gives exactly this for one late rank on the chain shapes,
 * within 0.02% for random arrivals of every rank, and stays within the
 * split chains' balanced range (tests/unit/test_pipeline.c); the
 * old estimate, T plus the latest arrival, was up to 1.9x the simulated
 * time.  auto weighs pipeline with it (a late root or near-root rank is
 * what pipeline absorbs best).
 *
 * Segment count.  PAT_REDUCE_SEGMENTS = N >= 1 fixes it (at most count:
 * every segment holds at least one element).  0 or unset: automatic, the
 * better of the two integers around N* under params->model (its alpha,
 * beta, gamma and elem_size), clamped to [1, min(count,
 * PAT_MAX_SEGMENTS = 16384)].  Without a model (all zero: the
 * dispatcher fills it only for calls told arrival times and for
 * algorithms that plan with them) the model of PAT_REDUCE_MODEL stands in
 * if one is configured, else the CURIE-like model of DESIGN.md (alpha
 * 2.66 us, beta 4.8179e-10 s/B, gamma 1.6654e-10 s/B).  With beta = gamma
 * = 0 (a constant cost per message, as a told round cost gives) N = 1.
 * The builder reads only params and the configuration, so every rank
 * builds the same schedule.  Count 0: no operation at all; P = 1: the
 * root copies its data.
 *
 * Tunables: PAT_REDUCE_SEGMENTS (a core variable, shared with clairvoyant).
 */
#include <math.h>
#include <stdlib.h>

#include "pipeline/pipeline.h"

/* ---- the chains ---------------------------------------------------------- */

/* One rank's place in a chain: its children's partials arrive, segment s
 * of child k in round recv_round[k] + s, and it sends segment s to its
 * parent in round send_round + s. */
typedef struct role {
  int nchild;
  int child[2];
  pat_tree_kind kind[2];
  int recv_round[2];
  int parent; /* -1 at the root */
  int send_round;
} role;

static void add_child(role *ro, int peer, pat_tree_kind kind, int round) {
  ro->child[ro->nchild] = peer;
  ro->kind[ro->nchild] = kind;
  ro->recv_round[ro->nchild] = round;
  ro->nchild++;
}

/* A member at distance v >= 1 from the root of a chain of n ranks whose
 * rounds are shifted by off: the leaf (v = n) sends segment s in round
 * off + s, and every hop adds one round. */
static void member(role *ro, int v, int n, int off, int child,
                   pat_tree_kind kind, int parent) {
  if (v < n)
    add_child(ro, child, kind, off + n - 1 - v);
  ro->parent = parent;
  ro->send_round = off + n - v;
}

/* Commutative op: one chain over v = rank - root (mod P), from v = P - 1
 * down to v = 0, the root. */
static role role_commutative(int P, int root, int r) {
  role ro = {.nchild = 0, .parent = -1};
  int v = (r - root + P) % P;
  if (v == 0 && P > 1)
    add_child(&ro, (r + 1) % P, PAT_TREE_RECV_AFTER, P - 2);
  else if (v > 0)
    member(&ro, v, P - 1, 0, (r + 1) % P, PAT_TREE_RECV_AFTER, (r - 1 + P) % P);
  return ro;
}

/* Non-commutative op: rank order.  The left chain 0 -> 1 -> ... -> root-1
 * (L = root ranks, each receiving the partial of the ranks before it) and
 * the right chain P-1 -> ... -> root+1 (R = P - 1 - root ranks, receiving
 * the partial of the ranks after it) both end at the root; the shorter one
 * is shifted by |L - R| rounds so that both deliver segment s in round
 * max(L, R) - 1 + s.  The root receives the right partial first:
 * x_root (op) right, then left (op) that. */
static role role_in_order(int P, int root, int r) {
  role ro = {.nchild = 0, .parent = -1};
  int L = root, R = P - 1 - root, D = L > R ? L : R;
  if (r == root) {
    if (R > 0)
      add_child(&ro, r + 1, PAT_TREE_RECV_AFTER, D - 1);
    if (L > 0)
      add_child(&ro, r - 1, PAT_TREE_RECV_BEFORE, D - 1);
  } else if (r < root) {
    member(&ro, root - r, L, D - L, r - 1, PAT_TREE_RECV_BEFORE, r + 1);
  } else {
    member(&ro, r - root, R, D - R, r + 1, PAT_TREE_RECV_AFTER, r - 1);
  }
  return ro;
}

/* rank's events for nseg segments, in round order: per segment its
 * receives, then its send. */
static int events_of(const role *ro, int nseg, pat_tree_event *ev) {
  int n = 0;
  for (int s = 0; s < nseg; s++) {
    for (int k = 0; k < ro->nchild; k++)
      ev[n++] = (pat_tree_event){.kind = ro->kind[k],
                                 .round = ro->recv_round[k] + s,
                                 .peer = ro->child[k],
                                 .seg = s};
    if (ro->parent >= 0)
      ev[n++] = (pat_tree_event){.kind = PAT_TREE_SEND,
                                 .round = ro->send_round + s,
                                 .peer = ro->parent,
                                 .seg = s};
  }
  return n;
}

int pat_pipeline_build_segments(const pat_sched_params *p, int nseg, int rank,
                                pat_schedule *sched) {
  int P, err = PAT_SUCCESS;
  pat_tree_event *ev = NULL;
  if (p == NULL || sched == NULL || nseg < 1 || rank < -1 ||
      rank >= p->nranks) {
    err = PAT_ERR_INVALID_ARG;
    goto out;
  }
  P = p->nranks;
  if (p->count == 0) /* nothing to move: empty programs */
    goto out;
  if (nseg > p->count)
    nseg = p->count;
  ev = malloc((size_t)2 * (size_t)nseg * sizeof *ev);
  if (ev == NULL) {
    err = PAT_ERR_NO_MEMORY;
    goto out;
  }
  for (int r = rank < 0 ? 0 : rank; err == PAT_SUCCESS && r < P; r++) {
    role ro = p->commutative ? role_commutative(P, p->root, r)
                             : role_in_order(P, p->root, r);
    err =
        pat_tree_emit_segments(sched, p, r, nseg, ev, events_of(&ro, nseg, ev));
    if (rank >= 0)
      break;
  }
out:
  free(ev);
  return err;
}

/* ---- cost and segment count ---------------------------------------------- */

static int model_usable(const pat_model *m) {
  return isfinite(m->alpha) && isfinite(m->beta) && isfinite(m->gamma) &&
         m->alpha >= 0 && m->beta >= 0 && m->gamma >= 0 &&
         m->alpha + m->beta + m->gamma > 0;
}

/* Non-commutative op with the root inside: two chains meet at the root. */
static int is_split(const pat_sched_params *p) {
  return !p->commutative && p->root > 0 && p->root < p->nranks - 1;
}

/* The longer chain's length when the chains meet at the root. */
static int split_depth(const pat_sched_params *p) {
  int L = p->root, R = p->nranks - 1 - p->root;
  return L > R ? L : R;
}

double pat_pipeline_estimate(const pat_sched_params *p, const pat_model *model,
                             int nseg) {
  const pat_model *m = model != NULL ? model : &p->model;
  double b = (double)p->count * p->elem_size / nseg;
  double t = m->alpha + b * m->beta, c = b * m->gamma;
  double slow = t > c ? t : c, T = 0;
  if (p->nranks > 1 && !is_split(p))
    T = (p->nranks - 1) * (t + c) + (nseg - 1) * slow;
  else if (p->nranks > 1)
    T = (split_depth(p) - 1) * (t + c) + 2.0 * nseg * slow + c;
  return T;
}

/* The real N minimising the formula: T = A N + B / N + const where
 * alpha + b beta >= b gamma (b = bytes / N), decreasing in N below
 * N_b = bytes (gamma - beta) / alpha; HUGE_VAL without alpha. */
static double optimum(const pat_sched_params *p, const pat_model *m) {
  double bytes = (double)p->count * p->elem_size, A, B, n_a, n_b = 0;
  if (is_split(p)) {
    A = 2 * m->alpha;
    B = ((split_depth(p) - 1) * (m->beta + m->gamma) + m->gamma) * bytes;
  } else {
    A = m->alpha;
    B = ((p->nranks - 2) * m->beta + (p->nranks - 1) * m->gamma) * bytes;
  }
  if (!(B > 0))
    return 1;
  if (!(A > 0))
    return HUGE_VAL;
  n_a = sqrt(B / A);
  if (m->gamma > m->beta)
    n_b = bytes * (m->gamma - m->beta) / m->alpha;
  return n_a > n_b ? n_a : n_b;
}

int pat_pipeline_segments(const pat_sched_params *p, int configured) {
  const pat_model *m = model_usable(&p->model) ? &p->model : &pat_model_curie;
  int most = p->count < PAT_MAX_SEGMENTS ? p->count : PAT_MAX_SEGMENTS;
  int n = 1;
  double opt;
  if (p->count <= 0) {
    n = 0;
  } else if (configured > 0) {
    n = configured < p->count ? configured : p->count;
  } else if (p->nranks > 1) {
    /* T is unimodal in N: the better of the two integers around the
     * optimum, clamped (ties: fewer segments) */
    opt = optimum(p, m);
    if (!(opt < most)) {
      n = most;
    } else if (opt > 1) {
      int lo = (int)floor(opt), hi = lo + 1 < most ? lo + 1 : most;
      n = pat_pipeline_estimate(p, m, hi) < pat_pipeline_estimate(p, m, lo)
              ? hi
              : lo;
    }
  }
  return n;
}

/* ---- the row ------------------------------------------------------------ */

/* The segment count comes from params and the configuration only, so
 * every rank builds the same schedule.  A call without a model (all zero)
 * plans with PAT_REDUCE_MODEL's when one is configured. */
static int pipeline_build(const pat_sched_params *p, int rank,
                          pat_schedule *sched) {
  const pat_config *cfg = pat_config_get();
  pat_sched_params plan = *p;
  int nseg;
  if (!model_usable(&plan.model))
    plan.model = *pat_config_model(cfg);
  nseg = pat_pipeline_segments(&plan, cfg->segments);
  return pat_pipeline_build_segments(p, nseg > 0 ? nseg : 1, rank, sched);
}

/* Rank r's slack in rounds (see "Arrivals"): the round of its first
 * event, its first receive's or, at a leaf, its first send's. */
static int slack_rounds(const pat_sched_params *p, int r) {
  role ro = p->commutative ? role_commutative(p->nranks, p->root, r)
                           : role_in_order(p->nranks, p->root, r);
  int first = ro.parent >= 0 ? ro.send_round : 0;
  for (int k = 0; k < ro.nchild; k++)
    first = k == 0 || ro.recv_round[k] < first ? ro.recv_round[k] : first;
  return first;
}

double pat_pipeline_estimate_arrivals(const pat_sched_params *p,
                                      const pat_model *model, int nseg) {
  const pat_model *m = model != NULL ? model : &p->model;
  double T = pat_pipeline_estimate(p, model, nseg), late = T;
  double b = (double)p->count * p->elem_size / nseg;
  double hop = m->alpha + b * (m->beta + m->gamma);
  double first = pat_sched_first_arrival(p);
  if (p->arrivals == NULL || p->nranks < 2 || p->count <= 0)
    return T;
  for (int r = 0; r < p->nranks; r++) {
    double due = p->arrivals[r] - first + T - slack_rounds(p, r) * hop;
    late = due > late ? due : late;
  }
  return late;
}

/* The header's estimate ("Arrivals") at the builder's segment count. */
static double pipeline_estimate(const pat_sched_params *p) {
  pat_sched_params plan = *p;
  int nseg;
  if (!model_usable(&plan.model))
    plan.model = *pat_config_model(pat_config_get());
  nseg = pat_pipeline_segments(&plan, pat_config_get()->segments);
  return pat_pipeline_estimate_arrivals(&plan, NULL, nseg > 0 ? nseg : 1);
}

const pat_alg_row pat_alg_pipeline = {
    .id = PAT_REDUCE_ALG_PIPELINE,
    .name = "pipeline",
    .description = "pipelined chain ending at the root, the message cut in "
                   "segments (thesis Alg. 5); rank order for "
                   "non-commutative ops",
    .build = pipeline_build,
    .estimate = pipeline_estimate,
    .arrivals_delay = 1,
    .fallback = PAT_REDUCE_ALG_PIPELINE,
    .uses = PAT_SCOPE_BIT(PAT_SCOPE_MODEL) | PAT_SCOPE_BIT(PAT_SCOPE_SEGMENTS)};
