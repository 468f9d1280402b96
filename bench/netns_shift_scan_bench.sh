#!/usr/bin/env bash
# The shift scan across the hosts of an oversubscribed cluster in a box against the conflict
# analyser's prediction for the same fabric, in one run (root only). Two leaves of two hosts joined
# by one uplink, every link shaped to 5 Gbit/s each way (tests/netns/fabrics/leaves2to1.fabric):
# `evbench conflicts` on the fabric's topology gives each shift's most flows on one link, so a
# receiver can expect 5 / flows Gb/s; the tcp shift scan under mpirun (one rank per host)
# measures each phase's per-node receive rate in its steady part. Ratio = measured / predicted.
# Then event building on the same fabric (tcp, PUSH, 4 credits of 256 KiB, barrel and random
# scheduling) beside the simulator's prediction for the same topology and link rate (--transport
# sim --topology, every link at 5 Gb/s); both figures Gb/s per node that crossed the network
# inbound (in_Gbps: each node's own fragment left out, as the simulator leaves out loopback).
# Usage: bash bench/netns_shift_scan_bench.sh [seconds per phase]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 0.3 s phases (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
source bench/netns_bed.sh
T=${1:-$(smoke 2 0.3)}
EB_T=$(smoke 5 1)
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

# Event building: measured on the hosts, predicted by the simulator on the fabric's topology.
echo "== event building on the same fabric: tcp across the hosts vs the simulator, Gb/s per node over the network"
printf '%-10s %9s %9s %6s\n' scheduling predicted measured ratio
for sched in barrel random; do
  bed_mpirun "$EVB" --transport tcp --bootstrap h1:29000 --protocol push --scheduling "$sched" --credits 4 --fragment-size 256KiB \
    --duration "${EB_T}s" --quiet --json "$OUT/netns_eb_$sched.json" >/dev/null
  "$EVB" --transport sim --topology "$OUT/netns_leaves2to1.net" --topology-rates=off --link-rate $RATE --routing minhop --protocol push \
    --scheduling "$sched" --credits 4 --fragment-size 256KiB --duration $(smoke 200ms 20ms) --warmup $(smoke 20ms 2ms) --quiet \
    --json "$OUT/netns_sim_$sched.json" >/dev/null
  python3 - "$OUT/netns_sim_$sched.json" "$OUT/netns_eb_$sched.json" "$sched" <<'EOF'
import json, sys
sim, eb = (json.load(open(f))["results"]["system"] for f in sys.argv[1:3])
predicted, measured = sim["per_node_in_gbps"], eb["per_node_in_gbps"]
print(f"{sys.argv[3]:<10} {predicted:>9.2f} {measured:>9.2f} {measured / predicted:>6.2f}")
EOF
done
