#!/bin/sh
# intercomm_preload.sh MPIEXEC PROGRAM PMPI_LIB [MPIEXEC_FLAGS...]
#
# MPI_Reduce on an intercommunicator with the override preloaded: the
# program's own checks pass (exit 0), and the calls reached patreduce,
# which said once (PAT_REDUCE_VERBOSE=1) that it handed them to
# PMPI_Reduce.  PAT_PRELOAD_FIRST: a library to preload first (ASan).
set -u
mpiexec=$1 prog=$2 lib=$3
shift 3
err=$(mktemp)
trap 'rm -f "$err"' EXIT
PAT_REDUCE_VERBOSE=1 "$mpiexec" -n 4 "$@" \
  -x LD_PRELOAD="${PAT_PRELOAD_FIRST:+$PAT_PRELOAD_FIRST:}$lib" \
  -x PAT_REDUCE_VERBOSE "$prog" preload 2>"$err"
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL: exit $rc"; cat "$err"; exit 1
fi
if ! grep -q "an intercommunicator: .*using PMPI_Reduce" "$err"; then
  echo "FAIL: the calls did not reach patreduce's intercommunicator path"
  cat "$err"; exit 1
fi
echo "intercomm_preload: OK"
