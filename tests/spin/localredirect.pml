/*
 * Promela model of the localredirect protocol (src/localredirect/), for
 * SPIN.  One process per position 0..N-1 of the line; position N-1 ends
 * with the result.  Every state variable, message and rule of the C code
 * appears here under the same name; the two rules the C code gates on
 * patience (skip a late left, absorb the left while the target is silent)
 * may fire at any moment their other conditions hold, so every patience
 * and every arrival order is covered.  SPIN interleaves the processes and
 * the asynchronous, per-pair FIFO channels (MPI's non-overtaking rule for
 * one source, tag and communicator) in every possible way.
 *
 * Checked:
 *  - no deadlock: every process reaches its end (SPIN's invalid end
 *    states; run without -E);
 *  - every contribution combined exactly once, in position order: a
 *    partial carries its interval [lo, hi]; a receiver asserts it is the
 *    interval just left of its own, and position N-1 ends with [0, N-1];
 *  - each position sends its data exactly once (N-1 senders);
 *  - nothing is left over: when all processes have finished, every
 *    channel is empty, so no message of a call can be consumed by the next
 *    one (the C code gives every call its own tags).
 *
 * Build: spin -a -DN=4 localredirect.pml && cc -O2 -o pan pan.c && ./pan
 */
#ifndef N
#define N 4
#endif
#define LAST (N - 1)

/* Seeded bugs, to show the check finds them (tests/spin/run_spin.sh):
 * MUTANT 1: a process that has sent its data ignores its left neighbour
 *           instead of redirecting it;
 * MUTANT 2: after a REDIRECT, the DONE(1) promised to the old target is
 *           never sent;
 * MUTANT 3: a holder sends right while a receive from its left is posted. */
#ifndef MUTANT
#define MUTANT 0
#endif

mtype = { DONE, OK, ACK, REDIRECT, MSG_LEFT };

/* ctl[from * N + to]: at most three messages per conversation and
 * direction (two DONEs and MSG_LEFT, or ACK and OK/REDIRECT) */
chan ctl[N * N] = [3] of { mtype, byte };
chan dat[N * N] = [1] of { byte, byte }; /* SEND: the partial's [lo, hi] */

byte nfinished = 0;
byte nsent = 0;

inline start_left() {
  l_started = 0; l_ready = 0; l_answered = 0; l_oked = 0; l_final = 0;
  l_msgleft = 0; l_data = 0;
  if
  :: lo > 0 -> lidx = (lo - 1) * N + pos
  :: else -> lidx = 0
  fi
}

inline start_target(t) {
  tgt = t; t_present = 0; t_ok = 0; t_ready_sent = ready;
  ctl[pos * N + tgt]!DONE, ready
}

inline make_ready() {
  ready = 1;
  if
  :: !t_ready_sent -> t_ready_sent = 1; ctl[pos * N + tgt]!DONE, 1
  :: else -> skip
  fi;
  i = 0;
  do
  :: i < nowed -> ctl[pos * N + owed[i]]!DONE, 1; i++
  :: else -> break
  od;
  nowed = 0
}

inline send_ok() {
  ctl[pos * N + lo - 1]!OK, 0;
  l_oked = 1; l_final = 1; l_answered = 1
}

proctype position(byte pos) {
  byte lo = pos, plan, q, lidx, i, k, v, in_lo, in_hi, tgt = 0;
  bit ready = 0, gone = 0, finished = 0, changed;
  bit l_started, l_ready, l_answered, l_oked, l_final, l_msgleft, l_data;
  byte l_newlo;
  bit t_ready_sent, t_present, t_ok;
  byte owed[N];
  byte nowed = 0;
  mtype kind;

  /* planned interval size: 2^(trailing zeros of N-1-pos), all for N-1 */
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
  start_left();
  if
  :: pos != LAST -> start_target(pos + 1)
  :: else -> skip
  fi;

  do
  :: /* progress: the deterministic rules, in the C code's order */
     changed = 1;
     do
     :: changed ->
        changed = 0;
        if
        :: !gone && l_msgleft && l_data ->
           assert(in_hi == lo - 1 && in_lo == l_newlo);
           lo = l_newlo; start_left(); changed = 1
        :: else ->
           if
           :: !gone && !ready && pos != LAST &&
              (lo == 0 || pos - lo + 1 >= plan) -> make_ready(); changed = 1
           :: else ->
              if
              :: !gone && lo > 0 && l_started && !l_final &&
                 (pos == LAST || !ready) -> send_ok(); changed = 1
              :: else ->
                 if
                 :: !gone && ready && t_ok && (!l_oked || MUTANT == 3) ->
                    ctl[pos * N + tgt]!MSG_LEFT, lo;
                    dat[pos * N + tgt]!lo, pos;
                    gone = 1; nsent++; changed = 1
                 :: else ->
                    if
                    :: lo > 0 && l_started && !l_final && gone &&
                       MUTANT != 1 ->
                       ctl[pos * N + lo - 1]!REDIRECT, tgt;
                       l_final = 1; l_answered = 1; changed = 1
                    :: else ->
                       if
                       :: lo > 0 && l_started && !l_answered ->
                          ctl[pos * N + lo - 1]!ACK, 0;
                          l_answered = 1; changed = 1
                       :: else -> skip
                       fi
                    fi
                 fi
              fi
           fi
        fi
     :: else -> break
     od;
     if
     :: pos == LAST -> finished = (lo == 0)
     :: else -> finished = gone &&
                (lo == 0 || (l_final && l_ready && !l_oked))
     fi;
     if
     :: finished -> break
     :: else -> skip
     fi;
     /* wait for an event, or let a patience-gated rule fire */
     if
     :: lo > 0 && (!l_started || !l_ready || (l_oked && !l_msgleft)) &&
        nempty(ctl[lidx]) ->
        ctl[lidx]?kind, v;
        if
        :: kind == DONE -> l_started = 1; if :: v -> l_ready = 1 :: else -> skip fi
        :: kind == MSG_LEFT -> assert(l_oked); l_msgleft = 1; l_newlo = v
        :: else -> assert(false)
        fi
     :: pos != LAST && !t_ok && nempty(ctl[tgt * N + pos]) ->
        ctl[tgt * N + pos]?kind, v;
        if
        :: kind == ACK -> t_present = 1
        :: kind == OK -> t_present = 1; t_ok = 1
        :: kind == REDIRECT ->
           assert(v > tgt && !gone);
           if
           :: !t_ready_sent && MUTANT != 2 -> owed[nowed] = tgt; nowed++
           :: else -> skip
           fi;
           start_target(v)
        :: else -> assert(false)
        fi
     :: lo > 0 && l_oked && !l_data && nempty(dat[lidx]) ->
        assert(!gone);
        dat[lidx]?in_lo, in_hi; l_data = 1
     :: /* skip a late left */
        !gone && !ready && pos != LAST && t_present && lo > 0 &&
        !l_started -> make_ready()
     :: /* absorb the left while the target is silent */
        !gone && pos != LAST && ready && lo > 0 && l_started && l_ready &&
        !l_final && !t_ok -> send_ok()
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
  assert(nsent == N - 1);
  p = 0;
  do
  :: p < N * N -> assert(len(ctl[p]) == 0 && len(dat[p]) == 0); p++
  :: else -> break
  od
}
