#!/usr/bin/env bash
# PULL across shaped links, with evbench's defaults, against iperf3 on the same links in the same
# run: four hosts of the cluster in a box (tests/netns/cluster.sh, root only) on one switch, every
# link shaped to 1 Gbit/s each way (EVB_NETNS_RATE=R: R Gbit/s), one rank per host under mpirun.
#   iperf3            a ring, each host sending one stream to the next: per-host Gb/s each way
#   pull, push        --transport tcp and nothing else: 4 nodes, 2 credits, 1 MiB fragments
#   pull, credits 4   twice the events in flight
#   pull, one FIFO    the hosts' NICs queue every packet in one FIFO: a command waits behind the
#                     data its host sends (the bed's NICs otherwise send a socket of higher
#                     priority first, as Linux's pfifo_fast does; tcp gives its commands a
#                     connection of their own with the interactive priority)
# Figures per node: Gb/s that crossed its link inbound (a BU's own fragment never leaves its host),
# its ratio to the line and to iperf3, the average event latency and the cores busy.
# Usage: bash bench/netns_pull_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s points.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
source bench/netns_bed.sh
T=${1:-$(smoke 8 1)}
RATE=${EVB_NETNS_RATE:-1}
bed_up tests/netns/fabrics/switch4.fabric
hosts=(h1 h2 h3 h4)
for h in "${hosts[@]}"; do $bed shape "$h" "${RATE}gbit"; done

iperf=$(bed_iperf3_ring "$T" netns_pull_iperf3)
echo "== 4 hosts on one switch, links shaped to $RATE Gbit/s each way, ${T} s per point; per node, inbound"
printf '%-20s %9s %8s %9s %12s %11s\n' point "Gb/s" "/ line" "/ iperf3" "latency ms" "cores busy"
printf '%-20s %9.3f %8.3f %9.3f\n' "iperf3 (ring)" "$iperf" "$(python3 -c "print($iperf / $RATE)")" 1

point() { # name, evbench flags...
  local name=$1; shift
  bed_mpirun "$EVB" --transport tcp --bootstrap h1:29000 --duration "$T" "$@" --quiet --json "$OUT/netns_pull_$name.json" </dev/null >/dev/null
  python3 - "$OUT/netns_pull_$name.json" "$name" "$RATE" "$iperf" <<'EOF'
import json, sys
path, name, rate, iperf = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
r = json.load(open(path))["results"]
s = r["system"]
gbps = s["per_node_in_gbps"]
print(f"{name.replace('_', ' '):<20} {gbps:9.3f} {gbps / rate:8.3f} {gbps / iperf:9.3f} {s['latency_us']['avg'] / 1000:12.1f} "
      f"{r['cpu']['cores_busy']:11.2f}")
EOF
}
point pull --protocol pull
point push --protocol push
point pull_credits_4 --protocol pull --credits 4
# The hosts' NICs as one FIFO each (bfifo, the limit tbf gives its own: 22 ms at the rate).
for h in "${hosts[@]}"; do
  $bed exec "$h" tc qdisc del dev eth0 parent 1:1
  $bed exec "$h" tc qdisc add dev eth0 parent 1:1 handle 10: bfifo limit $((RATE * 2750000))
done
point pull_one_FIFO --protocol pull
