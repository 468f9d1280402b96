#!/usr/bin/env bash
# Each driver on a shared node, in one run: the bytes its ranks move across the transport when
# they have the machine to themselves (one process per core: 2 processes), when there are twice
# as many processes as cores (4), when the same 2 nodes run 5 processes (--ppn 2 --em own: each
# node's RU and BU apart, and the EM alone), and when a busy process (a CPU hog, `yes`) runs beside them,
# for each --poll: spin (every idle rank spins), adaptive (the default: spin 20 us, then sleep on
# the transport's wait object) and event (sleep at once). Ratio = the figure / the same driver's
# quiet spin figure.
# PUSH, 256 KiB fragments, 4 credits; a figure is the bytes that crossed the transport (in_Gbps:
# the fragment a node builds from itself never does).
# mpi has no wait object (evbench refuses --poll event with it): adaptive yields, then naps; with
# spin, Open MPI yields by itself when mpirun oversubscribes.
# Usage: bash bench/shared_node_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s points, tcp and mpi only.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 3 1)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
FLAGS=(--protocol push --fragment-size 256KiB --credits 4 --duration "$T" --quiet)

# json: Gb/s that crossed the transport: with one process per node the fragment a BU builds from
# its own node never does (in_gbps), with --ppn 2 every fragment does (the RU is another process).
wire_gbps() {
  python3 -c "import json; j = json.load(open('$1')); r = j['results']['system']
print(f\"{r['in_gbps' if j['config']['ppn'] == 1 else 'built_gbps']:.2f}\")"
}
point() {   # label, ranks, poll, transport flags...   (5 ranks: 2 nodes, --ppn 2 --em own)
  local label=$1 n=$2 poll=$3; shift 3
  local json="$OUT/shared_${label}_${n}_${poll}${HOG:+_hog}.json" shape=()
  [ "$n" = 5 ] && shape=(--ppn 2 --em own)
  if [ "$1" = mpi ]; then
    mpirun -np "$n" --oversubscribe "$EVB" --transport mpi --poll "$poll" "${shape[@]}" "${FLAGS[@]}" --json "$json" >/dev/null 2>&1
  else
    "$EVB" --launch-local "$n" --poll "$poll" --transport "$@" "${shape[@]}" "${FLAGS[@]}" --json "$json" >/dev/null 2>&1
  fi
  wire_gbps "$json"
}
ratio() { python3 -c "print(f'{float($1) / float($2):.2f}')"; }

drivers=("tcp|tcp" "mpi|mpi")
$SMOKE || drivers=("tcp|tcp" "ofi_tcp|ofi --ofi-provider tcp;ofi_rxm" "ofi_shm|ofi --ofi-provider shm"
                            "ucx_tcp|ucx --ucx-tls tcp" "ucx_shm|ucx --ucx-tls posix,cma" "mpi|mpi")
printf '%-9s %-9s %8s %8s %6s %8s %6s %8s %6s\n' driver poll quiet 2x_procs ratio 5_procs ratio hog ratio
for d in "${drivers[@]}"; do
  label=${d%%|*}; read -r -a transport <<< "${d#*|}"
  quiet=""
  polls=(spin adaptive event); $SMOKE && polls=(spin adaptive); [ "$label" = mpi ] && polls=(spin adaptive)
  for poll in "${polls[@]}"; do
    q=$(point "$label" 2 "$poll" "${transport[@]}")
    [ -n "$quiet" ] || quiet=$q
    o=$(point "$label" 4 "$poll" "${transport[@]}")
    f=$(point "$label" 5 "$poll" "${transport[@]}")
    yes > /dev/null & hog=$!
    h=$(HOG=1 point "$label" 2 "$poll" "${transport[@]}")
    kill $hog; wait $hog 2>/dev/null || true
    printf '%-9s %-9s %8s %8s %6s %8s %6s %8s %6s\n' "$label" "$poll" "$q" "$o" "$(ratio "$o" "$quiet")" "$f" "$(ratio "$f" "$quiet")" \
      "$h" "$(ratio "$h" "$quiet")"
  done
done
echo "(Gb/s across the transport, all nodes; ratios to the driver's quiet spin figure: 2 processes on 2 cores)"
