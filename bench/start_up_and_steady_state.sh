#!/usr/bin/env bash
# A simulated run's start-up against its steady state (README, "Start-up and steady state"):
# 64 nodes on 4 whole leaves of the k=16 tree (thesis fig. 3.18), the thesis' four settings and
# the synchronised barrel, fabric rx per node in a start-up window (2 to 12 ms, as
# sim_validation.sh) and in a steady one (150 to 400 ms, past every setting's first events).
# Usage: bash bench/start_up_and_steady_state.sh   (about 3 minutes on one core)
# EVB_BENCH_SMOKE=1: two settings, windows of 0.5 to 1 ms and 1 to 2 ms (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
settings=("--credits 16 --parallel 1" "--credits 16 --parallel 8" "--credits 1 --parallel 8" "--credits 1 --parallel 1"
          "--credits 16 --parallel 1 --scheduling barrel-sync" "--credits 1 --parallel 1 --scheduling barrel-sync")
start=(2ms 12ms) steady=(150ms 400ms)   # warm-up and end of each window
if $SMOKE; then settings=("${settings[0]}" "${settings[4]}") start=(0.5ms 1ms) steady=(1ms 2ms); fi
echo "| settings | start-up, ${start[0]} to ${start[1]} | steady, ${steady[0]} to ${steady[1]} | events in the steady window |"
echo "| --- | --- | --- | --- |"
for s in "${settings[@]}"; do
  # shellcheck disable=SC2086  # the settings are several flags
  "$EVB" --transport sim --nodes 64 --k 16 $s --warmup "${start[0]}" --duration "${start[1]}" --quiet --json "$tmp/start.json" >/dev/null
  # shellcheck disable=SC2086
  "$EVB" --transport sim --nodes 64 --k 16 $s --warmup "${steady[0]}" --duration "${steady[1]}" --quiet --json "$tmp/steady.json" >/dev/null
  python3 - "$s" "$tmp/start.json" "$tmp/steady.json" <<'PY'
import json, sys
start, steady = (json.load(open(f))["results"] for f in sys.argv[2:4])
rx = lambda r: r["network"]["fabric_rx_gbps"]["avg"]
print(f"| `{sys.argv[1]}` | {rx(start):.2f} | {rx(steady):.2f} | {steady['system']['events_built']} |")
PY
done
