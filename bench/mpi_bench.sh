#!/usr/bin/env bash
# The event builder on the mpi transport against MPI_Alltoall of the same bytes per node, and
# against the tcp transport, in one run (paper 003 fig. 2). Usage: bash bench/mpi_bench.sh [ranks] [seconds]
# Prints Gb/s per node for each and the ratios. As root, the OMPI_ALLOW_RUN_AS_ROOT variables are set here.
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-4}
secs=${2:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x build/evbench ] || cmake --build build
run() { mpirun --oversubscribe -np "$ranks" build/evbench --fragment-size 1MiB --duration "${secs}s" --quiet "$@" | tail -1 |
        sed -E 's/.* ([0-9.]+) Gb\/s per node.*/\1/'; }
a2a=$(run --baseline alltoall)
printf "%-44s %8s %8s\n" "run ($ranks ranks, 1 MiB, ${secs} s)" "Gb/s/node" "/a2a"
printf "%-44s %8.2f %8s\n" "MPI_Alltoall" "$a2a" "1.00"
for cfg in "--transport mpi --credits 2 --parallel 1" "--transport mpi --credits 1 --parallel 4" "--transport mpi --credits 2 --parallel 4" \
           "--transport mpi --mpi-rma --credits 1 --parallel 4" "--transport mpi --mpi-rma --protocol pull-noem --credits 1 --parallel 4" "--transport tcp --credits 1 --parallel 4" "--transport tcp --credits 2 --parallel 1"; do
  v=$(run $cfg)
  printf "%-44s %8.2f %8.2f\n" "$cfg" "$v" "$(echo "$v / $a2a" | bc -l)"
done
