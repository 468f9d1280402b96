#!/usr/bin/env bash
# evbench on verbs against ib_write_bw (perftest) and qperf rc_rdma_write_bw on soft-RoCE, in one
# VM boot (tests/vm).
# Usage: bash bench/verbs_bench.sh [seconds]   (1 MiB messages and fragments)
# A 2-node event builder moves data both ways and keeps 1 of 2 fragments on its node, so its
# network rate per direction is in_Gbps x (N-1)/N; it is compared with ib_write_bw -b (both ways).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
[ -x build/evbench ] || cmake --build build
E=$PWD/build/evbench
script="
(ib_write_bw -d rxe0 -x 1 -s 1048576 -D $secs >/dev/null 2>&1 &); sleep 1
echo uni \$(ib_write_bw -d rxe0 -x 1 -s 1048576 -D $secs 10.0.0.1 | grep -A1 '#bytes' | tail -1 | awk '{print \$4}'); sleep 1
(ib_write_bw -b -d rxe0 -x 1 -s 1048576 -D $secs >/dev/null 2>&1 &); sleep 1
echo bi \$(ib_write_bw -b -d rxe0 -x 1 -s 1048576 -D $secs 10.0.0.1 | grep -A1 '#bytes' | tail -1 | awk '{print \$4}'); sleep 1
(qperf >/dev/null 2>&1 &); sleep 1
echo qperf \$(qperf 10.0.0.1 -cm1 -t $secs -m 1M -vu rc_rdma_write_bw | grep 'bw ='); sleep 1
for cfg in '--credits 2 --parallel 1' '--credits 4 --parallel 2'; do
  echo evb \"\$cfg\" \$($E --transport verbs --launch-local 2 --fragment-size 1MiB --duration ${secs}s --quiet \$cfg | tail -1)
done"
out=$(bash tests/vm/run-in-vm.sh -t 900 -b "$E" -b "$(command -v ib_write_bw)" -b "$(command -v qperf)" -- "$script")
echo "$out"
echo "$out" | python3 -c '
import re, sys
text = sys.stdin.read()
uni = float(re.search(r"^uni ([0-9.]+)", text, re.M).group(1)) * 8 / 1e3   # MB/s -> Gb/s
bi = float(re.search(r"^bi ([0-9.]+)", text, re.M).group(1)) * 8 / 1e3      # both directions together
print(f"ib_write_bw 1 MiB: {uni:.3f} Gb/s one way, {bi:.3f} Gb/s both ways ({bi / 2:.3f} per direction)")
q = re.search(r"^qperf bw = ([0-9.]+) ([KMG])B/sec", text, re.M)
qp = float(q.group(1)) * {"K": 1e3, "M": 1e6, "G": 1e9}[q.group(2)] * 8 / 1e9
print(f"qperf rc_rdma_write_bw 1 MiB: {qp:.3f} Gb/s one way")
for cfg, per_node in re.findall(r"^evb (.*?) # system: .*?, ([0-9.]+) Gb/s per node", text, re.M):
    net = float(per_node) / 2   # N = 2: half of what a BU receives crosses the network
    print(f"evbench verbs {cfg}: {per_node} Gb/s in per node, {net:.3f} over the network per direction = {net / (bi / 2):.2f}x ib_write_bw -b, {net / uni:.2f}x one-way, {net / qp:.2f}x qperf")
'
