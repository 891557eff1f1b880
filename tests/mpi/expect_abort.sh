#!/bin/sh
# Runs an MPI job that must abort through MPI_ERRORS_ARE_FATAL.
# usage: expect_abort.sh MUST_PRINT command...
# Passes when the job exits non-zero, printed MUST_PRINT (our message, on
# stderr before the error handler runs) and never "handler returned".
# (Open MPI's own abort banner is not required: its show_help relay loses it
# now and then when several ranks abort at once.)
must=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
  echo "FAIL: the job exited 0; a fatal error handler must abort it"
  exit 1
fi
if printf '%s\n' "$out" | grep -q "handler returned"; then
  echo "FAIL: the fatal error handler returned"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -q -- "$must"; then
  echo "FAIL: the job did not print: $must"
  exit 1
fi
echo "PASS: aborted (exit $rc) after: $must"
