#!/bin/sh
# check_info.sh PATREDUCE_INFO
#
# patreduce_info --check: exit 0 and "OK" with nothing set or good values
# (shown as set); exit 2 naming every bad value (two at once, each with the
# message a call would fail with) and every PAT_REDUCE_* name that is no
# variable; --explain's table and pick; a bad argument exits 2, --help 0.
set -u
info=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }
for v in $(env | sed -n 's/^\(PAT_REDUCE_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done

"$info" --check >"$out"; rc=$?
[ $rc -eq 0 ] || fail "clean environment: exit $rc"
grep -q '^OK$' "$out" || fail "clean environment: no OK"
grep -q 'PAT_REDUCE_ALGORITHM *binomial (default)' "$out" ||
  fail "clean environment: the default algorithm not shown"

PAT_REDUCE_ALGORITHM=ring PAT_REDUCE_SEGMENTS=8 "$info" --check >"$out"; rc=$?
[ $rc -eq 0 ] || fail "good values: exit $rc"
grep -q 'PAT_REDUCE_ALGORITHM *ring$' "$out" || fail "good values: ring not shown"
grep -q 'PAT_REDUCE_SEGMENTS *8$' "$out" || fail "good values: 8 not shown"

PAT_REDUCE_ALGORITHM=foo PAT_REDUCE_SEGMENTS=0x PAT_REDUCE_ALGORITM=ring \
  "$info" --check >"$out"; rc=$?
[ $rc -eq 2 ] || fail "bad values: exit $rc, want 2"
grep -q 'PAT_REDUCE_ALGORITHM=foo is not an algorithm; valid: binomial' "$out" ||
  fail "the bad algorithm is not named with the valid ones"
grep -q 'PAT_REDUCE_SEGMENTS=0x is not a segment count' "$out" ||
  fail "the second bad value is not named"
grep -q 'PAT_REDUCE_ALGORITM is not a patreduce variable' "$out" ||
  fail "the misspelt variable is not named"
grep -q '^BAD SETTINGS' "$out" || fail "no verdict line"

PAT_REDUCE_MODEL=/nonexistent/model.txt "$info" --check >"$out"; rc=$?
[ $rc -eq 2 ] || fail "missing model file: exit $rc, want 2"
grep -q 'PAT_REDUCE_MODEL .*BAD' "$out" || fail "missing model file not named"
grep -q 'PAT_REDUCE_MODEL .*calls of clairvoyant, pipeline, auto fail; the others' \
  "$out" || fail "missing model file: the algorithms it fails not named"

# --explain: every row with its estimate and auto's pick; with a file of
# arrival times too; bad P, size or file exit 2
"$info" --explain 16 64K >"$out"; rc=$?
[ $rc -eq 0 ] || fail "--explain 16 64K: exit $rc"
for row in binomial clairvoyant butterfly radixk pipeline ring; do
  grep -q "^  $row  *[0-9]" "$out" || fail "--explain: no estimate of $row"
done
grep -q '^auto picks [a-z]' "$out" || fail "--explain: no pick"
arr=$(mktemp)
trap 'rm -f "$out" "$arr"' EXIT
printf '0 0 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 30us\n' >"$arr"
"$info" --explain 16 8 "$arr" >"$out"; rc=$?
[ $rc -eq 0 ] || fail "--explain with arrivals: exit $rc"
grep -q "auto picks clairvoyant for these arrivals; balanced: " "$out" ||
  fail "--explain: one rank 30 us late at 8 B is not clairvoyant's case"
for bad in "0 8" "16 3" "16 8K $arr.none" "4 8 $arr"; do
  # shellcheck disable=SC2086 # the arguments, split on purpose
  "$info" --explain $bad >"$out" 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "--explain $bad: exit $rc, want 2"
  grep -q "patreduce_info: --explain: " "$out" || fail "--explain $bad: no reason"
done

"$info" --no-such-option >"$out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "bad argument: exit $rc, want 2"
"$info" --help >"$out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "--help: exit $rc"
echo "check_info: OK"
