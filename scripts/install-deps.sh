#!/bin/sh
# Installs the Debian packages patreduce needs, only those missing.
# As root it runs apt-get; otherwise it prints the command and stops.
set -eu
PACKAGES="cmake make gcc gfortran pkg-config libopenmpi-dev openmpi-bin libgsl-dev libcmocka-dev spin libsimgrid-dev gnuplot-nox"
missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0
echo "patreduce: missing Debian packages:$missing"
if [ "$(id -u)" -ne 0 ]; then
  echo "patreduce: run this, then try again:"
  echo "  sudo apt-get update && sudo apt-get install -y$missing"
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing
