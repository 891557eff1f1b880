/*
 * Promela model of localredirect's small-message protocol (issue 16), for
 * SPIN: the design the C code is to follow, checked before it is written.
 * Same line of positions 0..N-1 and the same conversations as
 * localredirect.pml, but the partial travels with the announcement: a
 * ready holder sends EAGER(lo, data) to its target at once, without
 * waiting for OK, and the target accepts it (OK) or, having gone itself,
 * rejects it (REDIRECT); a rejected sender is a holder again and sends to
 * the new target.  A merge costs one message on the critical path
 * instead of three or four (DONE(1), OK, MSG_LEFT + SEND).
 *
 * Messages (one control channel per ordered pair, FIFO; the partial's
 * interval [lo, hi] stands for its data):
 *   left -> target  DONE(0)       "I am here" (not ready yet)
 *                   EAGER(lo, hi) my partial: the conversation's last
 *                                 message from the left
 *                   DONE(1)       "nothing more comes": sent after a
 *                                 REDIRECT when no EAGER was sent
 *   target -> left  ACK           "I am here" (answer to DONE(0))
 *                   OK            "your data is merged" (final)
 *                   REDIRECT(t)   "I am gone: talk to t" (final; an EAGER
 *                                 that crossed it is dropped)
 * Rules:
 *  - a holder that becomes ready (its plan done, or its target present and
 *    its left silent: skip) sends EAGER to its target; until the answer it
 *    is "out": EAGER from its own left waits (merging it would change a
 *    partial already sent);
 *  - OK: the holder is gone; a waiting or later left is redirected to its
 *    target (and a waiting EAGER dropped: the left sends it there);
 *  - REDIRECT(t): the holder holds again, merges a waiting EAGER (OK), and
 *    starts a conversation with t (EAGER at once if ready, else DONE(0));
 *    if it had sent no EAGER to the old target it sends DONE(1), so the
 *    old target knows nothing more comes;
 *  - a holder not out merges every EAGER from its left and answers OK;
 *  - a gone process answers its left's first message with REDIRECT and
 *    waits for the conversation's last message (EAGER or DONE(1)).
 * The skip rule (patience) may fire at any moment its conditions hold.
 *
 * Checked, for N = 3..5: no deadlock (every process reaches its end), every
 * contribution merged exactly once and in position order (a merge asserts
 * the incoming interval is the one just left; position N-1 ends with
 * [0, N-1]; N - 1 merges in all), nothing left over (every channel empty
 * at the end).
 *
 * Build: spin -a -DN=4 localredirect_eager.pml && cc -O2 -o pan pan.c && ./pan
 */
#ifndef N
#define N 4
#endif
#define LAST (N - 1)

/* Seeded bugs (tests/spin/run_spin.sh):
 * MUTANT 1: a gone process drops an EAGER without redirecting its sender;
 * MUTANT 2: after a REDIRECT, no DONE(1) is sent when no EAGER was;
 * MUTANT 3: a holder that is out merges its left's EAGER at once. */
#ifndef MUTANT
#define MUTANT 0
#endif

mtype = { DONE, EAGER, ACK, OK, REDIRECT };

/* at most two messages per conversation and direction */
chan ctl[N * N] = [2] of { mtype, byte, byte };

byte nfinished = 0;
byte nmerged = 0;

proctype position(byte pos) {
  byte lo = pos, plan, q, lidx, v, w, tgt = 0;
  bit ready = 0, out = 0, gone = 0, finished = 0, changed;
  /* the conversation with the left neighbour, position lo - 1 */
  bit l_started, l_closed, l_answered, l_final, l_wait;
  byte in_lo, in_hi;
  /* the conversation with the target */
  bit t_present, t_eager;
  mtype kind;

  q = LAST - pos;
  plan = 1;
  if
  :: q == 0 -> plan = N
  :: else ->
     do
     :: (q % 2) == 0 -> q = q / 2; plan = plan * 2
     :: else -> break
     od
  fi;
  ready = (pos != LAST && (lo == 0 || pos - lo + 1 >= plan));
  l_started = 0; l_closed = 0; l_answered = 0; l_final = 0; l_wait = 0;
  if
  :: lo > 0 -> lidx = (lo - 1) * N + pos
  :: else -> lidx = 0
  fi;
  if
  :: pos != LAST ->
     tgt = pos + 1; t_present = 0; t_eager = ready;
     if
     :: ready -> out = 1; ctl[pos * N + tgt]!EAGER, lo, pos
     :: else -> ctl[pos * N + tgt]!DONE, 0, 0
     fi
  :: else -> skip
  fi;

  do
  :: changed = 1;
     do
     :: changed ->
        changed = 0;
        if
        :: /* merge the left's partial: held, not out */
           !gone && !out && l_wait ->
           assert(in_hi == lo - 1);
           lo = in_lo; nmerged++;
           ctl[pos * N + in_hi]!OK, 0, 0;
           l_started = 0; l_closed = 0; l_answered = 0; l_final = 0;
           l_wait = 0;
           if
           :: lo > 0 -> lidx = (lo - 1) * N + pos
           :: else -> lidx = 0
           fi;
           changed = 1
        :: /* ready: the plan is done */
           !gone && !out && !ready && pos != LAST &&
           (lo == 0 || pos - lo + 1 >= plan) ->
           ready = 1; changed = 1
        :: /* send right */
           !gone && !out && ready && !t_eager ->
           out = 1; t_eager = 1;
           ctl[pos * N + tgt]!EAGER, lo, pos; changed = 1
        :: /* gone: redirect the left (dropping a waiting EAGER) */
           gone && lo > 0 && l_started && !l_final ->
           ctl[pos * N + lo - 1]!REDIRECT, tgt, 0;
           l_final = 1; l_wait = 0; changed = 1
        :: /* present: acknowledge the left's DONE(0) */
           !gone && lo > 0 && l_started && !l_answered && !l_closed ->
           ctl[pos * N + lo - 1]!ACK, 0, 0;
           l_answered = 1; changed = 1
        :: else -> skip
        fi
     :: else -> break
     od;
     if
     :: pos == LAST -> finished = (lo == 0)
     :: else -> finished = gone && (lo == 0 || (l_final && l_closed))
     fi;
     if
     :: finished -> break
     :: else -> skip
     fi;
     if
     :: /* the left: until its conversation's last message */
        lo > 0 && !l_closed && nempty(ctl[lidx]) ->
        ctl[lidx]?kind, v, w;
        if
        :: kind == DONE && v == 0 -> assert(!l_started); l_started = 1
        :: kind == DONE && v == 1 -> assert(l_started && l_final); l_closed = 1
        :: kind == EAGER ->
           l_started = 1; l_closed = 1;
           if
           :: gone && l_final -> skip /* crossed our REDIRECT: dropped */
           :: gone && !l_final && MUTANT == 1 -> l_final = 1 /* dropped */
           :: else -> l_wait = 1; in_lo = v; in_hi = w
           fi;
           if
           :: MUTANT == 3 && out && l_wait && !gone ->
              assert(in_hi == lo - 1);
              lo = in_lo; nmerged++;
              ctl[pos * N + in_hi]!OK, 0, 0;
              l_started = 0; l_closed = 0; l_answered = 0; l_final = 0;
              l_wait = 0;
              if
              :: lo > 0 -> lidx = (lo - 1) * N + pos
              :: else -> lidx = 0
              fi
           :: else -> skip
           fi
        :: else -> assert(false)
        fi
     :: /* the target: until our data is merged */
        pos != LAST && !gone && nempty(ctl[tgt * N + pos]) ->
        ctl[tgt * N + pos]?kind, v, w;
        if
        :: kind == ACK -> t_present = 1
        :: kind == OK -> assert(out); out = 0; gone = 1
        :: kind == REDIRECT ->
           assert(v > tgt);
           if
           :: !t_eager && MUTANT != 2 -> ctl[pos * N + tgt]!DONE, 1, 0
           :: else -> skip
           fi;
           out = 0;
           tgt = v; t_present = 0; t_eager = 0;
           if
           :: ready && !l_wait -> t_eager = 1; out = 1;
              ctl[pos * N + tgt]!EAGER, lo, pos
           :: ready && l_wait -> skip /* merge first, then send */
           :: else -> ctl[pos * N + tgt]!DONE, 0, 0
           fi
        :: else -> assert(false)
        fi
     :: /* skip a late left: the target is here, the left silent */
        !gone && !out && !ready && pos != LAST && t_present && lo > 0 &&
        !l_started -> ready = 1
     fi
  od;
  assert(pos != LAST || lo == 0);
  nfinished++
}

init {
  byte p;
  atomic {
    p = 0;
    do
    :: p < N -> run position(p); p++
    :: else -> break
    od
  }
  (nfinished == N);
  assert(nmerged == N - 1);
  p = 0;
  do
  :: p < N * N -> assert(len(ctl[p]) == 0); p++
  :: else -> break
  od
}
