#!/usr/bin/env bash
# A simulated run's start-up against its steady state (README, "Start-up and steady state"):
# 64 nodes on 4 whole leaves of the k=16 tree (thesis fig. 3.18), the thesis' four settings and
# the synchronised barrel, fabric rx per node in a start-up window (2 to 12 ms, as
# sim_validation.sh) and in a steady one (150 to 400 ms, past every setting's first events).
# Usage: bash bench/start_up_and_steady_state.sh   (about 3 minutes on one core)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/evbench ] || cmake --build build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settings=("--credits 16 --parallel 1" "--credits 16 --parallel 8" "--credits 1 --parallel 8" "--credits 1 --parallel 1"
          "--credits 16 --parallel 1 --scheduling barrel-sync" "--credits 1 --parallel 1 --scheduling barrel-sync")
echo "| settings | start-up, 2 to 12 ms | steady, 150 to 400 ms | events in the steady window |"
echo "| --- | --- | --- | --- |"
for s in "${settings[@]}"; do
  # shellcheck disable=SC2086  # the settings are several flags
  build/evbench --transport sim --nodes 64 --k 16 $s --warmup 2ms --duration 12ms --quiet --json "$tmp/start.json" >/dev/null
  # shellcheck disable=SC2086
  build/evbench --transport sim --nodes 64 --k 16 $s --warmup 150ms --duration 400ms --quiet --json "$tmp/steady.json" >/dev/null
  python3 - "$s" "$tmp/start.json" "$tmp/steady.json" <<'PY'
import json, sys
start, steady = (json.load(open(f))["results"] for f in sys.argv[2:4])
rx = lambda r: r["network"]["fabric_rx_gbps"]["avg"]
print(f"| `{sys.argv[1]}` | {rx(start):.2f} | {rx(steady):.2f} | {steady['system']['events_built']} |")
PY
done
