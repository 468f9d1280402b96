#!/usr/bin/env bash
# What surviving a lost node costs (--on-failure continue): time to detect it and time until the
# survivors build at their full rate again, events re-assigned and incomplete per failure.
#   tcp, 5 nodes x 2 processes, 64 KiB fragments, 4 credits: SIGKILL a BU (the connection
#   closes: peer_lost), SIGKILL an RU, SIGSTOP a BU (found by --heartbeat 300ms);
#   sim, 64 nodes, 256 KiB fragments, 4 credits (events of 16 MiB complete every ~1.3 ms per
#   BU): a BU process dies, a whole machine stops (--heartbeat 100us), each at 15 ms of 40 ms.
# Detection on tcp: from the kill (wall clock, after the 10th progress line) to the survivors'
# first sighting; on sim: exact.
# Recovery: to the end of the first progress interval at >= 90% of the rate before, scaled to
# the surviving BUs (so its resolution is the progress interval: 100 ms on tcp, 1 ms on sim).
# Usage: bash bench/failover_bench.sh   (results also in bench/results/failover_*.json)
# EVB_BENCH_SMOKE=1: one failure of each kind (a killed and a stopped rank on tcp; the two on sim
# at 5 ms of 10 ms; bench/build_bench.sh). The tcp runs keep their 4 s: the kill comes after the
# 10th progress line, which a loaded machine (the system tier) reached 2 s in.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
SIM_RUN=$(smoke "--duration 40ms --fail 10@15ms" "--duration 10ms --fail 10@5ms")

report() {   # label, json, kill epoch or -
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
label, path, killed = sys.argv[1], sys.argv[2], sys.argv[3]
r = json.load(open(path))['results']
if not r.get('failures', {}).get('nodes_lost'):
    sys.exit(f"failover_bench.sh: {label}: the run lost no node ({path}; was the signal sent before it ended?)")
f = r['failures']; lost = f['nodes_lost'][0]
if lost['failed_s'] is not None:
    detect = lost['detected_s'] - lost['failed_s']
elif killed != '-':
    detect = r['started_unix_s'] + lost['detected_s'] - float(killed)
else:
    detect = float('nan')
rec = f['time_to_full_rate_s']
hz = lambda v: 'n/a' if v is None else f'{v:.0f}'
print(f"{label:<34} lost {lost['units']:<12} detect {detect * 1e3:9.3f} ms  full rate again after "
      f"{'never' if rec is None else f'{rec * 1e3:9.3f} ms'}  ({hz(f['rate_before_hz'])} Hz before, {hz(f['expected_hz'])} expected)  "
      f"re-assigned {f['events_reassigned']}  re-built {f['events_rebuilt']}  incomplete {f['events_incomplete']}  "
      f"exit {r['exit_code']}  errors {r['system']['errors']}")
PY
}

tcp_point() {   # name, signal, rank, extra flags
  local name=$1 sig=$2 rank=$3; shift 3
  local err; err=$(KILL_AFTER_LINES=10 bash tests/failover/kill_rank.sh "$sig" "$rank" "$OUT/failover_$name.out" -- \
      $EVB --transport tcp --launch-local 10 --ppn 2 --credits 4 --fragment-size 64KiB --duration 4s \
      --progress-interval 100ms --on-failure continue --json "$OUT/failover_$name.json" "$@" 2>&1 >/dev/null || true)
  local killed; killed=$(sed -n 's/^kill_rank: .* at \([0-9.]*\)$/\1/p' <<<"$err" | head -1)
  report "tcp $name" "$OUT/failover_$name.json" "${killed:--}"
}

tcp_point bu_killed KILL 5
$SMOKE || tcp_point ru_killed KILL 4
tcp_point bu_stopped STOP 5 --heartbeat 300ms --grace 2s

SIM="$EVB --transport sim --nodes 64 --credits 4 --fragment-size 256KiB $SIM_RUN --progress-interval 1ms --on-failure continue --quiet"
$SIM --ppn 2 --fail-kind bu --json "$OUT/failover_sim64_bu.json" >/dev/null 2>&1 || true
report "sim 64 nodes, BU process dies" "$OUT/failover_sim64_bu.json" -
$SIM --heartbeat 100us --json "$OUT/failover_sim64_node.json" >/dev/null 2>&1 || true
report "sim 64 nodes, machine stops" "$OUT/failover_sim64_node.json" -
