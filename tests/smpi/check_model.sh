#!/bin/sh
# Checks a model file against known values:
#   check_model.sh MODEL ALPHA BETA GAMMA REL_TOL
# every one of alpha, beta, gamma present and within REL_TOL of the value.
set -eu
model=$1
[ -s "$model" ] || { echo "no model file $model"; exit 1; }
awk -v A="$2" -v B="$3" -v G="$4" -v tol="$5" '
  function check(name, got, want) {
    if (!(name in seen)) { print "no", name, "line"; bad = 1; return }
    if (got < want * (1 - tol) || got > want * (1 + tol)) {
      printf "%s = %g, want %g within %g\n", name, got, want, tol; bad = 1
    }
  }
  $2 == "=" { seen[$1] = 1; v[$1] = $3 + 0 }
  END {
    check("alpha", v["alpha"], A); check("beta", v["beta"], B)
    check("gamma", v["gamma"], G)
    exit bad
  }' "$model"
echo "check_model: $model ok"
