#!/usr/bin/env bash
# Paper 003's message mix against one write per fragment, on tcp (evbench's launcher) and on mpi
# (mpirun), 4 processes each, side by side in one run: 1 MiB fragments as one write, and the
# paper's mix (two 0.5 MiB data segments and two 10 KB metadata segments; 1.02 MiB per fragment).
# Figures are per-node Gb/s built (every byte into the BUs, each node's own fragment and the
# metadata included: built_gbps); ratio = mix / one write.
# Usage: bash bench/message_mix_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s points (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 5 1)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MIX="--data-segments 2 --meta-size 10KB --meta-segments 2"

point() {   # name, launcher-and-transport words..., then the mix flags or nothing
  local name=$1; shift
  "$@" --credits 2 --parallel 2 --fragment-size 1MiB --duration "$T" --quiet --json "$OUT/mix_$name.json" >/dev/null 2>&1
  python3 -c "
import json; r = json.load(open('$OUT/mix_$name.json'))['results']; s = r['system']
n = r['nodes']; w = sum(x['raw']['writes_in'] for x in n); f = sum(x['raw']['fragments_in'] for x in n)
print(f\"{s['per_node_built_gbps']:.3f} {w / max(f, 1):.0f} {s['errors']}\")"
}
row() {   # label, single result, mix result
  python3 -c "
a, b = '$2'.split(), '$3'.split()
print(f'{\"$1\":<6} one write {float(a[0]):7.2f} Gb/s/node ({a[1]} write/fragment, errors {a[2]})   mix {float(b[0]):7.2f} Gb/s/node ({b[1]} writes/fragment, errors {b[2]})   ratio {float(b[0]) / float(a[0]):.3f}')"
}
tcp1=$(point tcp_one $EVB --transport tcp --launch-local 4)
tcpm=$(point tcp_mix $EVB --transport tcp --launch-local 4 $MIX)
row tcp "$tcp1" "$tcpm"
mpi1=$(point mpi_one mpirun --oversubscribe -np 4 $EVB --transport mpi)
mpim=$(point mpi_mix mpirun --oversubscribe -np 4 $EVB --transport mpi $MIX)
row mpi "$mpi1" "$mpim"
