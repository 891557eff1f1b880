#!/bin/sh
# Model-checks the localredirect protocol with SPIN.
# usage: run_spin.sh MODEL N [MUTANT [DEFINES]]
#   MUTANT 0 (default): the protocol must verify without any error;
#   MUTANT k > 0: a seeded bug (see the model) that SPIN must catch;
#   DEFINES: more -D options for the model (e.g. -DCALLS=1).
# Exit 77 (skipped by ctest) when spin is not installed.
set -eu
model=$1
n=$2
mutant=${3:-0}
defines=${4:-}
if ! command -v spin >/dev/null 2>&1; then
  echo "SKIPPED: spin is not installed (Debian package 'spin';" \
    "scripts/install-deps.sh installs it)"
  exit 77
fi
cc=${PAT_SPIN_CC:-cc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
# shellcheck disable=SC2086  # DEFINES is a list of options
spin -a -DN="$n" -DMUTANT="$mutant" $defines "$model" >spin.log
# COLLAPSE compresses states (N=5: ~15 million, ~1.4 GB, ~25 s)
$cc -O2 -DCOLLAPSE -DVECTORSZ=4096 -o pan pan.c
./pan -m400000 -w26 >pan.log 2>&1 || true
grep -E "errors:|states, stored|pan:1|depth too small" pan.log || true
if grep -q "depth too small" pan.log; then
  echo "FAIL: search depth limit reached; the check is incomplete"
  exit 1
fi
if [ "$mutant" = 0 ]; then
  # out of memory, pan still says "errors: 0" of the part it searched (a
  # mutant's search stops at its first error: incomplete is expected there)
  if grep -qE "Search not completed|out of memory|MEMLIM" pan.log; then
    echo "FAIL: the search did not complete (memory?); the check is incomplete"
    grep -E "Search not completed|out of memory|MEMLIM" pan.log
    exit 1
  fi
  if grep -q "errors: 0" pan.log; then
    echo "PASS: N=$n verified: no deadlock, no assertion violated"
    exit 0
  fi
  echo "FAIL: SPIN found an error in the protocol (N=$n):"
  cat pan.log
  exit 1
fi
if grep -q "errors: 0" pan.log; then
  echo "FAIL: SPIN did not catch seeded bug MUTANT=$mutant (N=$n)"
  exit 1
fi
echo "PASS: SPIN caught seeded bug MUTANT=$mutant (N=$n)"
