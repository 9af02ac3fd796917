#!/usr/bin/env bash
# The .deb on a fresh Debian 12 (README "Install"; not in CI: it downloads a
# base system and the package's dependencies): debootstrap a minimal bookworm
# into DIR, install the package with apt (which fetches its dependencies),
# and run the main job's four suites and its report with the installed
# program, no checkout in sight. As root.
# Usage: test_deb.sh PATH/sdcbench_VERSION_amd64.deb [DIR]
set -euo pipefail
deb="$(realpath "$1")"; root="${2:-/tmp/sdcbench-deb-test}"
command -v debootstrap > /dev/null || apt-get install -y -q debootstrap > /dev/null
[ -x "$root/bin/bash" ] || debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian > /dev/null
cp /etc/resolv.conf "$root/etc/resolv.conf"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2> /dev/null || true' EXIT
cp "$deb" "$root/tmp/"
chroot "$root" /bin/bash -euo pipefail -c '
  export DEBIAN_FRONTEND=noninteractive HOME=/root
  apt-get update -q > /dev/null
  apt-get install -y -q "/tmp/$(basename "$1")" > /tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; exit 1; }
  test ! -e /work && cd /root && mkdir -p job && cd job
  for s in quick quick_int8 quick_gradient quick_training; do
    sdcbench run /usr/share/sdcbench/suites/$s.json --scale full --quiet --out $s.json > /dev/null
    sdcbench validate $s.json > /dev/null
    sdcbench show --brief $s.json
  done
  sdcbench report quick*.json --out report > /dev/null && test -s report/index.html
  python3 -c "import sdcbench, numpy; print(\"module\", sdcbench.__version__, sdcbench.__file__)"
  echo "the .deb installed and ran the main job"' _ "$deb"
