#!/bin/sh
# readme_commands.sh SOURCE_DIR BUILD_DIR [README]
#
# Every command the README shows works: each command of a ```sh block, and
# each "$ command" line of a transcript, runs from a scratch directory
# that holds build/, bench/ and scripts/ (links to the build and the
# sources), so the README's relative paths are the ones a user types.
# A command runs as written except for the edits below, each there
# because a test on two cores cannot take the command literally:
#
#   mpiexec -n N, N >= 10         -> -n 4 (ranks on two cores)
#   smpi-run N, smpi-compare N,
#   smpirun -np N (N >= 17)       -> 16 simulated ranks (minutes at 128+)
#   --reps N                      -> --reps 2 (patbench's fewest)
#   /path/to/, ./your_app, ./app  -> build/, a program that calls MPI_Reduce
#   $HOME                         -> a scratch home (cmake --install)
#   myapp, myapp.c                -> tests/install's consumer (a user's app)
#
# `make TARGET` is checked with `make -n` (the target exists and its recipe
# expands): `make test` is this suite and `make demo` takes minutes (CI
# runs the tests; the demo's patbench options are the ones run here).
# Commands that run in SMPI are skipped, said on stdout, when the SMPI
# sub-build is missing.  A README block that holds commands but is not
# tagged sh fails the test: tag it, so that it is checked.
#
# Inline commands in the text are checked too: `make TARGET` (make -n),
# `scripts/NAME` (there and executable), and `TOOL --option` for the
# installed tools (the option is in TOOL --help).  Given a third argument,
# that file is checked instead (the test of this test: a README with
# seeded mistakes, each of which must fail).
set -u
src=$1 build=$2
readme=${3:-$src/README.md}
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
export HOME="$top/home"
mkdir -p "$HOME" "$top/work"
work=$top/work
ln -s "$build" "$work/build"
ln -s "$src/bench" "$work/bench"
ln -s "$src/scripts" "$work/scripts"
mkdir -p "$work/myapp"
cp "$src/tests/install/CMakeLists.txt" "$src/tests/install/consumer.c" \
  "$work/myapp/"
cp "$src/tests/install/consumer.c" "$work/myapp.c"
smpi=0
if command -v smpirun >/dev/null 2>&1 && [ -x "$build/smpi/patbench" ]; then
  smpi=1
fi

passed=0 failed=0 skipped=0
# fail LINE WHY [OUTPUT]: OUTPUT's end shown
fail() {
  failed=$((failed + 1))
  echo "FAIL: README.md:$1: $2"
  [ $# -lt 3 ] || tail -20 "$3"
}

# README.md's commands, one per line: "LINE<TAB>command" (continuations
# joined, comments dropped), and "LINE<TAB>UNTAGGED" for a command in a
# block not tagged sh.
awk '
/^```/ {
  if (!inb) { inb = 1; sh = ($0 ~ /^```(sh|bash)[ \t]*$/) }
  else inb = 0
  cont = ""
  next
}
inb && sh {
  if (cont == "") start = NR
  cmd = cont $0
  if (cmd ~ /\\$/) { cont = substr(cmd, 1, length(cmd) - 1); next }
  cont = ""
  sub(/^[ \t]+/, "", cmd)
  if (cmd ~ /^#/) next
  sub(/[ \t]+#.*$/, "", cmd)
  gsub(/[ \t]+/, " ", cmd)
  if (cmd != "") print start "\t" cmd
  next
}
inb && /^\$ / { print NR "\t" substr($0, 3); next }
inb && /^(mpiexec|make|cmake|mpicc|smpirun|scripts\/|build\/|PAT_REDUCE_[A-Z_]+=)/ {
  print NR "\tUNTAGGED"
}
' "$readme" >"$top/commands"

# the edits of the header, in order
edit() {
  printf '%s\n' "$1" | sed -E \
    -e 's/mpiexec -n ([1-9][0-9]+)/mpiexec -n 4/' \
    -e 's/(smpi-run|smpi-compare) ([0-9]{3,}|1[7-9]|[2-9][0-9])/\1 16/' \
    -e 's/smpirun -np ([0-9]{3,}|1[7-9]|[2-9][0-9])/smpirun -np 16/' \
    -e 's/--reps [0-9]+/--reps 2/' \
    -e 's|/path/to/|build/|g' \
    -e 's#\./(your_app|app)( |$)#build/tests/plain_reduce\2#'
}

seen=""
while IFS="$(printf '\t')" read -r line cmd; do
  if [ "$cmd" = UNTAGGED ]; then
    fail "$line" "a command in a code block not tagged sh (tag it: \`\`\`sh)"
    continue
  fi
  case "$seen" in *"|$cmd|"*) continue ;; esac
  seen="$seen|$cmd|"
  run=$(edit "$cmd")
  case $run in
  make\ *)
    run="make -n -C '$src' BUILD='$build' ${run#make }"
    ;;
  *smpi-run* | *smpi-compare* | *smpirun*)
    if [ $smpi -eq 0 ]; then
      echo "skipped (no SMPI sub-build or smpirun): README.md:$line: $cmd"
      skipped=$((skipped + 1))
      continue
    fi
    ;;
  esac
  echo "README.md:$line: $run"
  if (cd "$work" && timeout 600 sh -c "$run") </dev/null >"$top/out" 2>&1; then
    passed=$((passed + 1))
  else
    fail "$line" "exit $? from: $run" "$top/out"
  fi
done <"$top/commands"
[ -s "$top/commands" ] || fail 0 "no command found: is the README there?"

# Inline commands of the text: `make TARGET`, `scripts/NAME ...`,
# `TOOL --option ...`.
grep -n -o '`[^`]*`' "$readme" | sed 's/`//g' >"$top/inline"
while IFS=: read -r line span; do
  set -f
  # shellcheck disable=SC2086 # the span's words
  set -- $span
  set +f
  [ $# -ge 1 ] || continue
  case $1 in
  make)
    [ $# -ge 2 ] || continue
    if make -n -C "$src" BUILD="$build" "$2" </dev/null >"$top/out" 2>&1; then
      passed=$((passed + 1))
    else
      fail "$line" "\`$span\`: no make target $2" "$top/out"
    fi
    ;;
  scripts/*)
    if [ -x "$src/$1" ]; then
      passed=$((passed + 1))
    else
      fail "$line" "\`$span\`: $1 is not an executable script"
    fi
    ;;
  patbench | patreduce_info | patcalibrate | patmktrace | build/patbench | \
    build/patreduce_info | build/patcalibrate | build/patmktrace)
    tool=$build/${1#build/}
    [ -x "$tool" ] || { fail "$line" "\`$span\`: $tool not built"; continue; }
    shift
    for w in "$@"; do
      case $w in
      --*)
        opt=${w%%=*}
        if [ "${tool##*/}" = patbench ]; then
          # patbench is an MPI program: its help from one rank
          mpiexec -n 1 "$tool" --help </dev/null >"$top/out" 2>&1
        else
          "$tool" --help </dev/null >"$top/out" 2>&1
        fi
        if grep -q -- "$opt" "$top/out"; then
          passed=$((passed + 1))
        else
          fail "$line" "\`$span\`: ${tool##*/} has no option $opt"
        fi
        ;;
      esac
    done
    ;;
  esac
done <"$top/inline"

echo "readme_commands: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
