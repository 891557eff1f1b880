#!/bin/sh
# make reproduce: the thesis' experiments (Marendić 2016, chapter 5) run
# with patbench in SimGrid SMPI on the CURIE-like platform, in simulated
# time, then report/REPORT.md (scripts/report.sh) from what they wrote.
#
# usage: scripts/reproduce.sh [OUTDIR]     (default report)
# Environment: BUILD (default: build in the repository); QUICK=1 runs smaller sweeps (for a
# check of the pipeline, not for the figures); BASELINE_ALGS (default
# binomial,ring,butterfly,radixk,pipeline,oracle) and BASELINE_NATIVES (default
# mpich,ompi_pipeline): the library's rows and SMPI's reduces of the
# bandwidth comparison (thesis chapter 6).  An unknown name stops the script
# before anything runs.
#
# Simulated time is deterministic: patterns without randomness (single,
# odd) need only 3 repetitions (the first is dropped, the other two are
# equal); random ones (k-random, gamma) take 21.  The PAT layer's stamp
# exchange is switched off where nothing predicts: the oracle, told the
# arrival times, and the platform's model file (round cost) need no
# exchange.  The predicted clairvoyant runs in the trace experiment, where
# prediction is the point, and auto in its own table.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-report}
build=${BUILD:-$here/build}
export BUILD="$build"
quick=${QUICK:-0}
baseline_algs=${BASELINE_ALGS:-binomial,ring,butterfly,radixk,pipeline,oracle}
baseline_natives=${BASELINE_NATIVES:-mpich,ompi_pipeline}
# every name of the bandwidth comparison must exist before anything runs
# (one tiny P = 2 run each), and before the old report is removed
if ! "$here/scripts/smpi-compare" --check "$baseline_algs" "$baseline_natives"; then
  echo "reproduce: BASELINE_ALGS=$baseline_algs or BASELINE_NATIVES=$baseline_natives names something this build does not have (above); set them to names it has, e.g. BASELINE_ALGS=binomial,native,localredirect,oracle" >&2
  exit 2
fi
# a fresh report: nothing of an earlier run may leak into it
rm -rf "$out/data" "$out/fig"
mkdir -p "$out/data" "$out/fig"

step() { printf '\n== %s\n' "$*" >&2; }

# run [--no-plot] NAME NP [PATBENCH ARGS...]: one patbench run; table in
# data/NAME.txt, CSV in data/NAME.csv, figures fig/NAME-* unless --no-plot
# (patbench plots against imbalance, so a run needs two imbalances or more
# for figures).  Environment for one run only: run it in a subshell.
run() {
  plot=yes
  if [ "$1" = --no-plot ]; then
    plot=
    shift
  fi
  name=$1 np=$2
  shift 2
  step "$name: P = $np: $*"
  start=$(date +%s)
  if [ -n "$plot" ]; then
    plot="--plot $out/fig/$name"
  fi
  # shellcheck disable=SC2086  # $plot is two words or none
  "$here/scripts/smpi-run" "$np" curie patbench --quiet "$@" \
    --output "$out/data/$name.csv" $plot >"$out/data/$name.txt"
  echo "   $(($(date +%s) - start)) s of real time" >&2
}

common="--algorithms binomial,native,localredirect,oracle --warmup 2"
if [ "$quick" = 1 ]; then
  sweep=1x,4x big=16 random_reps=5 calls=10
else
  sweep=0.25x,0.5x,0.75x,1x,1.25x,1.5x,2x,3x,4x big=1024 random_reps=21
  calls=40
fi

(
  export PAT_REDUCE_EXCHANGE_INTERVAL=0
  # Chapter 5's clairvoyant is the atomic one, whose single-delay theory
  # (2n / (n + 1)) the report sets beside it; the segmented one is chapter
  # 6's, in the bandwidth comparison below (at 1 MiB it would cut the
  # message, 4.1x faster than binomial balanced at P = 128)
  export PAT_REDUCE_SEGMENTS=1
  # Fig. 5.4/5.5: one late process (the last rank), 1 MiB
  # shellcheck disable=SC2086
  run single_p128 128 $common --sizes 1M --pattern single \
    --imbalance "$sweep" --reps 3
  # the P = 1024 extension
  # shellcheck disable=SC2086
  run single_p$big "$big" $common --sizes 1M --pattern single \
    --imbalance 0.5x,1x,2x --reps 2 --warmup 1
  # Fig. 5.9: every odd rank late
  # shellcheck disable=SC2086
  run odd_p128 128 $common --sizes 1M --pattern odd \
    --imbalance 0.5x,1x,2x,4x --reps 3
  # k random processes late by the balanced binomial time
  # shellcheck disable=SC2086
  run --no-plot krandom_p128 128 $common --sizes 1M --pattern k-random:1 \
    --pattern k-random:4 --pattern k-random:16 --pattern k-random:64 \
    --imbalance 1x --reps "$random_reps"
  # Table 5.3: gamma-distributed arrival times, mean the balanced binomial
  # time, coefficients of variation 0.5, 1 and 2
  # shellcheck disable=SC2086
  run --no-plot gamma_p128 128 $common --sizes 1M --pattern gamma:1x:0.5 \
    --pattern gamma:1x:1 --pattern gamma:1x:2 --reps "$random_reps"
  # SMPI's own reduce algorithms as native peers (they combine for free)
  for alg in binomial ompi mpich rab flat_tree mvapich2_knomial; do
    (
      export SMPIRUN_EXTRA="--cfg=smpi/reduce:$alg"
      run --no-plot "native_$alg" 128 --algorithms binomial,native \
        --tag "smpi/reduce:$alg" --sizes 1M --pattern single \
        --imbalance 1x --reps 3 --warmup 1
    )
  done
)

# Thesis chapter 6, figure 6.10: the bandwidth baselines at P = 128 against
# the segmented clairvoyant, one late rank (the last), the library's rows
# (BASELINE_ALGS) and SMPI's reduces (BASELINE_NATIVES, each its own
# smpirun: scripts/smpi-compare) with the same gamma per byte combined
# (--op sum-charged).  With the oracle among the rows, as in the thesis,
# the delay runs from 0 to 5 balanced oracle times (--unit oracle) and
# report.sh normalizes every row to the oracle; without it, to the best
# row, delays in balanced binomial times.  The predicted clairvoyant is not
# a row: with one rank late by the same delay on every call its prediction
# converges to the oracle's arrivals, which the oracle row shows.
# Buffers above 8 MiB (40 MiB here) are shared by all ranks
# (--shared-above): not checked, and 128 x 40 MiB per buffer would not fit
# in memory.  QUICK: two sizes, 4 MiB shared (--shared-above 1M) so that
# both paths run.
if [ "$quick" = 1 ]; then
  bw_sizes=128K,4M bw_imb=1x,5x bw_shared=1M
else
  bw_sizes=128K,512K,2M,4M,40M bw_imb=0,0.5x,1x,2x,3x,4x,5x bw_shared=8M
fi
case ",$baseline_algs," in
*,oracle,*) bw_unit=oracle ;;
*) bw_unit=binomial ;;
esac
step "bandwidth_p128: P = 128: $baseline_algs and smpi/reduce:$baseline_natives, sizes $bw_sizes, single late $bw_imb ($bw_unit times)"
start=$(date +%s)
PAT_REDUCE_EXCHANGE_INTERVAL=0 "$here/scripts/smpi-compare" 128 curie \
  "$out/data/bandwidth_p128" "$baseline_algs" "$baseline_natives" \
  --op sum-charged --tag chapter6 --sizes "$bw_sizes" \
  --unit "$bw_unit" --reference "$bw_unit" \
  --shared-above "$bw_shared" --pattern single --imbalance "$bw_imb" \
  --reps 2 --warmup 1
echo "   $(($(date +%s) - start)) s of real time" >&2

# Table 5.1: synthetic in-situ rendering traces at P = 128 (the thesis'
# trace had 64 ranks; 128 with prediction, the stamp exchange on, is what
# issue 14 asks the PAT layer to scale to: about 12 min of real time per
# scene), 512 KiB, mean delay 2 ms, 4 clusters of ranks; clairvoyant
# predicts with SMA(5).  Three
# scenes: steady (phi 0.999, per-rank noise 0.005: the pattern persists
# from call to call), a slow drift (phi 0.98, noise 0.05) and a faster one
# (phi 0.9, noise 0.05).  data/NAME.about describes each for the report.
for scene in "steady 0.999 0.005" "drift 0.98 0.05" "fastdrift 0.9 0.05"; do
  # shellcheck disable=SC2086  # split the scene into its three words
  set -- $scene
  name=trace_p128_$1
  step "$name: patmktrace 128 $((calls + 1)) 2e-3 4 $2 1 $3"
  "$build/patmktrace" 128 $((calls + 1)) 2e-3 4 "$2" 1 "$3" \
    >"$out/data/$name.trace"
  echo "$1 scene: \`patmktrace 128 $((calls + 1)) 2e-3 4 $2 1 $3\` (AR(1) phi $2, per-rank noise $3)" \
    >"$out/data/$name.about"
  (
    export PAT_REDUCE_PREDICTOR=sma:5
    run --no-plot "$name" 128 \
      --algorithms binomial,localredirect,clairvoyant,oracle --warmup 2 \
      --sizes 512K --pattern "trace:$out/data/$name.trace" \
      --reps $((calls + 1))
  )
done

# auto against every fixed row (issue 14), P = 64 with the stamp exchange
# on (the predicted clairvoyant and auto predict): balanced, the last rank
# late, every odd rank late, 4 random ranks late, gamma arrivals, the three
# trace scenes (steady, drift, fast drift: the trace experiment's, at
# P = 64), and a pattern that flips every call (the last rank late by
# 1 ms, then the first); 8 B, 64 KiB, 1 MiB.  report.sh tables auto's
# median against the best fixed row's and the best PAT-blind one's
# (localredirect among those: it needs no prediction).
if [ "$quick" = 1 ]; then
  auto_sizes=64K auto_reps=6
else
  auto_sizes=8,64K,1M auto_reps=12
fi
awk -v P=64 'BEGIN {
  for (i = 0; i < 2; i++) {
    for (r = 0; r < P; r++)
      printf "%s%s", r ? " " : "", (i == 0 && r == P - 1) || (i == 1 && r == 0) ? "1e-3" : "0"
    printf "\n"
  }
}' >"$out/data/auto_flip.trace"
for scene in "steady 0.999 0.005" "drift 0.98 0.05" "fastdrift 0.9 0.05"; do
  # shellcheck disable=SC2086  # split the scene into its three words
  set -- $scene
  "$build/patmktrace" 64 $((calls + 1)) 2e-3 4 "$2" 1 "$3" \
    >"$out/data/auto_$1.trace"
done
# the patterns of both auto tables, in their order (words: OUTDIR must
# have no blanks)
auto_patterns="none single odd k-random:4 gamma:1x:1"
for scene in steady drift fastdrift flip; do
  auto_patterns="$auto_patterns trace:$out/data/auto_$scene.trace"
done
set --
for pattern in $auto_patterns; do
  set -- "$@" --pattern "$pattern"
done
run --no-plot auto_p64 64 \
  --algorithms binomial,localredirect,ring,butterfly,radixk,pipeline,clairvoyant,auto \
  --sizes "$auto_sizes" "$@" --imbalance 1x --reps "$auto_reps" --warmup 4

# The same goal with each pattern alone (issue 14 states it per
# pattern): one run per pattern, so auto starts each from patbench's
# balanced unit calls (the reference binomial's x of delays, every row
# run balanced first), not from another pattern; the rows that do not
# predict and auto, 30 calls each after 4 warm-up calls.  report.sh
# tables auto's median against the best of those rows'.
if [ "$quick" = 1 ]; then
  alone_patterns="none single" alone_reps=6
else
  alone_patterns=$auto_patterns
  alone_reps=30
fi
i=0
for pattern in $alone_patterns; do
  i=$((i + 1))
  run --no-plot "auto_alone_$i" 64 \
    --algorithms binomial,localredirect,ring,butterfly,radixk,pipeline,auto \
    --sizes "$auto_sizes" --pattern "$pattern" --imbalance 1x \
    --reps "$alone_reps" --warmup 4
done

# Scale (issue 17): P = 1024, 4096 and 16384 simulated ranks, 64 KiB, the
# last rank late by the balanced binomial time: binomial, the oracle,
# localredirect and radixk (the best bandwidth row at this size).  The
# calls start on a window of the global clock (--sync window: SMPI's
# barriers send P log P messages, 7 s of simulation each at P = 16384),
# buffers above 4 KiB are shared (--shared-above: 64 KiB x 3 x 16384 would
# be 3 GiB; correctness is what the small sizes check), smpi-run picks the
# privatization for P, and every send is a rendezvous
# (smpi/send-is-detached-thresh:0): SimGrid 3.32 keeps the detached (eager)
# sends in flight in one list that it walks at each one's completion, so
# P ranks sending at once cost O(P^2) per round (57% of a P = 4096 run;
# with it 5:42 -> 2:02; medians at P = 2048 and 4096 equal to the eager
# runs' within 0.6%, localredirect's balanced one 2.6% above).  The oracle
# is the atomic one (PAT_REDUCE_SEGMENTS=1), whose single-delay theory
# the table shows.  Every rank plans its whole tree (O(P log P),
# principle 5); in SMPI's one process the first rank's plan is kept in the
# memo (src/core/memo.c) and the others cut their program from it
# (without it, over 16 GB and 10 minutes per call at P = 16384).  Wall
# time and peak memory of each run in data/scale_pN.time (/usr/bin/time,
# when the machine has it: Debian package time).  QUICK: P = 1024 only.
if [ "$quick" = 1 ]; then
  scale_ps=1024
else
  scale_ps="1024 4096 16384"
fi
for np in $scale_ps; do
  name=scale_p$np
  algs=binomial,oracle,localredirect,radixk
  step "$name: P = $np: $algs, 64 KiB, last rank late 1x"
  timer=
  if [ -x /usr/bin/time ]; then
    timer="/usr/bin/time -f %e,%M -o $out/data/$name.time"
  fi
  start=$(date +%s)
  # a run that fails (at P = 16384 a machine's vm.max_map_count may be too
  # small: smpi-run says so) is a row of the report that says so, not the
  # end of the script
  # shellcheck disable=SC2086  # $timer is several words or none
  if ! PAT_REDUCE_SEGMENTS=1 SMPIRUN_EXTRA=--cfg=smpi/send-is-detached-thresh:0 \
    $timer "$here/scripts/smpi-run" "$np" curie patbench --quiet \
    --algorithms "$algs" --sizes 64K \
    --pattern single --imbalance 1x --reps 3 --warmup 1 --sync window \
    --shared-above 4K --output "$out/data/$name.csv" \
    >"$out/data/$name.txt" 2>"$out/data/$name.err"; then
    echo "   failed: $out/data/$name.err" >&2
    rm -f "$out/data/$name.csv"
    touch "$out/data/$name.failed"
  fi
  echo "   $(($(date +%s) - start)) s of real time" >&2
done

"$here/scripts/report.sh" "$out"
