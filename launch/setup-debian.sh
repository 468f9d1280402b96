#!/usr/bin/env bash
# Installs the Debian 12 packages evbench needs, in two sets:
#   bash launch/setup-debian.sh build   what building evbench (with every driver) and running it need
#   bash launch/setup-debian.sh         the same, and what the tests and benchmarks need (default: all)
# Idempotent: packages already present are skipped by apt-get.
set -euo pipefail
set_asked=${1:-all}
case "$set_asked" in
  build | all) ;;
  *) echo "setup-debian.sh: unknown set '$set_asked' (build or all)" >&2; exit 2 ;;
esac
# The compiler and build tools, the libraries evbench links, and every driver's development package
# (a driver whose library is missing is left out of the build).
build=(
  build-essential cmake ninja-build ccache pkg-config python3
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libhwloc-dev libnuma-dev libssl-dev
  libibverbs-dev librdmacm-dev libfabric-dev libucx-dev libpsm2-dev libopenmpi-dev
)
# The tests (GoogleTest, the sanitizer build's clang, mpirun, Slurm, ibsim and OpenSM, the soft-RoCE
# VM, network namespaces) and the benchmarks' peer tools and profilers.
tests=(
  libgtest-dev clang clang-format libclang-rt-14-dev valgrind linux-perf strace iproute2 groff-base
  openmpi-bin python3-matplotlib python3-jsonschema slurm-wlm munge
  ibsim-utils opensm infiniband-diags ibverbs-providers rdma-core
  iperf3 perftest qperf libfabric-bin ucx-utils
  qemu-system-x86 busybox-static cpio
)
packages=("${build[@]}")
[ "$set_asked" = all ] && packages+=("${tests[@]}")
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
