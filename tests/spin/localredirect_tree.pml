/*
 * Promela model of localredirect's tree protocol (issue 16: small messages,
 * commutative ops), for SPIN: the design src/localredirect/tree.c follows,
 * checked before the C code.
 *
 * Ranks are virtual (v = rank - root mod P): the binomial tree rooted at
 * v = 0, parent(v) = v with its lowest set bit cleared.  Every rank
 * gathers its children's partials as they come (any order: the op is
 * commutative), then sends one PART to its parent.  A rank other than the
 * root may give up on a child whose PART has not come (its patience ran
 * out): it lists the child in its own PART, keeps waiting for the child's
 * PART after its own has gone, and forwards it unchanged to the root (FWD).
 * The root never gives up; it learns from every list it receives which
 * ranks owe it a FWD (the parent of each listed child) and waits for
 * exactly those.  A late rank's data thus reaches the root in two hops
 * after it arrives, and no rank waits for it but its parent (off the
 * critical path) and the root.
 *
 * Messages (one FIFO channel per sender for each kind, as MPI's
 * non-overtaking order gives for one (source, tag) on one receiver; a
 * message is (call, contributions, list), bitsets over virtual ranks):
 *   child -> parent  PART(m, l)  my partial (contributions m) and the
 *                                children given up in my subtree (l)
 *   parent -> root   FWD(m, l)   a given-up child's PART, forwarded as is
 * Any rank's choice to give up is free (any child, at any moment before
 * its own PART goes): SPIN explores every patience.
 *
 * Checked, for N = 3..5 and two calls back to back (no barrier; a rank may
 * run into the second call while others are in the first), and for N = 8
 * and one call (-DCALLS=1: 47 million states, a minute, 3 GB), where a
 * given-up rank can have given up children of its own (a FWD carries a
 * list) and one parent can forward two children: no deadlock, every
 * message received in the call that sent it, every contribution exactly
 * once at the root in every call, nothing left over (every channel empty
 * at the end).  (N = 3 has no rank with a child but the root; N = 6 with
 * two calls: 30 million states, 31 s.)
 *
 * Build: spin -a -DN=4 localredirect_tree.pml && cc -O2 -o pan pan.c && ./pan
 */
#ifndef N
#define N 4
#endif
#ifndef CALLS
#define CALLS 2
#endif
#define ALL ((1 << N) - 1)

/* Seeded bugs (tests/spin/run_spin.sh):
 * MUTANT 1: a rank does not forward a given-up child's PART;
 * MUTANT 2: a rank gives up on a child without listing it;
 * MUTANT 3: the root gives up on a child too. */
#ifndef MUTANT
#define MUTANT 0
#endif

/* indexes up to 7 are named in the gather below */
chan part[8] = [CALLS] of { byte, byte, byte };
chan fwd[8] = [8] of { byte, byte, byte };

byte nfinished = 0;

/* lowest set bit of x (x > 0) */
inline lowbit(x, out) {
  out = 1;
  do
  :: (x & out) == 0 -> out = out * 2
  :: else -> break
  od
}

/* the root takes a FWD from rank x: one of the listed children of x */
#define TAKE_FWD(x) \
  :: x < N && len(fwd[x]) > 0 && (owed & kidsof[x]) != 0 -> \
     fwd[x]?k, m, l; \
     assert(k == call); \
     e = m & owed; \
     assert(e != 0 && (e & (e - 1)) == 0 && (e & kidsof[x]) != 0); \
     assert((acc & m) == 0); \
     acc = acc | m; owed = (owed & ~e) | l

/* a rank merges child c's PART, or gives it up */
#define GATHER(c) \
  :: c < N && (pending & (1 << c)) != 0 && len(part[c]) > 0 -> \
     part[c]?k, m, l; \
     assert(k == call); \
     assert((acc & m) == 0); \
     acc = acc | m; list = list | l; pending = pending & ~(1 << c) \
  :: c < N && (pending & (1 << c)) != 0 && (v != 0 || MUTANT == 3) -> \
     given = given | (1 << c); pending = pending & ~(1 << c); \
     if \
     :: MUTANT != 2 -> list = list | (1 << c) \
     :: else -> skip \
     fi

byte kidsof[8];

proctype rank(byte v) {
  byte call = 0, acc, list, pending, given, owed, e, k, m, l, c, low;
  do
  :: call < CALLS ->
     acc = 1 << v; list = 0; pending = kidsof[v]; given = 0;
     do
     :: pending == 0 -> break
     GATHER(1)
     GATHER(2)
     GATHER(3)
     GATHER(4)
     GATHER(5)
     GATHER(6)
     GATHER(7)
     od;
     if
     :: v != 0 ->
        part[v]!call, acc, list;
        /* forward every given-up child's PART when it comes */
        c = 1;
        do
        :: c < N && (given & (1 << c)) != 0 ->
           part[c]?k, m, l;
           assert(k == call);
           if
           :: MUTANT != 1 -> fwd[v]!call, m, l
           :: else -> skip
           fi;
           c++
        :: c < N && (given & (1 << c)) == 0 -> c++
        :: c >= N -> break
        od
     :: else ->
        owed = list;
        do
        :: owed == 0 -> break
        TAKE_FWD(1)
        TAKE_FWD(2)
        TAKE_FWD(3)
        TAKE_FWD(4)
        TAKE_FWD(5)
        TAKE_FWD(6)
        TAKE_FWD(7)
        od;
        assert(acc == ALL)
     fi;
     call++
  :: else -> break
  od;
  nfinished++
}

init {
  byte v, c, low;
  atomic {
    /* the binomial tree's children: v + 2^j below v's lowest set bit
     * (every 2^j for the root), inside 0..N-1 */
    v = 0;
    do
    :: v < N ->
       kidsof[v] = 0;
       if
       :: v == 0 -> low = 8
       :: else -> lowbit(v, low)
       fi;
       c = 1;
       do
       :: c < low && v + c < N -> kidsof[v] = kidsof[v] | (1 << (v + c)); c = c * 2
       :: else -> break
       od;
       v++
    :: else -> break
    od;
    v = 0;
    do
    :: v < N -> run rank(v); v++
    :: else -> break
    od
  }
  (nfinished == N);
  v = 0;
  do
  :: v < 8 -> assert(len(part[v]) == 0 && len(fwd[v]) == 0); v++
  :: else -> break
  od
}
