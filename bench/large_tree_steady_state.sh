#!/usr/bin/env bash
# Large simulated trees in their steady state: does any node stay below half the mean once the
# start-up (every BU's credits begun at once) is over? For each node count, a run whose warm-up
# lasts 1.5 times the first event's estimate (c N f / b_eff, from the simulator), then a window of
# events being built; fabric rx per node over that window, the nodes below half its mean, and
# the events each node built in it. Then the same node counts in the start-up (0 to 5 ms) for
# comparison, with 16 credits of 1 MiB as the 2048-node runs that found the slow nodes.
# Usage: bash bench/large_tree_steady_state.sh [node counts...]   (default 1024 2048)
# EVB_STEADY_ARGS sets the steady runs' flags (default --credits 4 --fragment-size 64KiB),
# EVB_STEADY_WINDOW their window (default 20ms), EVB_STEADY_ROUTINGS the routings (default
# "ftree random"). About 25 minutes on one core for the defaults.
# EVB_BENCH_SMOKE=1: 128 nodes, 1 ms windows (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
NODES=${*:-$(smoke "1024 2048" 128)}
ARGS=${EVB_STEADY_ARGS:---credits 4 --fragment-size 64KiB}
WINDOW=${EVB_STEADY_WINDOW:-$(smoke 20ms 1ms)}
ROUTINGS=${EVB_STEADY_ROUTINGS:-ftree random}
START_UP=$(smoke 5ms 1ms)

summary() {   # $1 label, $2 JSON file
  python3 - "$1" "$2" <<'PY'
import json, sys
label, r = sys.argv[1], json.load(open(sys.argv[2]))["results"]
net = r["network"]
rx = net["fabric_rx_gbps"]
per_node = rx["per_node"]
low = sorted((v, i) for i, v in enumerate(per_node) if v < rx["avg"] / 2)
events = [n["events_built"] for n in r["nodes"]]
lowest = " ".join(f"{i}:{v:.2f}" for v, i in sorted((v, i) for i, v in enumerate(per_node))[:4])
print(f"| {label} | {rx['window_start_s'] * 1e3:.1f} to {net['simulated_ps'] / 1e9:.1f} ms | {rx['avg']:.2f} | {rx['min']:.2f} | "
      f"{len(low)} | {lowest} | {min(events)} to {max(events)} |")
PY
}

echo "| run | window | fabric rx avg Gb/s per node | min | nodes below half the avg | lowest (node:Gb/s) | events per node in the window |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for n in $NODES; do
  # shellcheck disable=SC2086  # ARGS is a list of flags
  estimate=$("$EVB" --transport sim --nodes "$n" $ARGS --duration 1us --quiet --json - 2>/dev/null |
             python3 -c 'import json, sys; print(json.load(sys.stdin)["results"]["network"]["first_event_estimate_s"])')
  read -r warmup duration < <(python3 -c "import math; w = math.ceil($estimate * 1.5e3); print(f'{w}ms', f'{w + float(\"${WINDOW%ms}\")}ms')")
  for routing in $ROUTINGS; do
    # shellcheck disable=SC2086
    "$EVB" --transport sim --nodes "$n" $ARGS --routing "$routing" --warmup "$warmup" --duration "$duration" --quiet \
      --json "$OUT/steady_${n}_$routing.json" >/dev/null
    summary "$n nodes, $ARGS, --routing $routing, steady" "$OUT/steady_${n}_$routing.json"
  done
  "$EVB" --transport sim --nodes "$n" --credits 16 --fragment-size 1MiB --duration "$START_UP" --quiet \
    --json "$OUT/start_up_$n.json" >/dev/null
  summary "$n nodes, --credits 16 --fragment-size 1MiB, start-up" "$OUT/start_up_$n.json"
done
