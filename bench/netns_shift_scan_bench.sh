#!/usr/bin/env bash
# The shift scan across the hosts of an oversubscribed cluster in a box against the conflict
# analyser's prediction for the same fabric, in one run (root only). Two leaves of two hosts joined
# by one uplink, every link shaped to 5 Gbit/s each way (tests/netns/fabrics/leaves2to1.fabric):
# `evbench conflicts` on the fabric's topology gives each shift's most flows on one link, so a
# receiver can expect 5 / flows Gb/s; the tcp shift scan under mpirun (one rank per host)
# measures each phase's per-node receive rate in its steady part. Ratio = measured / predicted.
# Usage: bash bench/netns_shift_scan_bench.sh [seconds per phase]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 0.3 s phases (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
source bench/netns_bed.sh
T=${1:-$(smoke 2 0.3)}
RATE=5
fabric=tests/netns/fabrics/leaves2to1.fabric
$bed topology "$fabric" >"$OUT/netns_leaves2to1.net"
"$EVB" conflicts --topology "$OUT/netns_leaves2to1.net" --routing minhop --json "$OUT/netns_conflicts.json" >/dev/null
bed_up "$fabric"
bed_mpirun "$EVB" --transport tcp --bootstrap h1:29000 --benchmark shift-scan --phase-time "${T}s" --fragment-size 256KiB \
  --quiet --json "$OUT/netns_shift_scan.json" >/dev/null
python3 - "$OUT/netns_conflicts.json" "$OUT/netns_shift_scan.json" "$RATE" <<'EOF'
import json, sys
conflicts, scan, rate = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), float(sys.argv[3])
flows = {p["shift"]: p["max_flows"] for p in conflicts["phases"]}
print(f"== 2 leaves x 2 hosts, one uplink, links shaped to {rate:g} Gbit/s; tcp shift scan under mpirun")
print(f"{'shift':>5} {'max_flows':>9} {'predicted':>9} {'measured avg':>12} {'min':>6} {'ratio':>6}")
for p in scan["results"]["phases"]:
    s = p["shift"]
    if s == 0:
        continue   # each node to itself: no link
    predicted = rate / flows[s]
    print(f"{s:>5} {flows[s]:>9} {predicted:>9.2f} {p['avg_gbps']:>12.2f} {p['min_gbps']:>6.2f} {p['avg_gbps'] / predicted:>6.2f}")
EOF
