#!/usr/bin/env bash
# Each driver against the fabric's own tool on the same transport, in one run: the same two
# processes' worth of work, 1 MiB messages, on this machine (loopback and shared memory).
#   tcp                 vs qperf tcp_bw and iperf3, one process per stream, a stream each way
#   ofi tcp;ofi_rxm/shm vs fi_pingpong -e rdm on the same provider (it moves 1 MiB each way in turn)
#   ucx tcp/posix,cma   vs ucx_perftest -t ucp_put_bw on the same UCX_TLS, a pair each way
# evbench runs 2 processes (2 nodes, 2 credits, 1 MiB fragments); its figure is the bytes that
# crossed the transport: both nodes' input but the fragment each builds from itself. Every tool's
# figure is likewise the sum of both directions. Ratio = evbench / tool.
# Usage: bash bench/peer_tools_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s points (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
T=${1:-$(smoke 5 1)}
SIZE=1048576

# evbench's bytes over the transport, Gb/s (in_gbps: what crossed it, each node's own fragment left out).
evbench_wire() {   # name, transport flags...
  local name=$1; shift
  $EVB --launch-local 2 "$@" --credits 2 --fragment-size 1MiB --duration "$T" --quiet --json "$OUT/peer_$name.json" >/dev/null 2>&1
  python3 -c "import json; print(json.load(open('$OUT/peer_$name.json'))['results']['system']['in_gbps'])"
}
ratio() { python3 -c "print(f'{float($1):8.2f} Gb/s   {\"$3\"} {float($2):8.2f} Gb/s   ratio {float($1)/float($2):.2f}')"; }
sum() { python3 -c "import sys; print(sum(float(x) for x in sys.argv[1:]))" "$@"; }

echo "== tcp (2 processes, loopback) =="
eb=$(evbench_wire tcp --transport tcp)
qperf >/dev/null 2>&1 & QP=$!; listening 19765   # qperf's port
a=$(mktemp); b=$(mktemp)
qperf 127.0.0.1 -t "$T" -m $SIZE -vu tcp_bw >"$a" 2>&1 & q1=$!
qperf 127.0.0.1 -t "$T" -m $SIZE -vu tcp_bw >"$b" 2>&1; wait $q1 || true
kill $QP 2>/dev/null || true
# Each tool's figure as bench/peer_output.py reads it (qperf: the receiver's rate of one stream).
q=$(sum "$(peer qperf "$a")" "$(peer qperf "$b")")
ratio "$eb" "$q" "qperf tcp_bw x2"
iperf3 -s -1 -p 5301 -D >/dev/null 2>&1; iperf3 -s -1 -p 5302 -D >/dev/null 2>&1; listening 5301; listening 5302
iperf3 -c 127.0.0.1 -p 5301 -l $SIZE -t "$T" -J >"$a" & i1=$!
iperf3 -c 127.0.0.1 -p 5302 -l $SIZE -t "$T" -R -J >"$b"; wait $i1
i=$(sum "$(peer iperf3 "$a")" "$(peer iperf3 "$b")")
ratio "$eb" "$i" "iperf3 2 processes, one stream each way"

# fi_pingpong prints MB/sec over both directions (its 'total' counts every byte sent either way).
fipp() {   # provider, port, iterations
  fi_pingpong_pair "$1" "$2" "$3" "$a.fi"
  peer fi_pingpong "$a.fi"
}
for p in "tcp;ofi_rxm" shm; do
  echo "== ofi $p (2 processes) =="
  eb=$(evbench_wire "ofi_${p%%;*}" --transport ofi --ofi-provider "$p")
  iters=$(python3 -c "print(max(200, int(float($eb) * 1e9 / 8 / $SIZE * $T / 2)))")   # about T seconds
  f=$(fipp "$p" 47610 "$iters")
  ratio "$eb" "$f" "fi_pingpong"
done

# ucx_perftest's 'overall' bandwidth column, MB/s (2^20 B), of one direction.
uperf() {   # tls, port, iterations, file for its output
  UCX_TLS=$1 timeout $((T + 30)) ucx_perftest -t ucp_put_bw -s $SIZE -n "$3" -p "$2" >/dev/null 2>&1 & local s=$!; listening "$2"
  UCX_TLS=$1 timeout $((T + 30)) ucx_perftest 127.0.0.1 -t ucp_put_bw -s $SIZE -n "$3" -p "$2" >"$4" 2>/dev/null || true
  wait $s || true
  peer ucx_perftest "$4"
}
for tls in tcp posix,cma; do
  echo "== ucx $tls (2 processes) =="
  eb=$(evbench_wire "ucx_${tls%%,*}" --transport ucx --ucx-tls "$tls")
  iters=$(python3 -c "print(max(200, int(float($eb) * 1e9 / 8 / $SIZE * $T / 2)))")
  uperf "$tls" 13401 "$iters" "$a.raw" >"$a" & u1=$!
  uperf "$tls" 13402 "$iters" "$b.raw" >"$b"; wait $u1
  u=$(sum "$(cat "$a")" "$(cat "$b")")
  ratio "$eb" "$u" "ucx_perftest ucp_put_bw x2"
done
rm -f "$a" "$b" "$a.fi" "$a.raw" "$b.raw"
