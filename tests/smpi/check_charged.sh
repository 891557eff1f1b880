#!/bin/sh
# Checks the CSV of patbench at P = 2 with --op sum-charged and shared
# buffers above 512 KiB (tests/smpi/CMakeLists.txt):
#   check_charged.sh CSV ALPHA BETA GAMMA
# - native (SMPI's own reduce with the charged user-defined sum) takes
#   exactly binomial's time at every size: at P = 2 both are one message and
#   one combine, alpha + m beta + m gamma; without the charge SMPI's reduce
#   would save the m gamma;
# - that time is alpha + m (beta + gamma) within 0.5% (SMPI adds ~8 ns per
#   message);
# - the op column says sum-charged; sizes up to 512 KiB are checked
#   (checked = 1), larger ones ran on shared buffers (checked = 0).
set -eu
csv=$1 alpha=$2 beta=$3 gamma=$4
[ -s "$csv" ] || { echo "no CSV $csv"; exit 1; }
awk -F, -v alpha="$alpha" -v beta="$beta" -v gamma="$gamma" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    m = $col["bytes"]; a = $col["algorithm"]; t = $col["tts_median"]
    med[m, a] = t; sizes[m] = 1
    if ($col["op"] != "sum-charged") { print "op is", $col["op"]; bad = 1 }
    if ($col["checked"] != (m <= 524288 ? 1 : 0)) {
      print "checked =", $col["checked"], "at", m, "B"; bad = 1
    }
    want = alpha + m * (beta + gamma)
    if (t < want * 0.995 || t > want * 1.005) {
      printf "%s at %d B: %.9g s, model %.9g s\n", a, m, t, want; bad = 1
    }
  }
  END {
    for (m in sizes) {
      if (!((m, "native") in med) || !((m, "binomial") in med)) {
        print "missing rows at", m; bad = 1; continue
      }
      d = med[m, "native"] - med[m, "binomial"]
      if (d < 0) d = -d
      if (d > 1e-9 * med[m, "binomial"]) {
        printf "native %.9g s != binomial %.9g s at %d B\n",
          med[m, "native"], med[m, "binomial"], m; bad = 1
      }
      n++
    }
    if (n < 2) { print "only", n + 0, "sizes"; bad = 1 }
    exit bad
  }' "$csv"
echo "check_charged: $csv ok"
