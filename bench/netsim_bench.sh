#!/usr/bin/env bash
# The simulator's speed and the fast modes' error, on the 512-host LHCb-size fat tree (k = 16)
# under full-rate traffic: fixed-size linear shifter and uniform random, each in flit mode (the
# reference), aggregated mode (16 flits per event, the thesis fast model) and packet mode.
# Usage: bash bench/netsim_bench.sh [simulated microseconds]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 2 us each (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
US=${1:-$(smoke 20 2)}
printf "%-8s %-11s %10s %12s %14s %14s %12s %10s\n" traffic mode wall_s events/s flit-hops/s sim_us/wall_s aggr_Gb/s vs_flit
for traffic in linear random; do
  for mode in flit aggregated packet; do
    $EVB netsim --k 16 --traffic "$traffic" --message-size 1MiB --mode "$mode" --aggregation 16 --sim-threads 1 --duration "${US}us" \
         --json "$OUT/netsim-$traffic-$mode.json" >/dev/null
  done
  python3 - "$OUT" "$traffic" <<'PY'
import json, sys
out, traffic = sys.argv[1], sys.argv[2]
ref = None
for mode in ("flit", "aggregated", "packet"):
    r = json.load(open(f"{out}/netsim-{traffic}-{mode}.json"))["results"]
    w = r["wall_seconds"]
    ref = ref if ref is not None else r["aggregate_gbps"]
    diff = (r["aggregate_gbps"] - ref) / ref * 100
    print(f"{traffic:<8} {mode:<11} {w:10.3f} {r['events']/w:12.3g} {r['flit_hops']/w:14.3g} "
          f"{r['simulated_ps']/1e6/w:14.1f} {r['aggregate_gbps']:12.1f} {diff:+9.3f}%")
PY
done
