#!/usr/bin/env bash
# --tcp-threads 1 against 2 (and 4), tcp with 2 nodes at ppn 1, one after the other in one run:
# per-node Gb/s into the builders, the CPU it cost, and the ratio to one I/O thread. The machine's
# limit beside them: iperf3 -P 2 on loopback (two streams, as many as the two ranks drive).
# Usage: bash bench/tcp_threads_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s points, 1 and 2 threads (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 5 1)}

point() {   # K
  "$EVB" --transport tcp --launch-local 2 --nodes 2 --tcp-threads "$1" --fragment-size 1MiB --credits 4 --parallel 2 \
    --duration "$T" --quiet --json "$OUT/tcp_threads_$1.json" >/dev/null 2>&1
  python3 -c "
import json; r = json.load(open('$OUT/tcp_threads_$1.json'))['results']
print(r['system']['per_node_in_gbps'], r['cpu']['cores_busy'], r['cpu']['cores_per_100gbps'], r['system']['errors'])"
}
declare -A res
threads=(1 2 4)
$SMOKE && threads=(1 2)
for k in "${threads[@]}"; do res[$k]=$(point "$k"); done
for k in "${threads[@]}"; do
  python3 -c "
a, b = '${res[1]}'.split(), '${res[$k]}'.split()
print(f'--tcp-threads $k: {float(b[0]):7.2f} Gb/s/node  cores busy {float(b[1]):4.2f}  cores per 100 Gb/s {float(b[2]):5.2f}  errors {b[3]}  ratio to 1 thread {float(b[0]) / float(a[0]):.3f}')"
done
iperf3 -s -1 -p 5299 >/dev/null 2>&1 & listening 5299
iperf3 -c 127.0.0.1 -p 5299 -P 2 -t "$T" -J >"$OUT/tcp_threads_bench_iperf3.json" || true
peer=$(peer iperf3 "$OUT/tcp_threads_bench_iperf3.json")
python3 -c "print(f'limit  iperf3 -P 2 on loopback: {float($peer) / 2:.2f} Gb/s per stream')"
