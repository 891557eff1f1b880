#!/bin/sh
# agree.sh MPIEXEC PROGRAM VAR VALUE RANKS EXPECT [MPIEXEC_FLAGS...]
#
# Runs PROGRAM on 4 ranks with VAR=VALUE on the ranks listed in RANKS
# (comma-separated, or "none") and unset elsewhere.  EXPECT "run": every
# call must succeed; "fail": every rank must fail its calls alike
# (MPI_ERR_ARG) and stderr must name VAR and the ranks that differ from
# rank 0; "invalid" (VALUE is not valid): every rank fails alike, the
# ranks with VALUE name it and the others point to them.
set -u
mpiexec=$1 prog=$2 var=$3 value=$4 ranks=$5 expect=$6
shift 6
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
mode=same
[ "$expect" != run ] && mode=differ
AGREE_VAR=$var AGREE_VALUE=$value AGREE_RANKS=",$ranks," "$mpiexec" -n 4 "$@" \
  -x AGREE_VAR -x AGREE_VALUE -x AGREE_RANKS sh -c '
    case "$AGREE_RANKS" in *",$OMPI_COMM_WORLD_RANK,"*)
      export "$AGREE_VAR=$AGREE_VALUE" ;; esac
    exec "$0" "$1"' "$prog" $mode >"$out" 2>"$err"
rc=$?
cat "$out"
if [ $rc -ne 0 ] || ! grep -q "agree: ok" "$out"; then
  echo "FAIL: exit $rc"; cat "$err"; exit 1
fi
if [ "$expect" = invalid ]; then
  for want in "$var=$value is not" \
    "a PAT_REDUCE_* variable has a bad value on another rank"; do
    if ! grep -qF "$want" "$err"; then
      echo "FAIL: stderr lacks '$want'"; cat "$err"; exit 1
    fi
  done
elif [ $mode = differ ]; then
  want="$var is not the same on every rank of a communicator: ranks $(echo "$ranks" | sed 's/,/, /g') differ from rank 0"
  [ "$(echo "$ranks" | cut -d, -f1)" = 0 ] && want="$var is not the same on every rank of a communicator: ranks 1, 2, 3 differ from rank 0"
  if ! grep -qF "$want" "$err"; then
    echo "FAIL: stderr lacks '$want'"; cat "$err"; exit 1
  fi
fi
echo "agree.sh: ok ($var=$value on ranks $ranks)"
