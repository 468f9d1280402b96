#!/usr/bin/env bash
# evbench against this machine's own limits, in one run:
#   local: event-building throughput vs single-thread memcpy over the same buffer footprint;
#   tcp:   2 and 4 processes on loopback vs iperf3 with the same number of TCP streams.
# Usage: bash bench/run_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s points (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 5 1)}
field() { python3 -c "import json,sys; d=json.load(open('$1')); print(d$2)"; }

echo "== local: 4 nodes, credits 2, 1 MiB fragments, one thread =="
$EVB --transport local --nodes 4 --credits 2 --fragment-size 1MiB --duration "$T" --quiet --json "$OUT/local.json" >/dev/null
eb=$(field "$OUT/local.json" "['results']['system']['built_gbps']")   # every copy, each node's own fragment's too
# Same footprint: every RU pool block (m N c per RU) as source, every BU slot in use as target.
src_blocks=$((4 * 2 * 4 * 2)); dst_blocks=$((4 * 2 * 4))
mc=$("$MEMCPY" 1048576 $src_blocks $dst_blocks "$T")
python3 -c "print(f'local EB {float($eb):8.2f} Gb/s   memcpy {float($mc):8.2f} Gb/s   ratio {float($eb)/float($mc):.2f}')"

iperf3 -s -1 -p 5299 -D >/dev/null 2>&1 || true
for n in 2 4; do
  streams=$((n * (n - 1)))
  echo "== tcp: $n processes, 1 MiB fragments, $streams streams =="
  $EVB --transport tcp --launch-local $n --credits 2 --parallel 1 --fragment-size 1MiB --duration "$T" --quiet \
       --json "$OUT/tcp$n.json" >/dev/null
  eb=$(field "$OUT/tcp$n.json" "['results']['system']['built_gbps']")
  # Only what crossed a socket (in_gbps leaves the own-node fragment, a memcpy, out).
  wire=$(field "$OUT/tcp$n.json" "['results']['system']['in_gbps']")
  iperf3 -s -1 -p 5299 -D >/dev/null 2>&1; listening 5299
  iperf3 -c 127.0.0.1 -p 5299 -P $streams -t "$T" -J >"$OUT/tcp${n}_iperf3.json" || true
  ip=$(peer iperf3 "$OUT/tcp${n}_iperf3.json")
  python3 -c "print(f'tcp{$n} EB {float($eb):8.2f} Gb/s total ({float($wire):.2f} over sockets)   iperf3 -P $streams {float($ip):8.2f} Gb/s   ratio {float($wire)/float($ip):.2f}')"
done
