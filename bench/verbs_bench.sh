#!/usr/bin/env bash
# evbench on verbs against ib_write_bw (perftest) and qperf rc_rdma_write_bw on soft-RoCE, in one
# VM boot (tests/vm).
# Usage: bash bench/verbs_bench.sh [seconds]   (1 MiB messages and fragments)
# EVB_BENCH_SMOKE=1: one configuration, 1 s (bench/build_bench.sh).
# A 2-node event builder moves data both ways and keeps 1 of 2 fragments on its node; its network
# rate per direction (in_Gbps, which leaves that fragment out) is compared with ib_write_bw -b.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
source bench/ib_write_bw_in_vm.sh
secs=${1:-$(smoke 5 1)}
configs=("--credits 2 --parallel 1" "--credits 4 --parallel 2")
$SMOKE && configs=("${configs[0]}")
# ib_write_bw by iterations: with -D (any duration) it reported 0 iterations and 0 MB/sec on rxe
# in the VM. Soft-RoCE under emulation moves some 50 MiB/s: 50 iterations of 1 MiB a second.
iters=$((secs * 50))
E=$EVB
runs=""
for cfg in "${configs[@]}"; do
  runs+="echo '@@ evb $cfg'; $E --transport verbs --launch-local 2 --fragment-size 1MiB --duration ${secs}s --quiet $cfg | tail -1
"
done
# A shared node, as bench/shared_node_bench.sh on the host: PUSH, 4 credits of 256 KiB, 2 ranks
# (one per vCPU), 4 ranks, and 2 beside a busy process (one `yes`), per --poll.
shared_flags="--protocol push --fragment-size 256KiB --credits 4 --duration ${secs}s --quiet"
polls="adaptive spin"; $SMOKE && polls=adaptive
for poll in $polls; do
  runs+="echo '@@ shared $poll 2'; $E --transport verbs --launch-local 2 --poll $poll $shared_flags | tail -1
echo '@@ shared $poll 4'; $E --transport verbs --launch-local 4 --poll $poll $shared_flags | tail -1
yes >/dev/null & hog=\$!; echo '@@ shared $poll hog'; $E --transport verbs --launch-local 2 --poll $poll $shared_flags | tail -1; kill \$hog
"
done
script="$IBW_PAIR
echo @@ uni.ib_write_bw; ibw -d rxe0 -x 1 -s 1048576 -n $iters; sleep 1
echo @@ bi.ib_write_bw; ibw -b -d rxe0 -x 1 -s 1048576 -n $iters; sleep 1
(qperf >/dev/null 2>&1 &); sleep 1
echo @@ rc_rdma_write_bw.qperf; qperf 10.0.0.1 -cm1 -t $secs -m 1M -vu rc_rdma_write_bw; sleep 1
$runs"
out=$(bash tests/vm/run-in-vm.sh -t 900 -b "$E" -b "$(command -v ib_write_bw)" -b "$(command -v qperf)" -- "$script")
echo "$out"
echo "$out" | python3 -c '
import re, sys
sys.path.insert(0, "bench")
import peer_output
parts = peer_output.sections(sys.stdin.read())
uni = peer_output.figure_of("uni.ib_write_bw", parts.get("uni.ib_write_bw", ""))
bi = peer_output.figure_of("bi.ib_write_bw", parts.get("bi.ib_write_bw", ""))   # both directions together
qp = peer_output.figure_of("rc_rdma_write_bw.qperf", parts.get("rc_rdma_write_bw.qperf", ""))
print(f"ib_write_bw 1 MiB: {uni:.3f} Gb/s one way, {bi:.3f} Gb/s both ways ({bi / 2:.3f} per direction)")
print(f"qperf rc_rdma_write_bw 1 MiB: {qp:.3f} Gb/s one way")
def per_node(name, body):
    m = re.search(r"# system: .*?, ([0-9.]+) Gb/s per node", body)
    if not m:
        sys.exit(f"verbs_bench.sh: evbench {name} printed no system line: {body.strip()[:200]!r}")
    return float(m.group(1))   # per node, over the network: the BU own fragment left out
runs = {name[4:]: body for name, body in parts.items() if name.startswith("evb ")}
for cfg, body in runs.items():
    net = per_node(cfg, body)
    print(f"evbench verbs {cfg}: {net:.3f} Gb/s over the network per node and direction = {net / (bi / 2):.2f}x ib_write_bw -b, {net / uni:.2f}x one-way, {net / qp:.2f}x qperf")
# The shared node: Gb/s across rxe0, all nodes, and the ratio to 2 quiet ranks at the same --poll.
shared = {}
for name, body in parts.items():
    if name.startswith("shared "):
        _, poll, case = name.split()
        m = re.search(r"# system: .*?, ([0-9.]+) Gb/s aggregate", body)
        if not m:
            sys.exit(f"verbs_bench.sh: evbench {name} printed no system line: {body.strip()[:200]!r}")
        shared.setdefault(poll, {})[case] = float(m.group(1))
for poll, cases in shared.items():
    q, four, hog = cases["2"], cases["4"], cases["hog"]
    print(f"shared node, verbs --poll {poll}: 2 ranks {q:.3f} Gb/s (all nodes), 4 ranks {four:.3f} ({four / q:.2f}), "
          f"2 beside a CPU hog {hog:.3f} ({hog / q:.2f})")
'
