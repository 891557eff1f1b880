#!/bin/sh
# Writes OUTDIR/REPORT.md from the CSVs scripts/reproduce.sh left in
# OUTDIR/data: a table of our figures next to the thesis' (Marendić 2016,
# as quoted in DESIGN.md), then one table and the figures per experiment.
#
# usage: scripts/report.sh [OUTDIR]     (default report)
set -eu
out=${1:-report}
data=$out/data
md=$out/REPORT.md
# the start of every awk program below: c[NAME] is the CSV column NAME
HDR='NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }'

# pivot CSV: a Markdown table, one row per pattern and imbalance, one
# column per algorithm: median time-to-solution in ms and the speedup over
# binomial
pivot() {
  awk -F, "$HDR"'
    {
      row = $c["pattern"] " " $c["imbalance"]
      a = $c["algorithm"]
      if (!(row in seenr)) { seenr[row] = 1; rows[++nr] = row }
      if (!(a in seena)) { seena[a] = 1; algs[++na] = a }
      cell[row, a] = sprintf("%.3f (%.2f)", $c["tts_median"] * 1e3,
                             $c["speedup"])
    }
    END {
      printf "| pattern, imbalance |"
      for (j = 1; j <= na; j++) printf " %s |", algs[j]
      printf "\n|---|"
      for (j = 1; j <= na; j++) printf "---|"
      printf "\n"
      for (i = 1; i <= nr; i++) {
        printf "| %s |", rows[i]
        for (j = 1; j <= na; j++) printf " %s |", cell[rows[i], algs[j]]
        printf "\n"
      }
    }' "$1"
}

# best CSV ALG: the largest speedup of ALG over binomial and where
best() {
  awk -F, -v alg="$2" "$HDR"'
    $c["algorithm"] == alg && $c["pattern"] != "none" &&
      $c["speedup"] + 0 > b {
      b = $c["speedup"] + 0; at = $c["imbalance"]
    }
    END { if (b > 0) printf "%.3f (at %s)", b, at; else printf "n/a" }' "$1"
}

# balanced CSV ALG: ALG's median over binomial's with nobody late
balanced() {
  awk -F, -v alg="$2" "$HDR"'
    $c["pattern"] == "none" { m[$c["algorithm"]] = $c["tts_median"] }
    END {
      if (m["binomial"] > 0 && m[alg] > 0) printf "%.3f", m[alg] / m["binomial"]
      else printf "n/a"
    }' "$1"
}

# speedups CSV ALG PATTERN_PREFIX: "pattern: speedup" for each matching row
speedups() {
  awk -F, -v alg="$2" -v pre="$3" "$HDR"'
    $c["algorithm"] == alg && index($c["pattern"], pre) == 1 {
      printf "%s%s %.3f", sep, $c["pattern"], $c["speedup"]; sep = ", "
    }' "$1"
}

# total CSV ALG: the sum of the time-to-solution over the timed calls, s
total() {
  awk -F, -v alg="$2" "$HDR"'
    $c["algorithm"] == alg && $c["pattern"] != "none" {
      printf "%.4f", $c["tts_mean"] * $c["n"]
    }' "$1"
}

# ratio A B: A / B to three decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# figures NAME: Markdown links to NAME's PNG figures
figures() {
  for f in "$out"/fig/"$1"-*.png; do
    [ -e "$f" ] || continue
    b=$(basename "$f")
    printf '![%s](fig/%s)\n' "$b" "$b"
  done
}

# normalized CSV [REF]: a Markdown table, one row per message size and
# delay, one column per algorithm: its median time-to-solution over REF's
# of that row (without REF: over the best one's), the best in bold, then
# the best algorithm and its time; with REF, then one sentence: in how many
# rows REF is the fastest, and where it is not, who is and by how much
normalized() {
  awk -F, -v ref="${2:-}" "$HDR"'
    {
      m = $c["bytes"] + 0
      imb = $c["pattern"] == "none" ? "0" : $c["imbalance"]
      row = m SUBSEP imb
      a = $c["algorithm"]
      if (!(row in seenr)) { seenr[row] = 1; rows[++nr] = row }
      if (!(a in seena)) { seena[a] = 1; algs[++na] = a }
      t[row, a] = $c["tts_median"] + 0
      if (!(row in best) || t[row, a] < best[row]) { best[row] = t[row, a]; who[row] = a }
      if (a != ref && (!(row in other) || t[row, a] < other[row])) { other[row] = t[row, a]; owho[row] = a }
      if ($c["checked"] == "0") unchecked[m] = 1
    }
    function size(b) {
      if (b % 1048576 == 0) return (b / 1048576) " MiB"
      if (b % 1024 == 0) return (b / 1024) " KiB"
      return b " B"
    }
    END {
      printf "| m, delay |"
      for (j = 1; j <= na; j++) printf " %s |", algs[j]
      printf " best (ms) |\n|---|"
      for (j = 1; j <= na; j++) printf "---|"
      printf "---|\n"
      for (i = 1; i <= nr; i++) {
        split(rows[i], k, SUBSEP)
        printf "| %s%s, %s |", size(k[1]), (k[1] in unchecked) ? "*" : "", k[2]
        base = (rows[i], ref) in t ? t[rows[i], ref] : best[rows[i]]
        for (j = 1; j <= na; j++) {
          if (!((rows[i], algs[j]) in t)) { printf " - |"; continue }
          r = t[rows[i], algs[j]] / base
          printf(algs[j] == who[rows[i]] ? " **%.2f** |" : " %.2f |", r)
        }
        printf " %s, %.3f |\n", who[rows[i]], best[rows[i]] * 1e3
        if ((rows[i], ref) in t && rows[i] in other) {
          cells++
          if (t[rows[i], ref] <= other[rows[i]]) wins++
          else miss = miss sprintf("%s%s, delay %s: %s, %.2fx faster",
                                   (miss == "" ? "" : "; "), size(k[1]), k[2],
                                   owho[rows[i]], t[rows[i], ref] / other[rows[i]])
        }
      }
      if (cells > 0) {
        printf "\n%s is the fastest row in %d of %d cells", ref, wins, cells
        if (miss != "") printf "; not in: %s", miss
        printf ".\n"
      }
    }' "$1"
}

# normfigures CSV PREFIX [REF [UNIT]]: per message size, a gnuplot figure
# PREFIX-MB.png of every algorithm's time over REF's (without REF: the best
# one's) against the delay (in balanced UNIT times, default binomial);
# prints Markdown links (nothing without gnuplot)
normfigures() {
  command -v gnuplot >/dev/null 2>&1 || return 0
  awk -F, -v prefix="$2" -v ref="${3:-}" -v unit="${4:-binomial}" "$HDR"'
    {
      m = $c["bytes"] + 0
      x = $c["pattern"] == "none" ? 0 : $c["imbalance"] + 0
      a = $c["algorithm"]
      if (!(m in seenm)) { seenm[m] = 1; ms[++nm] = m }
      if (!((m, x) in seenx)) { seenx[m, x] = 1; xs[m, ++nx[m]] = x }
      if (!(a in seena)) { seena[a] = 1; algs[++na] = a }
      t[m, x, a] = $c["tts_median"] + 0
      if (!((m, x) in best) || t[m, x, a] < best[m, x]) best[m, x] = t[m, x, a]
      np = $c["nranks"]
    }
    END {
      for (i = 1; i <= nm; i++) {
        m = ms[i]
        for (j = 1; j <= na; j++) {
          printf "$d%d_%d << EOD\n", i, j
          for (q = 1; q <= nx[m]; q++) {
            x = xs[m, q]
            base = (m, x, ref) in t ? t[m, x, ref] : best[m, x]
            if ((m, x, algs[j]) in t) printf "%g %.9g\n", x, t[m, x, algs[j]] / base
          }
          printf "EOD\n"
        }
        printf "set terminal png size 800,500 noenhanced\nset output \"%s-%dB.png\"\n", prefix, m
        printf "set title \"P = %d, %d B, one late rank: time over %s\"\n", np, m, ref != "" ? ref "\047s" : "the best"
        printf "set xlabel \"delay of the last rank (balanced %s times)\"\n", unit
        printf "set ylabel \"median time-to-solution / %s\"\nset key top right\nset grid\nplot ", ref != "" ? ref : "best"
        for (j = 1; j <= na; j++)
          printf "%s$d%d_%d using 1:2 with linespoints title \"%s\"", (j > 1 ? ", " : ""), i, j, algs[j]
        printf "\n"
      }
    }' "$1" >"$2.gp"
  gnuplot "$2.gp" || return 0
  for m in $(awk -F, "$HDR"' !($c["bytes"] in s) { s[$c["bytes"]] = 1; print $c["bytes"] }' "$1"); do
    f=$(basename "$2")-${m}B.png
    [ -e "$out/fig/$f" ] && printf '![%s](fig/%s)\n' "$f" "$f"
  done
  return 0
}

section() { # NAME TITLE TEXT
  [ -s "$data/$1.csv" ] || return 0
  printf '\n## %s\n\n%s\n\nMedian time-to-solution in ms (speedup over binomial); data: `data/%s.csv`, full table with CIs: `data/%s.txt`.\n\n' \
    "$2" "$3" "$1" "$1"
  pivot "$data/$1.csv"
  printf '\n'
  figures "$1"
}

s128=$data/single_p128.csv
# the extension run: single_pN.csv with N other than 128
big='' nb=''
for f in "$data"/single_p*.csv; do
  case $f in
  */single_p128.csv) ;;
  *)
    [ -s "$f" ] || continue
    big=$f
    nb=$(basename "$f" .csv | sed 's/single_p//')
    ;;
  esac
done
{
  cat <<'EOF'
# patreduce: reproduction of the thesis' experiments in simulation

Written by `make reproduce` (`scripts/reproduce.sh`, then
`scripts/report.sh`).  Every number is simulated time from SimGrid SMPI on
the CURIE-like platform `bench/platforms/curie.xml` (alpha 2.66 us, beta
4.8179e-10 s/B), with the library charging gamma = 1.6654e-10 s/B for every
combine it performs (`bench/platforms/curie.model`) and the smpirun flags
of `bench/platforms/smpirun.flags` (no real CPU time enters the
simulation, so every run is bit-for-bit reproducible).  Time-to-solution is
max(exit) - min(arrival) of one call; the late ranks sleep (in simulated
time) before they call.

What to keep in mind:

- **`native` is SMPI's own `MPI_Reduce`** (`--cfg=smpi/reduce:binomial`
  unless said otherwise).  SMPI's reduces **combine for free** in simulated
  time, while ours pay gamma per byte combined, so `native` has an
  advantage of up to log2(P) gamma m that no algorithm of ours has.
- **`oracle`** is the clairvoyant algorithm told the true arrival times;
  **`clairvoyant`** predicts them (SMA(5) of the exchanged stamps).  The
  predicted variant runs in the trace experiment and the auto table;
  elsewhere the stamp exchange is switched off
  (`PAT_REDUCE_EXCHANGE_INTERVAL=0`) and the oracle stands for a
  clairvoyant whose predictions are right.
- Imbalances written `Nx` are multiples of the balanced binomial
  time-to-solution of the same size.
- Patterns without randomness need few repetitions: every kept one takes
  the same simulated time.  Random patterns (k-random, gamma) draw new
  delays every repetition, so their medians are over that many draws.  The
  first repetition of every configuration is dropped; the `n` column of
  each CSV counts the kept ones.

## Our figures next to the thesis'

| experiment | quantity | thesis | ours |
|---|---|---|---|
EOF
  if [ -s "$s128" ]; then
    printf '| single late rank, P = 128, 1 MiB | clairvoyant best speedup over binomial | 1.67 measured, 1.75 = 2/(1+1/7) in theory | oracle %s |\n' \
      "$(best "$s128" oracle)"
    printf '| single late rank, P = 128, 1 MiB | local redirect best speedup | 1.49 | %s |\n' \
      "$(best "$s128" localredirect)"
    printf '| balanced, P = 128, 1 MiB | local redirect time / binomial time | 1.19-1.56 | %s |\n' \
      "$(balanced "$s128" localredirect)"
    printf '| single late rank, P = 128, 1 MiB | SMPI native binomial best speedup (combines for free) | - | %s |\n' \
      "$(best "$s128" native)"
  fi
  if [ -n "$big" ]; then
    printf '| single late rank, P = %s, 1 MiB | oracle / local redirect best speedup | - (not in the thesis) | %s / %s |\n' \
      "$nb" "$(best "$big" oracle)" "$(best "$big" localredirect)"
  fi
  if [ -s "$data/gamma_p128.csv" ]; then
    printf '| gamma PATs, P = 128 | median speedup over binomial | +6-7%% | oracle: %s; local redirect: %s |\n' \
      "$(speedups "$data/gamma_p128.csv" oracle gamma)" \
      "$(speedups "$data/gamma_p128.csv" localredirect gamma)"
  fi
  for trace in "$data"/trace_p*_*.csv; do
    [ -s "$trace" ] || continue
    np=$(basename "$trace" | sed 's/^trace_p\([0-9]*\)_.*/\1/')
    about=$(cat "${trace%.csv}.about" 2>/dev/null || basename "$trace" .csv)
    tb=$(total "$trace" binomial)
    tc=$(total "$trace" clairvoyant)
    to=$(total "$trace" oracle)
    tl=$(total "$trace" localredirect)
    printf '| rendering trace (Table 5.1; thesis: Helsim, P = 64; ours: synthetic, %s, P = %s) | total time, binomial / SMA / oracle / local redirect | 13.88 s / 12.94 s (0.932) / 12.81 s (0.923) / - | %s s / %s s (%s) / %s s (%s) / %s s (%s) |\n' \
      "$about" "$np" "$tb" "$tc" "$(ratio "$tc" "$tb")" "$to" "$(ratio "$to" "$tb")" \
      "$tl" "$(ratio "$tl" "$tb")"
  done
  cat <<'EOF'

## Reading the results

- **One late process.**  Told the truth on a noise-free platform, the
  clairvoyant tree reaches the theoretical bound 2n/(n + 1), n = log2 P,
  exactly (1.75 at P = 128, 20/11 = 1.818 at P = 1024) when the late rank
  is about n - 1 rounds late; the thesis measured 1.67 on the real
  machine.  Local redirect needs no prediction and pays about two rounds
  after the late arrival instead of one, so it stays a little below.
  Binomial pays the delay plus its whole tree: the late rank is a leaf of
  its first round.
- **Every odd process late** by the same time X: no tree can beat
  binomial.  The early half needs log2(P/2) rounds, the late half as many
  after X, and one more round joins them: X + n d, binomial's time.  The
  table shows the oracle equal to binomial, as it must be.
- **k random processes late**: the more late ranks, the less there is to
  hide; with half the ranks late nothing is gained, and local redirect's
  redirections then cost more than they save.
- **Gamma arrival times**: the wider the distribution, the more the last
  arrival dominates the time-to-solution, which every algorithm pays.
- **Traces**: the predicted clairvoyant keeps most of the oracle's gain
  where the arrival pattern persists from call to call (steady scene) and
  less as the clusters' loads drift faster: SMA(5) predicts from the last
  five calls, so a drift of a round per call leaves its tree a round
  behind.  Compare the scenes in the table above.  (Each run interleaves
  the four rows per repetition, so a row's arrivals also carry the end
  skew of the row before it.)
- **SMPI's reduces**: `mpich` and `rab` are reduce-scatter + gather
  (Rabenseifner) algorithms, bandwidth-optimal for 1 MiB and combining for
  free; balanced they are about 4x faster than any binomial tree, ours or
  SMPI's.  patreduce's own (`butterfly`, `radixk`) and the segmented
  clairvoyant are compared with them, with the same gamma, in the last
  section.
EOF
  section single_p128 "One late process, P = 128 (Fig. 5.4, 5.5)" \
    "The last rank arrives late by the imbalance; 1 MiB of doubles."
  if [ -n "$big" ]; then
    section "$(basename "$big" .csv)" "One late process, P = $nb (extension)" \
      "As above at $nb simulated ranks."
  fi
  section odd_p128 "Every odd process late, P = 128 (Fig. 5.9)" \
    "Every odd rank arrives late by the imbalance; 1 MiB."
  section krandom_p128 "k random processes late, P = 128" \
    "k ranks drawn at random in every repetition arrive late by the balanced binomial time; 1 MiB."
  section gamma_p128 "Gamma-distributed arrival times, P = 128 (Table 5.3)" \
    "Every rank's delay is drawn from a gamma distribution with mean the balanced binomial time and the given coefficient of variation; 1 MiB."
  for trace in "$data"/trace_p*_*.csv; do
    [ -s "$trace" ] || continue
    name=$(basename "$trace" .csv)
    np=$(echo "$name" | sed 's/^trace_p\([0-9]*\)_.*/\1/')
    about=$(cat "$data/$name.about" 2>/dev/null || echo "$name")
    section "$name" "Synthetic in-situ rendering trace, P = $np (Table 5.1): $about" \
      "4 clusters of ranks whose load drifts as AR(1) around a mean delay of 2 ms, plus per-rank noise; one trace line per call; 512 KiB; \`clairvoyant\` predicts with SMA(5).  The thesis used the Helsim trace, which we do not have; the totals above are the sum over the timed calls."
  done
  bw=$data/bandwidth_p128.csv
  if [ -s "$bw" ]; then
    # with the oracle (the segmented clairvoyant) among the rows: the
    # thesis' figure 6.10, everything over the oracle, delays in its times
    if grep -q ',oracle,' "$bw"; then
      bw_ref=oracle bw_unit=oracle
      bw_cells="the median time-to-solution over the oracle's (the segmented clairvoyant, told the arrivals) in its row, as in the thesis' figure 6.10; the best row of each line is in bold.  The delay is in balanced oracle times of that size (\`patbench --unit oracle\`)"
    else
      bw_ref= bw_unit=binomial
      bw_cells="the median time-to-solution over the best one's in its row (best = 1.00, in bold); the delay is in balanced binomial times of that size, as everywhere in this report"
    fi
    cat <<EOF

## Bandwidth baselines and the segmented clairvoyant, P = 128 (thesis chapter 6, Fig. 6.10)

The rows of \`BASELINE_ALGS\` and SMPI's own reduces \`native(NAME)\`
(\`--cfg=smpi/reduce:NAME\`, one smpirun each, \`scripts/smpi-compare\`) with the
last rank late by 0 to 5 balanced $bw_unit times.  **Fair gamma**: every run
uses \`--op sum-charged\`, so SMPI's reduces combine with a user-defined sum that
charges gamma per byte like ours (\`native(binomial)\` costs what our binomial
costs).  SimGrid 3.32's \`rab\` ignores user-defined ops, so \`mpich\` (the same
reduce-scatter + gather) stands for Rabenseifner.  Each cell is $bw_cells.
Sizes marked * ran on buffers shared by all ranks
(\`SMPI_SHARED_MALLOC\`, \`--shared-above\`): their results were not checked
(simulated time does not depend on the data); the others were compared with
\`MPI_Reduce\`'s.  The predicted clairvoyant is not a row: with the same rank
late on every call its prediction converges to the oracle's arrivals.
Data: \`data/bandwidth_p128.csv\`, the runs' tables:
\`data/bandwidth_p128.txt\`.

EOF
    normalized "$bw" "$bw_ref"
    printf '\n'
    normfigures "$bw" "$out/fig/bandwidth_p128" "$bw_ref" "$bw_unit"
  fi
  if [ -s "$data/auto_p64.csv" ]; then
    cat <<'EOF'

## auto against the best fixed algorithm, P = 64

`auto` (per call, the row the cost model expects to finish first under the
predicted arrivals, and the PAT-blind choice while predictions do not pay)
next to every fixed row, with the stamp exchange on: `clairvoyant` and `auto`
predict (the default predictor, cycle:5: SMA(5) unless the arrivals repeat
every 2 to 4 calls).  Patterns: balanced, the last rank late by the
balanced binomial time (1x), every odd rank late 1x, 4 random ranks late
1x, gamma arrivals (mean 1x, CV 1), the three trace scenes of the trace
experiment at P = 64 (steady, drift, fast drift) and a pattern that flips
every call (the last rank 1 ms late, then the first).  *Best fixed* is the
least median of the fixed rows, *best blind* that of the rows that do not
predict (binomial, localredirect, ring, butterfly, radixk, pipeline); the
goal is auto / best blind <= 1.03 everywhere (bold: missed).  Medians in
ms; the last column takes means instead (the best blind row by its mean,
and auto's mean over it).  Data: `data/auto_p64.csv`.  All patterns run
one after the other on one communicator, 12 calls each (the first not
counted; 4 warm-up calls before the first pattern of each size), so each pattern
starts with what `auto` learned from the one before: at 8 B, where stamps
are exchanged every 8th call, a change of pattern is seen only at the
next exchanged call and the lag after it (up to 14 calls at P = 64).
There `localredirect`, which absorbs late ranks without a prediction,
runs in `binomial`'s place (see `src/auto/auto.c`, "Absorbing rows"):
from the start, as it costs `binomial`'s calls nothing balanced (its
estimate is `binomial`'s walk; in SMPI `localredirect` takes 1.008x
`binomial`'s median, `auto` 1.015x, by the mean 1.014x), so
every 8 B pattern takes its time: the last rank late 1.000x (0.69x
`binomial`; 1.012x when it waited for the observed calls to show
gains, by the mean 1.026 against 1.175), the random, gamma and trace
patterns 0.84x, 0.91x and 0.997-0.998x `binomial`'s, `odd` 1.004x
(1.083x when it ran on the stale plan).  Under the flip pattern at
1 MiB `auto` runs its PAT-blind
choice, radixk (2.192 ms every call); pipeline's calls alternate between
1.853 ms (the root late: a chain's root absorbs up to P - 2 hops of
delay) and 2.380 (the last rank, the chain's leaf, late), and 6 of the
11 samples are of the first kind, so its median is the low mode; by the
mean pipeline takes 2.093 ms, radixk 2.197, auto 2.117 (1.012; 2.197
before the look below).  Since
tree programs above 4 KiB run on the dataflow, the chain's root receives
a segment while it combines the one before (2.021 and 2.539 before, by
the mean 1.000); the blind choice is made for balanced arrivals, and the
row that takes its calls where late ranks cost it ("Absorbing rows") is
localredirect, which absorbs nothing at 1 MiB, not pipeline.  The
plans come too late for the median in the pattern's 12 calls: `auto`
had chosen without the predictions for several patterns, and blind and
settled its exchange's pace stretches to every 64th call, and an even
interval sees one phase of a flip only.  Before, the flip's cycle was
never found (12 calls of the fast drift and then 64 of the flip: `auto`
ran radixk throughout, 2.203 ms).  Now a call whose arrivals the
prediction missed by a tenth of the call makes `auto` exchange the next
8 calls too (a look, `src/auto/auto.c`, "Pace"), which the cycle
predictor needs: there it finds the cycle and runs the plan for each
call's late rank, 1.753 ms by the median.  In the table (the patterns
one after the other at 1 MiB only, with PAT_REDUCE_VERBOSE=3, give the
same times: 2.193 ms, by the mean 2.117) the cycle is found at the flip's 10th call,
as early as it can be: the stamps of a call arrive 3 calls later at
P = 64, and the cycle must have predicted 3 calls in a row, each after
one of the same phase (5 calls observed); the plans then run on its last
2 calls, which moves the mean, not the median.
Run alone for 40 calls
(`--pattern trace:data/auto_flip.trace --reps 40`, 1 MiB) it is found
and `auto` runs the plan for each call's late rank: 1.753 ms, 0.95x
pipeline's median and 0.86x its mean (with SMA(5) 1.799).  At 8 B the
exchange's interval, 8, sees one phase of a flip only.  The means also
show where `auto` learns: the first pattern of each size (`none`) holds its measuring calls (binomial against the
model's pick, 3 counted calls each), 1.08-1.21x the best row's mean
(1.05-1.43x before a plan not yet trusted had to risk less than it
stands to gain: one made for the warm-up's staircase of arrivals, a
chain, ran on trial where the calls then came balanced, by the means
about 3x radixk's time at 64 KiB and at 1 MiB).  The measuring counts calm calls
(arrivals spread over under a tenth of the time): the warm-up's calls,
run back to back across the rows, come with the root last; run alone at
64 KiB, where such a call of radixk (7.6x its time) failed the probe
and sent `auto` measuring every row, the first pattern took 1.24x
radixk's median then and 1.02x now.  Such a call of binomial counts at
its balanced equivalent (its estimate under arrivals is the model's
walk of its tree) instead of being measured again: 1.57x and 1.65x the
best mean at 64 KiB and 1 MiB before, when it was.  By the mean,
too, 1 MiB `odd` (1.12) holds slow calls (plans run where the
predictions pointed, before the scores turned `auto` blind).  At 64 KiB
with the last rank late `auto` ran its PAT-blind choice through the
pattern's 12 calls (0.361, now 0.363: the looks' exchanges; the table's run before issue 14's measured
rows had clairvoyant there, 0.324; after the 8 B calls of one pattern
only, the same pattern switches to clairvoyant 6 calls in: 0.325).

EOF
    awk -F, "$HDR"'
      {
        pat = $c["pattern"]
        sub(/^trace:.*\//, "trace:", pat)
        key = pat " " $c["bytes"]
        if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
        a = $c["algorithm"]; t = $c["tts_median"] * 1e3
        u = $c["tts_mean"] * 1e3
        if (a == "auto") { au[key] = t; aum[key] = u }
        else {
          if (!(key in bf) || t < bf[key]) { bf[key] = t; bfa[key] = a }
          if (a != "clairvoyant" && (!(key in bb) || t < bb[key])) {
            bb[key] = t; bba[key] = a
          }
          if (a != "clairvoyant" && (!(key in bm) || u < bm[key])) {
            bm[key] = u; bma[key] = a
          }
        }
      }
      END {
        print "| pattern, bytes | best fixed | best blind | auto | auto / best fixed | auto / best blind | means: best blind, auto / it |"
        print "|---|---|---|---|---|---|---|"
        for (i = 1; i <= n; i++) {
          k = keys[i]; r = au[k] / bb[k]
          mark = (r > 1.03) ? "**" : ""
          printf "| %s | %s %.3f | %s %.3f | %.3f | %.3f | %s%.3f%s | %s %.3f, %.3f |\n", k,
            bfa[k], bf[k], bba[k], bb[k], au[k], au[k] / bf[k], mark, r, mark,
            bma[k], bm[k], aum[k] / bm[k]
        }
      }' "$data/auto_p64.csv"
  fi
  if ls "$data"/auto_alone_*.csv >/dev/null 2>&1; then
    cat <<'EOF2'

## auto against the best PAT-blind algorithm, each pattern alone, P = 64

The goal is stated per pattern, so each pattern also runs alone: one
run per pattern (`data/auto_alone_N.csv`, N in the order of the table
above), the rows that do not predict and `auto`, 30 timed calls after 4
warm-up calls at each size.  Each run first times every row balanced
(patbench's unit: `binomial`'s balanced median is the x of the delays),
so `auto` meets the pattern after 34 balanced calls of its size, where
the stamp exchange has been paced out (to every 64th call at 8 B), not
16 calls after another pattern; the balanced cells are the first
run's.  Medians in ms; bold: `auto` / best blind above 1.03; the last
column as above.  At 8 B `localredirect` runs in `binomial`'s place
from the start, as it costs nothing balanced; before that (it took the
calls only once the observed calls showed it gaining) the last rank
late took 1.48x `localredirect`'s median here, 4 random ranks 1.32x and
gamma arrivals 1.04x: after the balanced spell the late ranks were seen
up to 64 calls later.  With 4 random ranks late at 8 B `auto` runs
`localredirect` on every call, under the same delays as the
`localredirect` row; it took 1.107x its median (1.039x its mean) while
the stamp exchange's lag at 8 B was half its rounds: a tree's leaves
send and leave as they arrive, so they advance the exchange once a call,
and at the due call 48 of the 64 ranks waited 6-9 us for it (half a
call) before they reduced.  Those waits made ranks late to
`localredirect`'s tree, which learned a longer slack from them, and
some of the random delays' calls then took a longer path (the times
are bimodal, 0.022 to 0.024 ms or 0.027 to 0.032, and the median sits
at the jump).  Small messages now wait all the rounds (6 calls at
P = 64; `PAT_REDUCE_EXCHANGE_LAG`) and no rank waits: 0.998x, and the
balanced mean 1.015x `binomial`'s where it was 1.063x.  At 1 MiB with the last rank late `auto`
stays with `radixk` for the pattern's 30 calls (1.000x; 16 calls after
`none` in the table above it plans around the late rank, 0.902x): the
paced exchange and the evidence a plan needs take longer than the
pattern.  The flip alone at 1 MiB: 0.946x `pipeline`'s median, 0.873x
its mean (the cycle is found and each call is planned for its own late
rank).

EOF2
    # the runs in pattern order (auto_alone_1, 2, ...); every run's
    # balanced unit calls come first, so a row's balanced cell is the
    # first run's (the pattern none), where auto starts afresh
    files=
    i=1
    while [ -s "$data/auto_alone_$i.csv" ]; do
      files="$files $data/auto_alone_$i.csv"
      i=$((i + 1))
    done
    # shellcheck disable=SC2086  # $files: the names, split
    awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; f++; next }
      {
        pat = $c["pattern"]
        sub(/^trace:.*\//, "trace:", pat)
        b = $c["bytes"]; key = pat " " b
        if (key in taken && taken[key] != f) next
        taken[key] = f
        if (!(b in seenb)) { seenb[b] = 1; sizes[++nb] = b }
        if (!((b, pat) in seenp)) { seenp[b, pat] = 1; pats[b, ++np[b]] = pat }
        a = $c["algorithm"]; t = $c["tts_median"] * 1e3
        u = $c["tts_mean"] * 1e3
        if (a == "auto") { au[key] = t; aum[key] = u }
        else {
          if (!(key in bb) || t < bb[key]) { bb[key] = t; bba[key] = a }
          if (!(key in bm) || u < bm[key]) { bm[key] = u; bma[key] = a }
        }
      }
      END {
        print "| pattern, bytes | best blind | auto | auto / best blind | means: best blind, auto / it |"
        print "|---|---|---|---|---|"
        for (s = 1; s <= nb; s++)
          for (j = 1; j <= np[sizes[s]]; j++) {
            k = pats[sizes[s], j] " " sizes[s]; r = au[k] / bb[k]
            mark = (r > 1.03) ? "**" : ""
            printf "| %s | %s %.3f | %.3f | %s%.3f%s | %s %.3f, %.3f |\n", k,
              bba[k], bb[k], au[k], mark, r, mark, bma[k], bm[k],
              aum[k] / bm[k]
          }
      }' $files
  fi
  if ls "$data"/scale_p*.csv >/dev/null 2>&1 ||
    ls "$data"/scale_p*.failed >/dev/null 2>&1; then
    cat <<'EOF'

## Scale: P = 1024 to 16384 simulated ranks

64 KiB, the last rank late by the balanced binomial time (1x): median
time-to-solution in ms of binomial, the oracle (told the arrivals; atomic,
`PAT_REDUCE_SEGMENTS=1`),
localredirect and radixk, the oracle's speedup over binomial next to the
thesis' theory for one delay, 2n/(n+1) with n = ceil(log2 P) rounds, and
the run's wall time and peak memory on this machine (`/usr/bin/time`).
Every send is a rendezvous (`smpi/send-is-detached-thresh:0`: SimGrid
3.32 walks one list of every eager send in flight at each one's
completion, O(P^2) per round).  Calls start on a window of the global
clock (`--sync window`), buffers
above 4 KiB are shared by all ranks (`--shared-above 4K`: their results are
not checked; the smaller sizes of the other experiments check correctness),
and `scripts/smpi-run` picks dlopen or mmap privatization for P.  The
command is in `scripts/reproduce.sh` (scale block); data
`data/scale_pN.*`.  Every rank plans the oracle's whole tree (O(P log
P)); in SMPI's one process the first rank's plan is kept in the
library's memo (`src/core/memo.c`) and the others cut their program from
it (without it, P = 16384 planned P times per call: over 16 GB and 10
minutes).

| P | binomial | oracle | localredirect | radixk | oracle speedup | theory 2n/(n+1) | wall time | peak memory |
|---|---|---|---|---|---|---|---|---|
EOF
    for np in $(ls "$data"/scale_p*.csv "$data"/scale_p*.failed 2>/dev/null |
      sed 's/.*scale_p\([0-9]*\)\..*/\1/' | sort -n); do
      if [ -e "$data/scale_p$np.failed" ]; then
        printf '| %s | did not run: `data/scale_p%s.err` says why |\n' "$np" "$np"
        continue
      fi
      tf="$data/scale_p$np.time"
      wall=- mem=-
      if [ -s "$tf" ]; then
        wall=$(awk -F, '{ printf "%.0f s", $1 }' "$tf")
        mem=$(awk -F, '{ printf "%.2f GiB", $2 / 1048576 }' "$tf")
      fi
      awk -F, -v P="$np" -v wall="$wall" -v mem="$mem" "$HDR"'
        $c["pattern"] == "single" { t[$c["algorithm"]] = $c["tts_median"] * 1e3 }
        function ms(a) { return (a in t) ? sprintf("%.3f", t[a]) : "-" }
        END {
          n = 0
          while (2 ^ n < P) n++
          printf "| %d | %s | %s | %s | %s | %s | %.2f | %s | %s |\n",
            P, ms("binomial"), ms("oracle"), ms("localredirect"), ms("radixk"),
            ("oracle" in t) ? sprintf("%.2f", t["binomial"] / t["oracle"]) : "-",
            2 * n / (n + 1), wall, mem
        }' "$data/scale_p$np.csv"
    done
  fi
  if ls "$data"/native_*.csv >/dev/null 2>&1; then
    printf '\n## SMPI reduce algorithms as native peers, P = 128\n\nEach is `--cfg=smpi/reduce:NAME` for `native`; they combine for free.  Median time-to-solution in ms, balanced and with the last rank late by the balanced binomial time (1 MiB).\n\n| SMPI reduce | balanced | late 1x | speedup over our binomial, late |\n|---|---|---|---|\n'
    for f in "$data"/native_*.csv; do
      awk -F, "$HDR"'
        $c["algorithm"] == "native" && $c["pattern"] == "none" {
          tag = $c["tag"]; bal = $c["tts_median"] * 1e3
        }
        $c["algorithm"] == "native" && $c["pattern"] == "single" {
          late = $c["tts_median"] * 1e3; sp = $c["speedup"]
        }
        END { printf "| %s | %.3f | %.3f | %.2f |\n", tag, bal, late, sp }' "$f"
    done
  fi
} >"$md"
echo "report: wrote $md" >&2
