#!/usr/bin/env bash
# DAQPIPE's micro-benchmarks on this machine, side by side in one run:
#   tcp, 4 processes (evbench's launcher), 1 MiB messages, 4 in flight, Gb/s received by all nodes
#   together: one-to-one (shift 1),
#   many-to-one, gather, gather-cmd, gather-cmd-meta, each with its ratio to one-to-one (the
#   conflict-free pattern on the same transport), and iperf3 with 4 streams on loopback as the
#   machine's own limit for 4 senders;
#   the simulator: the shift scan of a 16-host k=4 fat tree with one swapped cable pair (1:6),
#   3 ms per shift, next to `evbench conflicts` on the same fabric, and its figure
#   (tools/plot_shift_scan.py: bench/results/shift_scan_k4_swap.png and .svg).
# Usage: bash bench/micro_benchmarks_bench.sh [seconds per tcp point]   (results in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s tcp points, 1 ms per shift (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 5 1)}
PHASE=$(smoke 3ms 1ms)

point() {   # benchmark: aggregate Gb/s received, receiving nodes, errors
  $EVB --transport tcp --launch-local 4 --benchmark "$1" --fragment-size 1MiB --in-flight 4 --duration "$T" --quiet \
    --json "$OUT/micro_$1.json" >/dev/null 2>&1
  python3 -c "
import json; r = json.load(open('$OUT/micro_$1.json'))['results']
rx = [n['in_gbps'] for n in r['nodes'] if n['raw']['fragments_in'] > 0]
print(f\"{sum(rx):.3f} {len(rx)} {r['system']['errors']}\")"
}
echo "== tcp, 4 processes, 1 MiB messages, $T s each: Gb/s received, all nodes together =="
base=""
for b in one-to-one many-to-one gather gather-cmd gather-cmd-meta; do
  read -r g receivers errors <<<"$(point $b)"
  [ -z "$base" ] && base=$g
  python3 -c "print(f'{\"$b\":<16} {float($g):7.2f} Gb/s into {$receivers} node(s), {float($g)/$receivers:6.2f} per receiving node, errors $errors; ratio to one-to-one {float($g)/float($base):.3f}')"
done
iperf3 -s -p 5311 -D -1 >/dev/null 2>&1; listening 5311
iperf3 -c 127.0.0.1 -p 5311 -P 4 -l 1M -t "$T" -J >"$OUT/micro_iperf3.json" 2>/dev/null || true
g=$(peer iperf3 "$OUT/micro_iperf3.json")
python3 -c "print(f'iperf3 -P 4      {float($g):7.2f} Gb/s for 4 streams on loopback: one-to-one / iperf3 = {float($base) / float($g):.3f}')"

echo "== sim: shift scan, 16-host k=4 fat tree, cable pair 1:6 swapped, $PHASE per shift =="
$EVB conflicts --k 4 --leaves 4 --swap 1:6 --json "$OUT/shift_scan_k4_swap_conflicts.json" | tail -1
$EVB --transport sim --benchmark shift-scan --nodes 16 --k 4 --leaves 4 --swap 1:6 --phase-time "$PHASE" --json "$OUT/shift_scan_k4_swap.json" \
  | sed -n '/^# shift scan/,$p'
/usr/bin/python3 tools/plot_shift_scan.py "$OUT/shift_scan_k4_swap.json" --conflicts "$OUT/shift_scan_k4_swap_conflicts.json" \
  --out "$OUT" --name shift_scan_k4_swap
