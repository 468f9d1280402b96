#!/usr/bin/env bash
# Which configuration did the thesis' simulation model have? Thesis fig. 3.17 (k=16 fat tree,
# h hosts on every leaf: 64 and 128 nodes) and fig. 3.18 (the 512-host tree with L whole leaves:
# 64 and 128 nodes) for 16c/1p, 16c/8p, 1c/8p, 1c/1p, each with 1 and 4 traffic VLs
# (--traffic-vls) and with the barrel walks of a BU's credits in step or staggered
# (--barrel-start own|staggered). PULL, barrel shift, 1 MiB, packet mode.
# Usage: bash bench/barrel_start_and_vls.sh [duration] [warmup]   (simulated; default 10ms 2ms)
# Writes bench/results/barrel_start_and_vls.jsonl and prints one table per figure: fabric rx
# Gb/s per node (what crossed the fabric in the window; the thesis reports > 80 Gb/s for 64 and
# 128 nodes in fig. 3.17).
# EVB_BENCH_SMOKE=1: one point of each figure, 1 ms (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
duration=${1:-$(smoke 10ms 1ms)}
warmup=${2:-$(smoke 2ms 0.5ms)}
out=$OUT/barrel_start_and_vls.jsonl
$SMOKE && rm -f "$out"   # scan.py keeps the points it finds done
points=$(mktemp)
trap 'rm -f "$points"' EXIT
configs=("--credits 16 --parallel 1" "--credits 16 --parallel 8" "--credits 1 --parallel 8" "--credits 1 --parallel 1")
variants=("--traffic-vls 1 --barrel-start own" "--traffic-vls 4 --barrel-start own"
          "--traffic-vls 1 --barrel-start staggered" "--traffic-vls 4 --barrel-start staggered")
hosts=(2 4) leaves=(4 8)
if $SMOKE; then configs=("${configs[0]}") variants=("${variants[3]}") hosts=(2) leaves=(4); fi
for variant in "${variants[@]}"; do
  for h in "${hosts[@]}"; do
    per_leaf=$(printf "$h%.0s," $(seq 32)); per_leaf=${per_leaf%,}
    for c in "${configs[@]}"; do echo "--nodes $((32 * h)) --hosts-per-leaf $per_leaf $c $variant"; done
  done
  for l in "${leaves[@]}"; do
    for c in "${configs[@]}"; do echo "--nodes $((16 * l)) --leaves $l $c $variant"; done
  done
done >> "$points"
python3 launch/scan.py --binary "$EVB" --out "$out" --points "$points" -- --transport sim --k 16 --mode packet --duration "$duration" --warmup "$warmup" || true
python3 - "$out" <<'PY'
import sys
sys.path.insert(0, "bench")
from sim_points import arg, cell, footnote, load_rows
rows = load_rows(sys.argv[1])
cols = [("16", "1"), ("16", "8"), ("1", "8"), ("1", "1")]
for title, kind in (("fig. 3.17: k=16 tree, h hosts on every leaf", "--hosts-per-leaf"), ("fig. 3.18: k=16 tree, L whole leaves", "--leaves")):
    print(f"\n{title}\n{'nodes':>6} {'VLs':>4} {'start':>10} " + " ".join(f"{c}c/{p}p".rjust(8) for c, p in cols) + "   (fabric rx Gb/s per node)")
    by = {}
    for r in rows:
        p = r["point"]
        if kind in p:
            key = (int(arg(p, "--nodes")), int(arg(p, "--traffic-vls")), arg(p, "--barrel-start"))
            by.setdefault(key, {})[(arg(p, "--credits"), arg(p, "--parallel"))] = r
    for key in sorted(by):
        print(f"{key[0]:>6} {key[1]:>4} {key[2]:>10} " + " ".join(cell(by[key].get(c)) for c in cols))
footnote()
PY
