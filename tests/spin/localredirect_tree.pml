/*
 * Promela model of localredirect's tree protocol (issue 16: commutative
 * ops), for SPIN: the design src/localredirect/tree.c follows, checked
 * before the C code.
 *
 * Ranks are virtual (v = rank - root mod P): the binomial tree rooted at
 * v = 0, parent(v) = v with its lowest set bit cleared.  Every rank
 * gathers its children's partials as they come (any order: the op is
 * commutative), then sends one PART to its parent.  A rank other than the
 * root may give up on a child whose PART has not come (its patience ran
 * out): it lists the child in its own PART and becomes a forwarder: it
 * keeps waiting for the child's PART after its own has gone, merges it
 * with whatever else late reaches it, and sends one FWD on.  Where a FWD
 * goes: to the forwarder's parent if the parent is a forwarder too (it is
 * still in the call and merges it), else to the root.  A parent tells each
 * child that forwards which it is (ROUTE) once its own PART has gone, or,
 * for a child it gave up, when the child's PART comes: a child forwards
 * iff its PART lists a child of its own.  So many late ranks' data is
 * combined in the tree of forwarders before it reaches the root (the root
 * does not receive one FWD per late rank), and one late rank's reaches
 * the root two hops after it arrives.
 *
 * The root never gives up.  It learns forwarders from every list it
 * merges (the parents of the listed ranks) and waits for one FWD from each
 * top forwarder: one whose parent is the root or not a forwarder.  A FWD's
 * list names the forwarder's own given-up children besides the lists it
 * merged, so that the root knows a forwarder's parent forwards no later
 * than it learns of the forwarder (asserted: a forwarder newly known has
 * no child taken for a top one).
 *
 * Messages (one FIFO channel per sender for each kind and receiver, as
 * MPI's non-overtaking order gives for one (source, tag) on one receiver; a
 * message is (call, contributions, list), bitsets over virtual ranks):
 *   child -> parent      PART(m, l)  its partial, the children given up in
 *                                    its subtree
 *   parent -> child      ROUTE(r)    1: forward to me, 0: to the root
 *   forwarder -> parent  FWD(m, l)   when ROUTE said 1
 *   forwarder -> root    FWD(m, l)   a child of the root, or ROUTE said 0
 * Any rank's choice to give up is free (any child, at any moment before
 * its own PART goes): SPIN explores every patience.
 *
 * Checked, for N = 3..5 and two calls back to back (no barrier; a rank may
 * run into the second call while others are in the first), and for N = 8
 * and one call (-DCALLS=1), where forwarders chain and a given-up rank can
 * have given up children of its own: no deadlock, every message received
 * in the call that sent it, every contribution exactly once at the root in
 * every call, nothing left over (every channel empty at the end).  (N = 3
 * has no rank with a child but the root.)
 *
 * In order (-DINORDER=1: non-commutative ops).  The same messages, ranks
 * and routes; what changes is what may merge.  A rank's partial is one
 * interval of ranks, [v, e): it takes its children's PARTs in order, the
 * next one only when it starts at e, and stops (closes) at the first child
 * it gives up or whose PART is itself cut short (that child gave up one of
 * its own: it forwards); every later child is then given up too, whether
 * its PART has come or not (the C code holds one that came; here it waits
 * in its channel, which MPI's buffering is).  So a PART is the interval
 * [v, e), and a forwarder's FWD what it gathered of the rest of its
 * subtree: runs of ranks (a child's PART may be cut short by a forwarder
 * further down whose parent forwards nothing and which sends the gap to
 * the root), which the C code keeps as runs, merging neighbours as they
 * come; the root assembles its runs the same way.  Checked besides the
 * above: every PART is one interval from its sender on, and what a rank
 * forwards lies in its subtree outside its PART.
 *
 * Build: spin -a -DN=4 localredirect_tree.pml && cc -O2 -o pan pan.c && ./pan
 */
#ifndef N
#define N 4
#endif
#ifndef CALLS
#define CALLS 2
#endif
#ifndef INORDER
#define INORDER 0
#endif
#define ALL ((1 << N) - 1)

/* Seeded bugs (tests/spin/run_spin.sh):
 * MUTANT 1: a forwarder drops a given-up child's partial;
 * MUTANT 2: a rank gives up on a child without listing it;
 * MUTANT 3: the root gives up on a child too;
 * MUTANT 4: a parent that forwards nothing tells its children to forward
 *           to it;
 * MUTANT 5: the root takes every forwarder for a top one (N >= 8: the
 *           first tree with a forwarder's parent a forwarder but the root);
 * MUTANT 6 (INORDER): a rank takes any child's PART, not only the next;
 * MUTANT 7 (INORDER): a rank that gave up a child goes on merging the
 *           later ones. */
#ifndef MUTANT
#define MUTANT 0
#endif

/* indexes up to 7 are named below; one message per channel per call */
chan part[8] = [CALLS] of { byte, byte, byte };
chan fwdp[8] = [CALLS] of { byte, byte, byte };
chan fwdr[8] = [CALLS] of { byte, byte, byte };
chan route[8] = [CALLS] of { byte, byte };

byte nfinished = 0;
byte kidsof[8], par[8];

/* lowest set bit of x (x > 0) */
inline lowbit(x, out) {
  out = 1;
  do
  :: (x & out) == 0 -> out = out * 2
  :: else -> break
  od
}

/* x is one interval of ranks, [lo, lo + n) */
inline interval(x, low) {
  lowbit(x, low);
  assert(((x / low) & (x / low + 1)) == 0)
}

#if INORDER
/* a rank takes child c's PART if it starts where its partial ends (the
 * partial stays [v, e)), or gives it up; a PART cut short (c, or a
 * forwarder below it, forwards the rest of c's subtree) or a child given
 * up closes the partial: the later children are given up too (the loop in
 * rank).  The
 * root takes every PART as it comes (it assembles pieces) and gives none
 * up. */
#define GATHER(c) \
  :: atomic { c < N && (pending & (1 << c)) != 0 && len(part[c]) > 0 && \
              (v == 0 || (!closed && (c == e || MUTANT == 6 || \
                                      (MUTANT == 7 && given != 0)))) -> \
     part[c]?k, m, l; \
     assert(k == call); \
     assert((acc & m) == 0); \
     interval(m, low); \
     assert(low == (1 << c)); \
     acc = acc | m; list = list | l; pending = pending & ~(1 << c); \
     e = c; \
     do \
     :: e < N && (m & (1 << e)) != 0 -> e++ \
     :: else -> break \
     od; \
     if \
     :: (l & kidsof[c]) != 0 -> fk = fk | (1 << c) \
     :: else -> skip \
     fi; \
     /* cut short (c, or a forwarder below it, forwards the rest) */ \
     lowbit(c, low); \
     closed = v != 0 && m != (((1 << (c + low)) - (1 << c)) & ALL) } \
  :: atomic { c < N && (pending & (1 << c)) != 0 && !closed && c == e && \
              (v != 0 || MUTANT == 3) -> \
     given = given | (1 << c); pending = pending & ~(1 << c); \
     closed = (MUTANT != 7); \
     if \
     :: MUTANT != 2 -> list = list | (1 << c) \
     :: else -> skip \
     fi }
#else
/* a rank merges child c's PART, or gives it up */
#define GATHER(c) \
  :: atomic { c < N && (pending & (1 << c)) != 0 && len(part[c]) > 0 -> \
     part[c]?k, m, l; \
     assert(k == call); \
     assert((acc & m) == 0); \
     acc = acc | m; list = list | l; pending = pending & ~(1 << c); \
     if \
     :: (l & kidsof[c]) != 0 -> fk = fk | (1 << c) \
     :: else -> skip \
     fi } \
  :: atomic { c < N && (pending & (1 << c)) != 0 && (v != 0 || MUTANT == 3) -> \
     given = given | (1 << c); pending = pending & ~(1 << c); \
     if \
     :: MUTANT != 2 -> list = list | (1 << c) \
     :: else -> skip \
     fi }
#endif

/* a forwarder takes what it owes the next hop: a given-up child's PART
 * (a child that forwards too is told to forward to us), or a FWD */
#define LATE(c) \
  :: atomic { c < N && (owep & (1 << c)) != 0 && len(part[c]) > 0 -> \
     part[c]?k, m, l; \
     assert(k == call); \
     assert((facc & m) == 0); \
     if \
     :: INORDER -> interval(m, low) \
     :: else -> skip \
     fi; \
     if \
     :: MUTANT != 1 -> facc = facc | m \
     :: else -> skip \
     fi; \
     flist = flist | l; owep = owep & ~(1 << c); \
     if \
     :: (l & kidsof[c]) != 0 -> route[c]!call, 1; owef = owef | (1 << c) \
     :: else -> skip \
     fi } \
  :: atomic { c < N && (owef & (1 << c)) != 0 && len(fwdp[c]) > 0 -> \
     fwdp[c]?k, m, l; \
     assert(k == call); \
     assert((facc & m) == 0); \
     facc = facc | m; flist = flist | l; owef = owef & ~(1 << c) }

/* the root takes the FWD of top forwarder x */
#define TAKE_FWD(x) \
  :: atomic { x < N && (tops & ~got & (1 << x)) != 0 && len(fwdr[x]) > 0 -> \
     fwdr[x]?k, m, l; \
     assert(k == call); \
     assert((acc & m) == 0); \
     acc = acc | m; got = got | (1 << x); \
     absorb(l, x) }

/* the root learns the forwarders a list names (the parents of its ranks),
 * then the top forwarder of each; from is the FWD's sender (its own FWD
 * covers its chain), N for a PART */
inline absorb(lst, from) {
  x = 1;
  do
  :: x < N ->
     if
     :: (lst & (1 << x)) != 0 && (fwd & (1 << par[x])) == 0 ->
        /* no child of a forwarder newly known was taken for a top one */
        assert((tops & kidsof[par[x]]) == 0);
        fwd = fwd | (1 << par[x])
     :: else -> skip
     fi;
     x++
  :: else -> break
  od;
  x = 1;
  do
  :: x < N ->
     if
     :: (lst & (1 << x)) != 0 ->
        t = par[x];
        do
        :: par[t] != 0 && (fwd & (1 << par[t])) != 0 && MUTANT != 5 -> t = par[t]
        :: else -> break
        od;
        if
        :: t != from -> tops = tops | (1 << t)
        :: else -> skip
        fi
     :: else -> skip
     fi;
     x++
  :: else -> break
  od
}

proctype rank(byte v) {
  byte call = 0, acc, list, pending, given, fk, facc, flist, owep, owef;
  byte k, m, l, c, r, x, t, fwd, tops, got, e, closed, low;
  do
  :: call < CALLS ->
     d_step { acc = 1 << v; list = 0; pending = kidsof[v]; given = 0; fk = 0;
              e = v + 1; closed = 0 };
     do
     :: pending == 0 -> break
     :: atomic { INORDER && v != 0 && closed && pending != 0 ->
        /* the later children: given up, listed */
        given = given | pending; list = list | pending; pending = 0 }
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
        /* our PART, then tell the children that forward where to */
        atomic {
          if
          :: INORDER -> interval(acc, low); assert(low == (1 << v))
          :: else -> skip
          fi;
          part[v]!call, acc, list;
          c = 1;
          do
          :: c < N && (fk & (1 << c)) != 0 ->
             route[c]!call, given != 0 || MUTANT == 4; c++
          :: c < N && (fk & (1 << c)) == 0 -> c++
          :: c >= N -> break
          od
        };
        if
        :: given != 0 ->
           facc = 0; owep = given; owef = fk; flist = given;
           do
           :: owep == 0 && owef == 0 -> break
           LATE(1)
           LATE(2)
           LATE(3)
           LATE(4)
           LATE(5)
           LATE(6)
           LATE(7)
           od;
           /* what we forward: in our subtree, none of it in our PART
            * (not all the rest: a child's PART cut short by a forwarder
            * below it whose parent forwards nothing leaves a gap that
            * forwarder fills at the root) */
           lowbit(v, low);
           assert((facc & acc) == 0);
           assert((facc & ~(((1 << (v + low)) - (1 << v)) & ALL)) == 0);
           if
           :: par[v] == 0 -> fwdr[v]!call, facc, flist
           :: else ->
              route[v]?k, r;
              assert(k == call);
              if
              :: r != 0 -> fwdp[v]!call, facc, flist
              :: else -> fwdr[v]!call, facc, flist
              fi
           fi
        :: else -> skip
        fi
     :: else ->
        fwd = 0; tops = 0; got = 0;
        absorb(list, N);
        do
        :: (tops & ~got) == 0 -> break
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
       par[v] = v & (v - 1);
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
  :: v < 8 ->
     assert(len(part[v]) == 0 && len(fwdp[v]) == 0 && len(fwdr[v]) == 0 &&
            len(route[v]) == 0);
     v++
  :: else -> break
  od
}
