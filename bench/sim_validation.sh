#!/usr/bin/env bash
# The event builder on the simulated fabric against the thesis (ch. 3.4.6): fig. 3.17 (full
# k=16 fat trees, h hosts on every leaf), fig. 3.18 (the 512-host tree with L populated leaves),
# the fast model's error on this workload, and the wall time of a 512-node point.
# Usage: bash bench/sim_validation.sh [duration] [warmup] [traffic VLs]   (simulated; default 10ms 2ms 4)
# Writes bench/results/sim_validation.jsonl and prints one table per figure.
# EVB_BENCH_SMOKE=1: one point of each figure and every mode, 0.2 ms (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
duration=${1:-$(smoke 10ms 0.2ms)}
warmup=${2:-$(smoke 2ms 0.1ms)}
vls=${3:-4}
out=$OUT/sim_validation.jsonl
$SMOKE && rm -f "$out"   # scan.py keeps the points it finds done
points=$(mktemp)
trap 'rm -f "$points"' EXIT
configs=("--credits 16 --parallel 1" "--credits 16 --parallel 8" "--credits 1 --parallel 8" "--credits 1 --parallel 1")
hosts=(2 4 8 16) leaves=(4 8 16)
if $SMOKE; then configs=("${configs[0]}") hosts=(2) leaves=(4); fi
for h in "${hosts[@]}"; do
  per_leaf=$(printf "$h%.0s," $(seq 32)); per_leaf=${per_leaf%,}
  for c in "${configs[@]}"; do echo "--nodes $((32 * h)) --hosts-per-leaf $per_leaf $c"; done
done >> "$points"
for l in "${leaves[@]}"; do
  for c in "${configs[@]}"; do echo "--nodes $((16 * l)) --leaves $l $c"; done
done >> "$points"
per_leaf=$(printf "4%.0s," $(seq 32)); per_leaf=${per_leaf%,}
for mode in "--mode flit" "--mode aggregated --aggregation 16" "--mode packet"; do
  echo "--nodes 128 --hosts-per-leaf $per_leaf --credits 16 --parallel 1 $mode"
done >> "$points"
# Failed points are reported in the tables as nan; a rerun retries them.
python3 launch/scan.py --binary "$EVB" --out "$out" --points "$points" -- --transport sim --k 16 --traffic-vls "$vls" --duration "$duration" --warmup "$warmup" || true
python3 - "$out" <<'PY'
import sys
sys.path.insert(0, "bench")
from sim_points import arg, cell, footnote, load_rows, rx
rows = load_rows(sys.argv[1])
def table(title, select, key):
    print(f"\n{title}\n{'nodes':>6} {'16c/1p':>8} {'16c/8p':>8} {'1c/8p':>8} {'1c/1p':>8}   (fabric rx Gb/s per node)")
    by = {}
    for r in rows:
        p = r["point"]
        if select(p):
            by.setdefault(int(arg(p, "--nodes")), {})[(arg(p, "--credits"), arg(p, "--parallel"))] = r
    for n in sorted(by):
        v = by[n]
        print(f"{n:>6} " + " ".join(cell(v.get(c)) for c in [("16", "1"), ("16", "8"), ("1", "8"), ("1", "1")]))
table("fig. 3.17: full k=16 fat trees, h hosts on every leaf", lambda p: "--hosts-per-leaf" in p and "--mode" not in p, None)
table("fig. 3.18: 512-host tree, L leaves populated", lambda p: "--leaves" in p, None)
print("\nfast model on the event-building workload (128 nodes on the k=16 tree, 16 credits, 1 parallel):")
modes = {arg(r["point"], "--mode"): r for r in rows if "--mode" in r["point"]}
flit = rx(modes["flit"]) if "flit" in modes else float("nan")
for mode in ("flit", "aggregated", "packet"):
    if mode in modes:
        v, wall = rx(modes[mode]), modes[mode]["results"]["network"]["wall_seconds"]
        print(f"  {mode:>10}: {v:8.3f} Gb/s per node, wall {wall:7.1f} s" + (f", {v - flit:+.3f} Gb/s vs flit" if mode != "flit" else ""))
for r in rows:
    if arg(r["point"], "--nodes") == "512" and arg(r["point"], "--credits") == "16" and arg(r["point"], "--parallel") == "1":
        n = r["results"]["network"]
        print(f"\n512-node point (16 credits, 1 parallel, 1 MiB): {n['fabric_rx_gbps']['avg']:.2f} Gb/s per node, wall {n['wall_seconds']:.1f} s for {n['simulated_ps'] / 1e9:.1f} simulated ms")
footnote()
PY
