#!/bin/sh
# patbench_paths.sh MPIEXEC PATBENCH [MPIEXEC_FLAGS...]
#
# User text that a shell or a format would break on: the output directory
# "it's, a dir", a tag with a comma and quotes, a trace file named d"q.txt.  patbench must succeed; the
# CSV's tag is one quoted field (RFC 4180); the trace holds the escaped
# configuration name; gnuplot (run without a shell, the file names quoted
# in its script) writes the figures.  An output whose directory is not
# there fails before anything is measured, naming the option and path.
set -u
mpiexec=$1 pb=$2
shift 2
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
dir="$top/it's, a dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
"$mpiexec" -n 2 "$@" "$pb" -q --sizes 8 --reps 3 -a binomial \
  --imbalance 0,1ms --tag 'vm,"quiet"' -O "$dir/o.csv" --plot "$dir/fig" \
  --trace "$dir/t.json" >"$top/out" 2>&1 || { cat "$top/out"; fail "patbench failed"; }
sed -n 2p "$dir/o.csv" | grep -q '^"vm,""quiet""",2,8,' ||
  { cat "$dir/o.csv"; fail "the tag is not one quoted CSV field"; }
grep -q '"name":"8 B single 1ms: binomial"' "$dir/t.json" ||
  { head -c 400 "$dir/t.json"; fail "no process name in the trace"; }
# a trace file whose name holds a double quote: in the CSV's pattern field
# (doubled, quoted) and in the trace's process names (backslash-escaped)
printf '0 0.001\n0.001 0\n' >"$dir/d\"q.txt"
"$mpiexec" -n 2 "$@" "$pb" -q --sizes 8 --reps 3 -a binomial \
  --pattern "trace:$dir/d\"q.txt" -O "$dir/o2.csv" --trace "$dir/t2.json" \
  >"$top/out" 2>&1 || { cat "$top/out"; fail "patbench failed on a trace file"; }
grep -qF 'd""q.txt"' "$dir/o2.csv" || { cat "$dir/o2.csv"; fail "pattern not escaped in the CSV"; }
grep -qF 'd\"q.txt' "$dir/t2.json" || { head -c 600 "$dir/t2.json"; fail "pattern not escaped in the trace"; }
if command -v gnuplot >/dev/null; then
  [ -s "$dir/fig-8B-single-runtime.png" ] ||
    { cat "$top/out"; fail "no figure from gnuplot"; }
else
  echo "gnuplot not installed: figures not checked"
fi
# a directory that is not there: said before anything is measured, exit 2
for o in "--plot $top/nodir/fig" "--output $top/nodir/o.csv" "--trace $top/nodir/t.json"; do
  # shellcheck disable=SC2086 # the option and its path, split on purpose
  "$mpiexec" -n 2 "$@" "$pb" -q --sizes 8 --reps 3 -a binomial $o \
    >"$top/out" 2>&1
  rc=$?
  [ $rc -eq 2 ] || { cat "$top/out"; fail "$o: exit $rc, want 2"; }
  grep -q "patbench: ${o%% *} $top/nodir/" "$top/out" ||
    { cat "$top/out"; fail "$o: the option and path not named"; }
  ! grep -q "^binomial" "$top/out" || fail "$o: measured before failing"
done
echo "patbench_paths: ok"
