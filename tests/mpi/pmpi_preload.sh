#!/bin/sh
# pmpi_preload.sh MPIEXEC PROGRAM PMPI_LIB ALGORITHM [MPIEXEC_FLAGS...]
#
# Runs an unmodified MPI program with the MPI_Reduce override preloaded and
# checks that (1) its results are right, (2) every MPI_Reduce call went
# through patreduce with the requested algorithm (PAT_REDUCE_VERBOSE=2 logs
# each call), with one first-call line for its one communicator and rank
# 0's summary at MPI_Finalize, and (3) without the preload no call goes
# through patreduce.
set -u
# PAT_PRELOAD_FIRST: a library to preload before the override (the ASan
# runtime in sanitizer builds).
mpiexec=$1 prog=$2 lib=$3 alg=$4
shift 4
np=4
calls=$((2 * np)) # the program makes 2 MPI_Reduce calls per root
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

PAT_REDUCE_ALGORITHM=$alg PAT_REDUCE_VERBOSE=2 \
  "$mpiexec" -n $np "$@" -x LD_PRELOAD="${PAT_PRELOAD_FIRST:+$PAT_PRELOAD_FIRST:}$lib" -x PAT_REDUCE_ALGORITHM \
  -x PAT_REDUCE_VERBOSE "$prog" >"$out" 2>"$err"
rc=$?
cat "$out"
if [ $rc -ne 0 ] || ! grep -q "results ok" "$out"; then
  echo "FAIL: program failed with the override (exit $rc)"; cat "$err"; exit 1
fi
served=$(grep -c "^patreduce: rank [0-9]* call [0-9]* count [0-9]* root [0-9]*: $alg\$" "$err")
other=$(grep "^patreduce: rank [0-9]* call" "$err" | grep -vc ": $alg\$")
if [ "$served" -ne $((np * calls)) ] || [ "$other" -ne 0 ]; then
  echo "FAIL: expected $((np * calls)) calls served by $alg, saw $served (and $other by others)"
  cat "$err"; exit 1
fi
echo "ok: $served MPI_Reduce calls (all ranks) served by $alg"
# verbose >= 1: one line for the one communicator, rank 0's summary
first=$(grep -c "^patreduce: a communicator of $np ranks, first call (count [0-9]*, root 0): $alg, as asked\$" "$err")
summary=$(grep -c "^patreduce: rank 0 at MPI_Finalize: $calls calls ($alg $calls), 0 fallbacks\$" "$err")
if [ "$first" -ne 1 ] || [ "$summary" -ne 1 ]; then
  echo "FAIL: expected one first-call line and rank 0's summary ($calls calls), saw $first and $summary"
  cat "$err"; exit 1
fi
echo "ok: one first-call line, and the summary at MPI_Finalize"

PAT_REDUCE_VERBOSE=2 "$mpiexec" -n $np "$@" -x PAT_REDUCE_VERBOSE \
  "$prog" >"$out" 2>"$err"
if [ $? -ne 0 ] || grep -q "^patreduce:" "$err"; then
  echo "FAIL: without the preload the program must not reach patreduce"
  cat "$err"; exit 1
fi
echo "ok: without the preload MPI_Reduce is the MPI library's"
echo "pmpi_preload $alg: 2 passed, 0 failed"
