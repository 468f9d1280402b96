#!/usr/bin/env bash
# Why evbench moves less than the fabric's own tool over shared memory (bench/peer_tools_bench.sh:
# ucx posix,cma and ofi shm the farthest behind), in one run: each side's rate over the same
# seconds, a profile of each (perf, cpu-clock samples of the whole machine, read for that
# program), and the machine's copy limit where the data fits the cache and where it does not.
#   ucx posix,cma: evbench one-to-one (2 processes, each streams 1 MiB puts to the other, 8 in
#                  flight) vs ucx_perftest ucp_put_bw, a pair each way
#   ofi shm:       the same evbench vs fi_pingpong -e rdm (1 MiB each way in turn)
#   copy limit:    bench/memcpy_bandwidth of 1 MiB from one block to one (what a tool that reuses
#                  one buffer copies) and from 8 blocks to 16 (evbench's slots of 8 in flight)
# Figures are Gb/s summed over both directions; profiles list the copy share of the program's
# samples and its top symbols. Needs perf (linux-perf).
# Usage: bash bench/peer_gap_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 2 s points (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 6 2)}
SIZE=1048576
command -v perf >/dev/null || { echo "peer_gap_bench.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"; pkill -f "ucx_perftest .*-p 1345[12]" 2>/dev/null || true' EXIT

# Samples the whole machine for the middle of a point (from T/4 on, T/2 long) into FILE.
profile() { sleep "$(python3 -c "print($T / 4)")"; perf record -q -e cpu-clock -a -o "$1" -- sleep "$(python3 -c "print($T / 2)")" >/dev/null 2>&1; }
top() { python3 bench/perf_top.py "$@"; }
peer() { python3 bench/peer_output.py "$@"; }
ratio() { python3 -c "print(f'{float($1) / float($2):.2f}')"; }

evbench_point() {   # name, transport flags...: the aggregate rate; the profile in $work/NAME.perf
  local name=$1; shift
  $EVB --launch-local 2 "$@" --benchmark one-to-one --shift 1 --in-flight 8 --fragment-size 1MiB --duration "$T" --quiet \
    --json "$OUT/peer_gap_$name.json" >/dev/null 2>&1 &
  local e=$!
  profile "$work/$name.perf"
  wait $e
  python3 -c "import json; print(round(json.load(open('$OUT/peer_gap_$name.json'))['results']['system']['in_gbps'], 1))"
}

echo "== copy limit (one core, memcpy of 1 MiB blocks) =="
hot=$($MEMCPY $SIZE 1 1 "$T")
cold=$($MEMCPY $SIZE 8 16 "$T")
echo "one buffer to one: $hot Gb/s   8 blocks to 16: $cold Gb/s   ratio $(ratio "$cold" "$hot")"

echo "== ucx posix,cma =="
eb=$(evbench_point ucx --transport ucx --ucx-tls posix,cma)
iters=$(python3 -c "print(int(300e9 / 8 / $SIZE * $T))")   # more than T seconds' worth: timeout ends them
for p in 13451 13452; do UCX_TLS=posix,cma timeout $((T + 10)) ucx_perftest -t ucp_put_bw -s $SIZE -n "$iters" -p $p >/dev/null 2>&1 & done
sleep 0.5
for p in 13451 13452; do UCX_TLS=posix,cma timeout "$T" ucx_perftest 127.0.0.1 -t ucp_put_bw -s $SIZE -n "$iters" -p $p >"$work/u$p" 2>&1 & done
profile "$work/ucx_perftest.perf"
wait
# Stopped by timeout, each printed its running rows: the last one's 'overall' column.
u=0
for p in 13451 13452; do
  row=$(grep -E '^\[thread 0\]' "$work/u$p" | tail -1 || true)
  [ -n "$row" ] || { echo "peer_gap_bench.sh: ucx_perftest printed no rows: $(head -c 200 "$work/u$p")" >&2; exit 1; }
  u=$(python3 -c "print($u + float('$row'.split()[6]) * 2**20 * 8 / 1e9)")
done
u=$(python3 -c "print(round($u, 1))")
echo "evbench one-to-one $eb Gb/s   ucx_perftest ucp_put_bw x2 $u Gb/s   ratio $(ratio "$eb" "$u")"
echo "  evbench:      $(top "$work/ucx.perf" evbench)"
echo "  ucx_perftest: $(top "$work/ucx_perftest.perf" ucx_perftest)"

echo "== ofi shm =="
eb=$(evbench_point ofi_shm --transport ofi --ofi-provider shm)
iters=$(python3 -c "print(max(200, int(float($eb) * 1e9 / 8 / $SIZE * $T / 2)))")   # about T seconds
timeout $((T + 30)) fi_pingpong -e rdm -p shm -S $SIZE -I "$iters" -B 47651 >/dev/null 2>&1 & s=$!
sleep 0.5
timeout $((T + 30)) fi_pingpong -e rdm -p shm -S $SIZE -I "$iters" -P 47651 127.0.0.1 >"$work/fi" 2>&1 & c=$!
profile "$work/fi_pingpong.perf"
wait $c || true; wait $s || true
f=$(python3 -c "print(round($(peer fi_pingpong "$work/fi"), 1))")
echo "evbench one-to-one $eb Gb/s   fi_pingpong $f Gb/s   ratio $(ratio "$eb" "$f")"
echo "  evbench:     $(top "$work/ofi_shm.perf" evbench)"
echo "  fi_pingpong: $(top "$work/fi_pingpong.perf" fi_pingpong)"
