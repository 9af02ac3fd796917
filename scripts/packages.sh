#!/usr/bin/env bash
# Sourced by setup.sh and test.sh. sdcbench_packages: the Debian packages the
# build and the main job need. ensure_packages NAME... installs those among
# NAME that are missing (apt-get, as root or through sudo), in one apt-get
# call: test.sh passes its own packages with these, so a clean machine reads
# the package lists once (CI's time).
sdcbench_packages=(build-essential cmake lld pkg-config libmpfr-dev libgmp-dev libboost-dev nlohmann-json3-dev
                   libopenblas-dev libcli11-dev libfmt-dev libgtest-dev libbenchmark-dev libvalijson-dev libssl-dev libdnnl-dev
                   libtorch-dev fortunes dict-gcide zlib1g-dev libopenmpi-dev openmpi-bin python3-mpmath python3-numpy
                   pybind11-dev python3-dev python3-torch python3-pytest)
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing ${missing[*]}" >&2
  local sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
}
