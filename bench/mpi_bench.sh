#!/usr/bin/env bash
# The event builder on the mpi transport against MPI_Alltoall of the same bytes per node, and
# against the tcp transport, in one run (paper 003 fig. 2). Usage: bash bench/mpi_bench.sh [ranks] [seconds]
# Prints Gb/s per node for each and the ratios. As root, the OMPI_ALLOW_RUN_AS_ROOT variables are set here.
# EVB_BENCH_SMOKE=1: 1 s, three of the configurations (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
ranks=${1:-4}
secs=${2:-$(smoke 3 1)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() {   # Gb/s per node of one run, from its system line
  local line
  line=$(mpirun --oversubscribe -np "$ranks" "$EVB" --fragment-size 1MiB --duration "${secs}s" --quiet "$@" | tail -1)
  [[ $line =~ \ ([0-9.]+)\ Gb/s\ per\ node ]] || { echo "mpi_bench.sh: $* printed no system line: ${line:0:200}" >&2; return 1; }
  echo "${BASH_REMATCH[1]}"
}
# mpi ranks spin, as MPI_Alltoall's do: with more ranks than cores --poll adaptive naps them when
# nothing is in flight, which is not what this compares.
configs=("--transport mpi --poll spin --credits 2 --parallel 1" "--transport mpi --poll spin --credits 1 --parallel 4" "--transport mpi --poll spin --credits 2 --parallel 4"
         "--transport mpi --poll spin --mpi-rma --credits 1 --parallel 4" "--transport mpi --poll spin --mpi-rma --protocol pull-noem --credits 1 --parallel 4"
         "--transport tcp --credits 1 --parallel 4" "--transport tcp --credits 2 --parallel 1")
$SMOKE && configs=("${configs[0]}" "${configs[3]}" "${configs[5]}")
a2a=$(run --baseline alltoall)
printf "%-44s %8s %8s\n" "run ($ranks ranks, 1 MiB, ${secs} s)" "Gb/s/node" "/a2a"
printf "%-44s %8.2f %8s\n" "MPI_Alltoall" "$a2a" "1.00"
for cfg in "${configs[@]}"; do
  v=$(run $cfg)
  printf "%-44s %8.2f %8.2f\n" "$cfg" "$v" "$(echo "$v / $a2a" | bc -l)"
done
