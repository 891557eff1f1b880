#!/bin/sh
# verbose_auto.sh MPIEXEC PATBENCH [MPIEXEC_FLAGS...]
#
# PAT_REDUCE_VERBOSE=3: rank 0 says, per call of auto, the row it ran and
# why (pat_auto_describe: the measuring's phase, whether the predictions
# are used, the aware and blind choices, trial, trust, the absorbing row,
# cycle, lag, pace, the last scores).  patbench checks every result (exit
# 1 on a wrong one); each of auto's calls has its line, from rank 0 only,
# the fields in order, and with one rank late the scores come in.
set -u
mpiexec=$1 pb=$2
shift 2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
reps=8 warmup=1
PAT_REDUCE_VERBOSE=3 "$mpiexec" -n 3 "$@" -x PAT_REDUCE_VERBOSE "$pb" \
  --quiet --reps $reps --warmup $warmup --sizes 4K --pattern single \
  --imbalance 1ms -a binomial,auto >"$out" 2>&1 ||
  { cat "$out"; fail "patbench failed"; }
line='^patreduce: auto on a communicator of 3 ranks, call [0-9]+, 4096 B: [a-z]+( \(stamps exchanged\))?; class [0-9]+ (new|probing|exploring|settled|drifted), predictions (used|unused), aware [a-z]+, blind [a-z]+, trial (none|pending), trusted [a-z]+, absorbing (on|off) \(gain [-+][0-9.]+\), cycle [0-9]+, lag [0-9]+, pace x[0-9]+, scores \(aware - blind, newest first, us\):( none yet| -?[0-9.e+-]+)+$'
# auto's calls: its warm-up, then the repetitions of the balanced
# pattern (--unit's) and of the late rank's
want=$((warmup + 2 * reps))
n=$(grep -cE "$line" "$out")
[ "$n" -eq "$want" ] ||
  { grep 'auto on' "$out" | head -5; fail "$n lines of auto's reasons, not $want"; }
[ "$(grep -c 'auto on a communicator.*; class ' "$out")" -eq "$want" ] ||
  fail "a line of auto's reasons out of shape (or from another rank)"
# (any number of scores: not "none yet")
grep -E "$line" "$out" | grep -qE 'us\):( -?[0-9.e+-]+)+$' ||
  fail "no call with scores"
echo "PASS: $n calls with their reasons"
