#!/bin/sh
# mutant_readme.sh SOURCE_DIR BUILD_DIR
# readme_commands.sh must catch each seeded mistake of a README: a make
# target that is not there, a command that fails, a command block not
# tagged sh, a tool option that does not exist, a script that is not
# there.  Each alone makes it fail, naming its line.
set -u
src=$1 build=$2
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT
check=$(dirname "$0")/readme_commands.sh
n=0
for mistake in 'Run `make no-such-target` first.' \
  '```sh
build/patreduce_info --no-such-option
```' \
  '```
mpiexec -n 2 build/patcalibrate --reps 3
```' \
  'See `patbench --no-such-flag`.' \
  'Run `scripts/no-such-script`.'; do
  n=$((n + 1))
  printf '# A README\n\nText.\n\n%s\n' "$mistake" >"$top/README.md"
  if sh "$check" "$src" "$build" "$top/README.md" >"$top/out" 2>&1; then
    echo "FAIL: mistake $n not caught:"
    printf '%s\n' "$mistake"
    cat "$top/out"
    exit 1
  fi
  grep -q "^FAIL: README.md:[56]:" "$top/out" || {
    echo "FAIL: mistake $n: no FAIL line naming its line"
    cat "$top/out"
    exit 1
  }
done
echo "mutant_readme: $n mistakes caught"
