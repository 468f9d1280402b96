#!/usr/bin/env bash
# The time-window linear shifter (--scheduling a2a) on real transports against eq. 3.2, in one run:
# per transport (tcp and ofi tcp;ofi_rxm under evbench's launcher, mpi under mpirun; 4 ranks, PUSH,
# 256 KiB, 16 credits or w if more, 4 parallel), first the plain barrel shift, whose rate over the network per
# node is taken as the line rate b (what the transport carries per node with every node sending);
# then a2a at --line-rate b with a send window of w = 10 fragments (EVB_A2A_WINDOW=w) and an idle
# window of one (eq. 3.2: b T_send / (T_send + T_idle) = w/(w+1) b per RU). The a2a figure is built Gb/s per node
# (every RU sends in every phase, its own node's too), and the ratio is that over eq. 3.2.
# Usage: bash bench/a2a_bench.sh [seconds per run]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s runs (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 5 1)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
W=${EVB_A2A_WINDOW:-10}   # fragments per send window
# Credits that feed the window twice over (a BU's c credits give one RU at most 2 c fragments per window).
FLAGS=(--protocol push --fragment-size 256KiB --credits $((W > 16 ? W : 16)) --parallel 4 --duration "$T" --quiet)

run() {   # transport name, json, flags...
  local name=$1 json=$2; shift 2
  case $name in
    mpi) set -- mpirun -np 4 --oversubscribe "$EVB" --transport mpi "${FLAGS[@]}" "$@" ;;
    ofi) set -- "$EVB" --launch-local 4 --transport ofi --ofi-provider "tcp;ofi_rxm" "${FLAGS[@]}" "$@" ;;
    *) set -- "$EVB" --launch-local 4 --transport "$name" "${FLAGS[@]}" "$@" ;;
  esac
  "$@" --json "$json" >"$json.log" 2>&1 || { echo "a2a_bench.sh: $name failed: $(tail -3 "$json.log")" >&2; exit 1; }
}
field() { python3 -c "import json; print(json.load(open('$1'))['results']['system']['$2'])"; }

printf "%-5s %12s %12s %12s %12s %8s %7s\n" transport "plain_b_Gbps" "eq3.2_Gbps" "a2a_built" "a2a_network" ratio errors
for t in tcp mpi ofi; do
  run "$t" "$OUT/a2a_${t}_plain.json"
  b=$(field "$OUT/a2a_${t}_plain.json" per_node_in_gbps)
  # w fragments at b in the send window, one fragment's time idle. evbench rounds a fragment's time
  # up to a whole picosecond; the window is rounded up to a whole nanosecond, so that w fit (a
  # window a picosecond short holds w - 1, a tenth less at w = 10).
  read -r send idle < <(python3 -c "
import math; t = math.ceil(256 * 1024 * 8 / $b * 1e3)   # ps
print(f'{math.ceil($W * t / 1000)}ns', f'{math.ceil(t / 1000)}ns')")
  run "$t" "$OUT/a2a_${t}.json" --scheduling a2a --line-rate "$b" --send-window "$send" --idle-window "$idle"
  python3 - "$t" "$b" "$OUT/a2a_${t}.json" <<'PY'
import json, sys
name, b, doc = sys.argv[1], float(sys.argv[2]), json.load(open(sys.argv[3]))
s, eq = doc["results"]["system"], doc["config"]["a2a"]["eq_3_2_gbps_per_ru"]
print(f"{name:<5} {b:12.3f} {eq:12.3f} {s['per_node_built_gbps']:12.3f} {s['per_node_in_gbps']:12.3f} {s['per_node_built_gbps'] / eq:8.3f} {s['errors']:7}")
PY
done
