#!/bin/sh
# Checks what a patbench smoke run wrote (see tests/CMakeLists.txt):
#   check_patbench.sh CSV PLOT_PREFIX REPS DELAY_S PATREDUCE_INFO TRACE
# - every configuration has the same algorithms, the oracle and every
#   algorithm of the table among them (patreduce_info lists the table);
# - n = REPS - 1 (the first repetition dropped), medians > 0 and inside
#   their bootstrap interval, min <= median <= max;
# - with pattern single at imbalance DELAY_S, every row's median
#   time-to-solution is at least 0.9 DELAY_S (the late rank's delay is in
#   it; without it, tens of us).  Not the minimum: time-to-solution runs
#   from the earliest stamp, and a repetition whose punctual ranks were
#   all descheduled as the late one left the barrier shows less of the
#   delay (a minimum of 2.028 ms for 2 ms under a load of 16);
# - the figures exist;
# - the trace is a JSON object with send, receive and combine slices.
set -eu
csv=$1 prefix=$2 reps=$3 delay=$4 info=$5 trace=$6
[ -s "$csv" ] || { echo "no CSV $csv"; exit 1; }
algs=$("$info" | awk '/^Algorithms/{on=1;next} on&&/^$/{exit} on{print $1}')
for a in $algs oracle; do
  grep -q ",$a," "$csv" || { echo "no rows for $a"; exit 1; }
done
awk -F, -v reps="$reps" -v delay="$delay" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    key = $col["bytes"] "/" $col["pattern"] "/" $col["imbalance"]
    n[key]++
    if ($col["n"] != reps - 1) { print "n =", $col["n"], "in", key; bad = 1 }
    med = $col["tts_median"]
    if (!(med > 0 && $col["tts_min"] <= med && med <= $col["tts_max"] &&
          $col["tts_ci_lo"] <= med && med <= $col["tts_ci_hi"])) {
      print "inconsistent summary:", $0; bad = 1
    }
    if ($col["pattern"] == "single" && $col["imbalance_s"] == delay &&
        $col["tts_median"] < 0.9 * delay) {
      print "delay missing from time-to-solution:", $0; bad = 1
    }
  }
  END {
    for (k in n) {
      if (first == "") first = n[k]
      if (n[k] != first) { print "configurations differ in algorithms"; bad = 1 }
    }
    if (NR < 2) bad = 1
    exit bad
  }' "$csv"
for kind in runtime speedup absorption; do
  for ext in png svg; do
    ls "$prefix"-*-"$kind"."$ext" >/dev/null 2>&1 ||
      { echo "no $kind.$ext figure"; exit 1; }
  done
done
head -c 40 "$trace" | grep -q '^{"displayTimeUnit":"ns","traceEvents":\[' ||
  { echo "trace does not start as a trace-event object"; exit 1; }
tail -c 4 "$trace" | grep -q ']}' || { echo "trace not closed"; exit 1; }
for slice in '"send to [0-9]*"' '"recv from [0-9]*"' '"combine"' '"late"'; do
  grep -q "$slice" "$trace" || { echo "no $slice slice in the trace"; exit 1; }
done
echo "patbench output OK"
