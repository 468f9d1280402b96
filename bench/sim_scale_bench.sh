#!/usr/bin/env bash
# The simulator at scale: wall time and peak memory (max RSS, /usr/bin/time) of event building on
# --transport sim at 512..4096 nodes, PULL, 16 credits, 1 MiB fragments, packet mode, on the
# default fabric (sized from 36-port switches: 2 levels up to 648 hosts, 3 beyond). Memory per
# node is the figure that must not grow with N.
# Usage: bash bench/sim_scale_bench.sh [simulated time] [node counts...]   (default 10ms 512 1024 2048 4096)
# EVB_SIM_ARGS adds flags: EVB_SIM_ARGS="--k 16" bash bench/sim_scale_bench.sh 1s 512 is the
# issue's simulated second of the LHCb event builder on the thesis' k = 16 tree. The wall time
# counts CPU time too (user_s): compare those when the machine is shared.
# EVB_BENCH_SMOKE=1: 512 nodes for 1 ms (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
SIM=${1:-$(smoke 10ms 1ms)}; shift || true
NODES=${*:-$(smoke "512 1024 2048 4096" 512)}
printf "%6s %8s %10s %10s %10s %12s %14s %12s\n" nodes sim wall_s user_s max_rss_MiB KiB_per_node fabric_rx_Gb/s sim_us/wall_s
for n in $NODES; do
  # shellcheck disable=SC2086  # EVB_SIM_ARGS is a list of flags
  /usr/bin/time -f "%e %M %U" -o "$OUT/sim_scale_$n.time" \
    "$EVB" --transport sim --nodes "$n" --credits 16 --fragment-size 1MiB --duration "$SIM" ${EVB_SIM_ARGS:-} --quiet --json "$OUT/sim_scale_$n.json" >/dev/null
  python3 - "$OUT" "$n" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
wall, rss_kib, user = open(f"{out}/sim_scale_{n}.time").read().split()[-3:]
r = json.load(open(f"{out}/sim_scale_{n}.json"))["results"]
net = r["network"]
print(f"{n:6d} {net['simulated_ps']/1e9:7.1f}ms {float(wall):10.1f} {float(user):10.1f} {int(rss_kib)/1024:10.0f} {int(rss_kib)/n:12.0f} "
      f"{net['fabric_rx_gbps']['avg']:14.2f} {net['simulated_ps']/1e6/float(wall):12.1f}")
PY
done
