#!/bin/sh
# patmktrace's output: check_mktrace.sh PATMKTRACE
# - a header and CALLS lines of P delays, each line's smallest delay 0, no
#   negative one;
# - with NOISE 0 the ranks of one cluster (P 8, 2 clusters: ranks 0-3 and
#   4-7) have the same delay in every call, with the default noise not;
# - a NOISE outside 0..1 and a missing argument exit 2, --help 0.
set -eu
mk=$1
check() { # ARGS... ; prints "same" if every cluster is uniform
  "$mk" "$@" | awk '
    /^#/ { next }
    {
      lines++
      if (NF != 8) { print "bad field count", NF; exit 1 }
      lo = $1
      for (i = 1; i <= NF; i++) {
        if ($i < 0) { print "negative delay"; exit 1 }
        if ($i < lo) lo = $i
      }
      if (lo != 0) { print "smallest delay", lo, "not 0"; exit 1 }
      for (i = 2; i <= 4; i++) if ($i != $1) differ = 1
      for (i = 6; i <= 8; i++) if ($i != $5) differ = 1
    }
    END { if (lines != 5) { print "lines", lines; exit 1 }
          print differ ? "differ" : "same" }'
}
[ "$(check 8 5 1e-3 2 0.9 1 0)" = same ] || { echo "noise 0: clusters not uniform"; exit 1; }
[ "$(check 8 5 1e-3 2 0.9 1)" = differ ] || { echo "default noise: clusters uniform"; exit 1; }
rc=0; "$mk" 8 5 1e-3 2 0.9 1 2 >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "NOISE 2 accepted (exit $rc)"; exit 1; }
rc=0; "$mk" 8 >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || { echo "missing CALLS accepted (exit $rc)"; exit 1; }
rc=0; "$mk" --help >/dev/null 2>&1 || rc=$?
[ "$rc" = 0 ] || { echo "--help exits $rc"; exit 1; }
echo "check_mktrace: ok"
