#!/bin/sh
# install_consumer.sh BUILD_DIR SOURCE_DIR MPIEXEC [MPIEXEC_FLAGS...]
# Installs patreduce from BUILD_DIR into a temporary prefix, checks the
# installed tools run from there (patreduce_info --check, patbench,
# patmktrace, patcalibrate present), then builds a consumer with
# find_package(patreduce) and one with pkg-config, and runs them under
# mpiexec.
set -eu
build=$1 src=$2 mpiexec=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -f "$tmp/prefix/include/reduce/pat_reduce.h"
test -f "$tmp/prefix/include/reduce/pat_schedule.h"
ls "$tmp"/prefix/lib*/libpatreduce.a "$tmp"/prefix/lib*/libpatreduce_pmpi.so >/dev/null
# the tools, runnable from the prefix
for t in patreduce_info patbench patcalibrate patmktrace; do
  test -x "$tmp/prefix/bin/$t"
done
"$tmp/prefix/bin/patreduce_info" --check >/dev/null
"$tmp/prefix/bin/patmktrace" --help >/dev/null
"$tmp/prefix/bin/patcalibrate" --help >/dev/null
"$mpiexec" -n 2 "$@" "$tmp/prefix/bin/patbench" -q --sizes 8 --reps 3 \
  --pattern none --imbalance 0 -a binomial,native >"$tmp/bench" 2>&1
grep -q "^binomial" "$tmp/bench"

cmake -S "$src/tests/install" -B "$tmp/consumer" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
LD_LIBRARY_PATH=$(echo "$tmp"/prefix/lib*) "$mpiexec" -n 2 "$@" \
  -x LD_LIBRARY_PATH "$tmp/consumer/consumer" | tee "$tmp/out1"
grep -q "results ok" "$tmp/out1"

pc=$(echo "$tmp"/prefix/lib*/pkgconfig)
mpicc "$src/tests/install/consumer.c" -o "$tmp/consumer_pc" \
  $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs patreduce)
LD_LIBRARY_PATH=$(echo "$tmp"/prefix/lib*) "$mpiexec" -n 2 "$@" \
  -x LD_LIBRARY_PATH "$tmp/consumer_pc" | tee "$tmp/out2"
grep -q "results ok" "$tmp/out2"
echo "install_consumer: 2 passed, 0 failed"
