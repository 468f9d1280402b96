#!/usr/bin/env bash
# --threads 1 against --threads per-unit, and against ppn 2 (the same units in twice the
# processes), tcp with 2 nodes, one after the other in one run: per-node Gb/s into the builders,
# the CPU it cost, and the ratio to one reactor thread per process. The machine's limit beside
# them: iperf3 -P 2 on loopback.
# Usage: bash bench/unit_threads_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s points (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 5 1)}

point() {   # name, flags
  "$EVB" --transport tcp --nodes 2 $2 --fragment-size 1MiB --credits 4 --parallel 2 \
    --duration "$T" --quiet --json "$OUT/unit_threads_$1.json" >/dev/null 2>&1
  python3 -c "
import json; r = json.load(open('$OUT/unit_threads_$1.json'))['results']
print(r['system']['per_node_in_gbps'], r['cpu']['cores_busy'], r['cpu']['cores_per_100gbps'], r['system']['errors'])"
}
declare -A res flags=([one]="--launch-local 2 --threads 1" [per-unit]="--launch-local 2 --threads per-unit" [ppn2]="--launch-local 4 --ppn 2")
for k in one per-unit ppn2; do res[$k]=$(point $k "${flags[$k]}"); done
for k in one per-unit ppn2; do
  python3 -c "
a, b = '${res[one]}'.split(), '${res[$k]}'.split()
print(f'{\"${flags[$k]}\":36}: {float(b[0]):7.2f} Gb/s/node  cores busy {float(b[1]):4.2f}  cores per 100 Gb/s {float(b[2]):5.2f}  errors {b[3]}  ratio to --threads 1 {float(b[0]) / float(a[0]):.3f}')"
done
iperf3 -s -1 -p 5298 >/dev/null 2>&1 & listening 5298
iperf3 -c 127.0.0.1 -p 5298 -P 2 -t "$T" -J >"$OUT/unit_threads_bench_iperf3.json" || true
peer=$(peer iperf3 "$OUT/unit_threads_bench_iperf3.json")
python3 -c "print(f'limit  iperf3 -P 2 on loopback: {float($peer) / 2:.2f} Gb/s per stream')"
