#!/usr/bin/env bash
# CPU cost of moving event data: cores kept busy per 100 Gb/s into the builders (getrusage per
# process, README "CPU cost"), for local (one process, memcpy), tcp (kernel sockets) and mpi (Open
# MPI's shared memory / tcp), 2 nodes at ppn 1 each, one after the other in one run. The machine's
# own limit is printed beside them: the memcpy bandwidth of one core (bench/memcpy_bandwidth), whose
# cost is 100 / (its Gb/s) cores per 100 Gb/s.
# Usage: bash bench/cpu_cost_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s points (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 5 1)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ARGS="--nodes 2 --fragment-size 1MiB --credits 4 --parallel 2 --duration $T --quiet"

point() {   # name, launcher-and-transport words...
  local name=$1; shift
  "$@" $ARGS --json "$OUT/cpu_$name.json" >/dev/null 2>&1
  python3 -c "
import json; r = json.load(open('$OUT/cpu_$name.json'))['results']; c = r['cpu']
print(f\"{'$name':<6} {r['system']['per_node_in_gbps']:8.2f} Gb/s/node  user {c['user_s']:6.2f} s  system {c['system_s']:6.2f} s  \"
      f\"cores busy {c['cores_busy']:5.2f}  cores per 100 Gb/s {c['cores_per_100gbps']:6.2f}  errors {r['system']['errors']}\")"
}
point local $EVB --transport local
point tcp $EVB --transport tcp --launch-local 2
point mpi mpirun --oversubscribe -np 2 $EVB --transport mpi
memcpy=$("$MEMCPY" 1048576 64 64 "$T")   # Gb/s, 1 MiB blocks
echo "limit  one core's memcpy: ${memcpy} Gb/s, i.e. $(python3 -c "print(f'{100 / float(\"$memcpy\"):.2f}')") cores per 100 Gb/s for one copy"
