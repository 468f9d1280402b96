#!/usr/bin/env bash
# Installs every Debian 12 package that evbench's build, tests and benchmarks need.
# Idempotent: packages already present are skipped by apt-get.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache pkg-config clang libclang-rt-14-dev
  libcli11-dev libspdlog-dev libfmt-dev libgtest-dev nlohmann-json3-dev
  libhwloc-dev libnuma-dev libssl-dev
  iperf3 python3 valgrind linux-perf
  ibsim-utils opensm infiniband-diags
  openmpi-bin libopenmpi-dev python3-matplotlib
  slurm-wlm munge
  libibverbs-dev librdmacm-dev ibverbs-providers rdma-core perftest strace libfabric-dev libfabric-bin libucx-dev ucx-utils libpsm2-dev qperf iproute2 qemu-system-x86 busybox-static cpio
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
