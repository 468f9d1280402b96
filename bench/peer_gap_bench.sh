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
# and over tcp on loopback, where the kernel's copies are the limit:
#   tcp, ucx tcp:  the same evbench on each vs iperf3, one process per stream, a stream each way
#   ofi tcp;ofi_rxm: the same evbench vs fi_pingpong -e rdm on the provider
# Figures are Gb/s summed over both directions; profiles list the copy share of the program's
# samples and its top symbols. Needs perf (linux-perf).
# Usage: bash bench/peer_gap_bench.sh [seconds per point] [shm|tcp|all]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 2 s points (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 6 2)}
PART=${2:-all}
case $PART in shm|tcp|all) ;; *) echo "peer_gap_bench.sh: no part '$PART' (shm, tcp or all)" >&2; exit 2;; esac
SIZE=1048576
command -v perf >/dev/null || { echo "peer_gap_bench.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"; pkill -f "ucx_perftest .*-p 1345[12]" 2>/dev/null || true' EXIT

# A profile of the middle of a point: perf_ready FILE before its programs start (perf, recording
# the whole machine with its events off, set up while the machine is quiet: under load its start
# takes seconds), perf_window once they have: samples from T/4 on, T/2 long, into FILE.
perf_ready() {
  rm -f "$work/ctl" "$work/ack"; mkfifo "$work/ctl" "$work/ack"
  exec 7<>"$work/ctl" 8<>"$work/ack"
  perf record -q -e cpu-clock -a -D -1 --control fd:7,8 -o "$1" >/dev/null 2>&1 & PERF=$!
  perf_say ping
}
perf_say() { echo "$1" >&7; read -r -t 60 -u 8 _ || { echo "peer_gap_bench.sh: perf did not answer '$1'" >&2; exit 1; }; }
QUARTER=$(python3 -c "print($T / 4)"); HALF=$(python3 -c "print($T / 2)")   # not under load: python starts slowly then
perf_window() {
  sleep "$QUARTER"; perf_say enable
  sleep "$HALF"; perf_say disable
  kill -INT $PERF; wait $PERF || true
  exec 7>&- 8>&-
}
top() {   # label, profile, program, symbols: a line of bench/perf_top.py (its error ends the run)
  local line; line=$(python3 bench/perf_top.py "$2" "$3" "${4:-6}"); echo "  $1 $line"
}
ratio() { python3 -c "print(f'{float($1) / float($2):.2f}')"; }

evbench_point() {   # name, transport flags...: the aggregate rate; the profile in $work/NAME.perf
  local name=$1; shift
  perf_ready "$work/$name.perf"
  $EVB --launch-local 2 "$@" --benchmark one-to-one --shift 1 --in-flight 8 --fragment-size 1MiB --duration "$T" --quiet \
    --json "$OUT/peer_gap_$name.json" >/dev/null 2>&1 &
  local e=$!
  perf_window
  wait $e
  python3 -c "import json; print(round(json.load(open('$OUT/peer_gap_$name.json'))['results']['system']['in_gbps'], 1))"
}

# evbench one-to-one on a libfabric provider beside fi_pingpong on it, each with its profile.
ofi_point() {   # name, provider, port
  local eb iters f
  eb=$(evbench_point "$1" --transport ofi --ofi-provider "$2")
  iters=$(python3 -c "print(max(200, int(float($eb) * 1e9 / 8 / $SIZE * $T / 2)))")   # about T seconds
  fi_pingpong_pair "$2" "$3" "$iters" "$work/$1.fi" "perf_ready $work/$1.fi.perf" perf_window
  f=$(python3 -c "print(round($(peer fi_pingpong "$work/$1.fi"), 1))")
  echo "evbench one-to-one $eb Gb/s   fi_pingpong $f Gb/s   ratio $(ratio "$eb" "$f")"
  top "evbench:" "$work/$1.perf" evbench
  top "fi_pingpong:" "$work/$1.fi.perf" fi_pingpong
}

if [ "$PART" != tcp ]; then
echo "== copy limit (one core, memcpy of 1 MiB blocks) =="
hot=$($MEMCPY $SIZE 1 1 "$T")
cold=$($MEMCPY $SIZE 8 16 "$T")
echo "one buffer to one: $hot Gb/s   8 blocks to 16: $cold Gb/s   ratio $(ratio "$cold" "$hot")"

echo "== ucx posix,cma =="
eb=$(evbench_point ucx --transport ucx --ucx-tls posix,cma)
iters=$(python3 -c "print(int(300e9 / 8 / $SIZE * $T))")   # more than T seconds' worth: timeout ends them
perf_ready "$work/ucx_perftest.perf"
for p in 13451 13452; do UCX_TLS=posix,cma timeout $((T + 10)) ucx_perftest -t ucp_put_bw -s $SIZE -n "$iters" -p $p >/dev/null 2>&1 & done
listening 13451; listening 13452
for p in 13451 13452; do UCX_TLS=posix,cma timeout "$T" ucx_perftest 127.0.0.1 -t ucp_put_bw -s $SIZE -n "$iters" -p $p >"$work/u$p" 2>&1 & done
perf_window
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
top "evbench:" "$work/ucx.perf" evbench
top "ucx_perftest:" "$work/ucx_perftest.perf" ucx_perftest

echo "== ofi shm =="
ofi_point shm shm 47651
fi

[ "$PART" != shm ] || exit 0
echo "== tcp on loopback =="
# iperf3, one process per stream, one stream each way: the sum of both receivers' rates.
a=$work/i1; b=$work/i2
iperf3 -s -1 -p 5301 -D >/dev/null 2>&1; iperf3 -s -1 -p 5302 -D >/dev/null 2>&1; listening 5301; listening 5302
perf_ready "$work/iperf3.perf"
iperf3 -c 127.0.0.1 -p 5301 -l $SIZE -t "$T" -J >"$a" & i1=$!
iperf3 -c 127.0.0.1 -p 5302 -l $SIZE -t "$T" -R -J >"$b" & i2=$!
perf_window
wait $i1 $i2
i=$(python3 -c "print(round($(peer iperf3 "$a") + $(peer iperf3 "$b"), 1))")
echo "iperf3 2 processes, a stream each way $i Gb/s"
top "iperf3:" "$work/iperf3.perf" iperf3
for point in "tcp --transport tcp" "ucx_tcp --transport ucx --ucx-tls tcp"; do
  read -r name flags <<<"$point"
  # shellcheck disable=SC2086   # the flags split into words
  eb=$(evbench_point "$name" $flags)
  echo "evbench $name one-to-one $eb Gb/s   ratio to iperf3 $(ratio "$eb" "$i")"
  top "evbench:" "$work/$name.perf" evbench
done

echo "== ofi tcp;ofi_rxm =="
ofi_point ofi_tcp "tcp;ofi_rxm" 47652
