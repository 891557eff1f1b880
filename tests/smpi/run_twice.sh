#!/bin/sh
# run_twice.sh COMMAND...: runs COMMAND twice; passes if both runs succeed
# and print the same lines starting with "hex" (simulated times as C99 hex
# floats: bit for bit), i.e. the simulation is exactly reproducible.
# RUN_TWICE_SECOND_ENV="VAR=value ...", if set, is the second run's extra
# environment: then the two runs must agree although it differs.
set -u
dir=$(mktemp -d) || exit 1
rc=0
for run in 1 2; do
  extra=
  if [ $run = 2 ]; then
    extra=${RUN_TWICE_SECOND_ENV:-}
  fi
  # shellcheck disable=SC2086  # extra is several words or none
  if ! env $extra "$@" >"$dir/out$run"; then
    cat "$dir/out$run"
    echo "run_twice: run $run failed"
    rc=1
    break
  fi
  grep '^hex' "$dir/out$run" >"$dir/hex$run"
done
if [ $rc -eq 0 ]; then
  cat "$dir/out1"
  if [ ! -s "$dir/hex1" ]; then
    echo "run_twice: no \"hex\" lines to compare"
    rc=1
  elif ! cmp -s "$dir/hex1" "$dir/hex2"; then
    echo "run_twice: the two runs differ:"
    diff "$dir/hex1" "$dir/hex2"
    rc=1
  else
    echo "run_twice: both runs printed the same $(wc -l <"$dir/hex1") hex lines"
  fi
fi
rm -rf "$dir"
exit $rc
