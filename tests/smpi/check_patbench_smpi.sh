#!/bin/sh
# Checks the CSV of patbench run under SMPI (tests/smpi/CMakeLists.txt):
#   check_patbench_smpi.sh CSV
# Simulated time is exact, so:
# - binomial, native and oracle (whose arrival times and round cost come
#   from the test, not from learning) take the same time in every
#   repetition: min = max;
# - the oracle is never slower than binomial in any configuration;
# - under pattern single every time-to-solution holds the late rank's
#   delay: tts_min >= imbalance_s;
# - every configuration has all four algorithms;
# - native and oracle, constant like the reference binomial, have no
#   p-value (an empty field).
set -eu
csv=$1
[ -s "$csv" ] || { echo "no CSV $csv"; exit 1; }
awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    key = $col["bytes"] "/" $col["pattern"] "/" $col["imbalance"]
    a = $col["algorithm"]
    med[key, a] = $col["tts_median"]
    keys[key] = 1
    if ((a == "binomial" || a == "native" || a == "oracle") &&
        $col["tts_min"] != $col["tts_max"]) {
      print "not exactly reproducible between repetitions:", $0; bad = 1
    }
    # no p-value where every repetition of it and the reference is the same
    if ((a == "native" || a == "oracle") && $col["p_value"] != "") {
      print "a p-value for deterministic runs:", $0; bad = 1
    }
    if ($col["pattern"] == "single" && $col["tts_min"] < $col["imbalance_s"]) {
      print "delay missing from time-to-solution:", $0; bad = 1
    }
  }
  END {
    for (k in keys) {
      if (!((k, "binomial") in med) || !((k, "native") in med) ||
          !((k, "oracle") in med) || !((k, "localredirect") in med)) {
        print "missing algorithms in", k; bad = 1; continue
      }
      if (med[k, "oracle"] > med[k, "binomial"] * (1 + 1e-9)) {
        print "oracle slower than binomial in", k; bad = 1
      }
      n++
    }
    if (n < 4) { print "only", n + 0, "configurations"; bad = 1 }
    exit bad
  }' "$csv"
echo "check_patbench_smpi: $csv ok"
