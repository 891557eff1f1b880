#!/bin/sh
# Checks the CSV of patbench --unit oracle (tests/smpi/CMakeLists.txt):
#   check_unit.sh CSV UNIT
# - the delay of every "Nx" configuration (imbalance_s) is N times UNIT's
#   balanced median (simulated time: equal to 1e-8, the CSV's 9 digits), not binomial's;
# - binomial ran balanced (the speedups' base) even when not asked for.
set -eu
csv=$1 unit=$2
[ -s "$csv" ] || { echo "no CSV $csv"; exit 1; }
awk -F, -v unit="$unit" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["pattern"] == "none" { bal[$col["bytes"], $col["algorithm"]] = $col["tts_median"] }
  $col["imbalance"] ~ /x$/ { n++; rows[n] = $0 }
  END {
    if (n == 0) { print "no Nx configuration"; exit 1 }
    for (i = 1; i <= n; i++) {
      split(rows[i], f, ",")
      m = f[col["bytes"]]; x = f[col["imbalance"]] + 0
      if (!((m, unit) in bal) || !((m, "binomial") in bal)) {
        print "no balanced", unit, "or binomial at", m; exit 1
      }
      want = x * bal[m, unit]; got = f[col["imbalance_s"]]
      d = got - want; if (d < 0) d = -d
      if (d > 1e-8 * want) {
        printf "%s B %gx: delay %.9g s, want %g x %s balanced = %.9g s\n",
          m, x, got, x, unit, want; bad = 1
      }
      d = got - x * bal[m, "binomial"]; if (d < 0) d = -d
      if (d <= 1e-8 * want) { print "delay follows binomial, not", unit; bad = 1 }
    }
    exit bad
  }' "$csv"
echo "--unit $unit OK"
