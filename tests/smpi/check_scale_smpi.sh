#!/bin/sh
# Checks the CSV of the P = 1024 scale smoke run (tests/smpi/CMakeLists.txt):
#   check_scale_smpi.sh CSV P
# - every configuration has binomial, oracle, localredirect and radixk;
# - with the last rank late by the balanced binomial time, the oracle's
#   speedup over binomial at 64 KiB is the thesis' single-delay theory,
#   2n/(n+1) with n = ceil(log2 P), within 2% (1.817 measured at P = 1024,
#   theory 1.818).
# patbench itself exits 1 on a wrong result (the 8 B calls are checked).
set -eu
csv=$1
np=$2
[ -s "$csv" ] || { echo "no CSV $csv"; exit 1; }
awk -F, -v P="$np" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    key = $col["bytes"] "/" $col["pattern"] "/" $col["imbalance"]
    keys[key] = 1
    med[key, $col["algorithm"]] = $col["tts_median"]
  }
  END {
    n = 0
    while (2 ^ n < P) n++
    theory = 2 * n / (n + 1)
    for (k in keys) {
      if (!((k, "binomial") in med) || !((k, "oracle") in med) ||
          !((k, "localredirect") in med) || !((k, "radixk") in med)) {
        print "missing algorithms in", k; bad = 1
      }
    }
    k = "65536/single/1x"
    if (!((k, "oracle") in med)) {
      print "no 64 KiB single 1x configuration"; exit 1
    }
    s = med[k, "binomial"] / med[k, "oracle"]
    if (s < theory * 0.98 || s > theory * 1.02) {
      printf "oracle speedup %.3f at P = %d, theory %.3f: off by more than 2%%\n", s, P, theory
      bad = 1
    }
    if (!bad)
      printf "P = %d: oracle speedup %.3f, theory %.3f\n", P, s, theory
    exit bad
  }' "$csv"
