#!/usr/bin/env bash
# Each driver across four hosts of the cluster in a box (tests/netns/cluster.sh, root only) whose
# links are shaped to 5 Gbit/s each way (EVB_NETNS_RATE=R: R Gbit/s), against that line rate and
# against iperf3 on the same links, in one run. The hosts sit on one non-blocking switch (tests/netns/fabrics/switch4.fabric);
# mpirun on h1 starts one rank per host through tests/netns/rsh.sh.
#   iperf3   a ring, each host sending one stream to the next: per-host Gb/s each way
#   evbench  4 nodes, PUSH, 4 credits of 256 KiB: per-node Gb/s that crossed its link inbound
#            (in_Gbps: each BU's own fragment never leaves its host)
# Ratios: evbench / 5 Gbit/s, and evbench / iperf3, with each driver's CPU (the hosts share this
# machine's cores); then each driver on a shared node: 2 hosts (one process per core) against 4 and
# against both beside a CPU hog, at its default --poll and spinning. At 5 Gbit/s the four hosts' copies keep this machine's 2 cores busy, so a
# hog takes CPU the quiet run used; at 1 Gbit/s (EVB_NETNS_RATE=1) the links are the limit and
# cores are left over, as on a node whose NIC is slower than its cores.
# Usage: bash bench/netns_line_rate_bench.sh [seconds per point]   (results also in bench/results/)
# EVB_BENCH_SMOKE=1: 1 s points, tcp and iperf3 only (bench/build_bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
source bench/netns_bed.sh
T=${1:-$(smoke 5 1)}
RATE=${EVB_NETNS_RATE:-5}
bed_up tests/netns/fabrics/switch4.fabric
hosts=(h1 h2 h3 h4)
[ "$RATE" = 5 ] || for h in "${hosts[@]}"; do $bed shape "$h" "${RATE}gbit"; done

# iperf3 ring: h1 -> h2 -> h3 -> h4 -> h1, all at once; the mean of the four receivers.
iperf=$(bed_iperf3_ring "$T" netns_iperf3)

# evbench under mpirun across the four hosts: Gb/s per node that crossed the network inbound.
# MCA: mpirun options of a point.
evbench_network() {   # name, transport flags...
  local name=$1; shift
  bed_mpirun ${MCA:-} "$EVB" "$@" --bootstrap h1:29000 --protocol push --credits 4 --fragment-size 256KiB --duration "$T" --quiet --json "$OUT/netns_$name.json" >/dev/null
  python3 -c "import json; print(json.load(open('$OUT/netns_$name.json'))['results']['system']['per_node_in_gbps'])"
}
line() { python3 -c "print(f'{\"$1\":<24} {float($2):6.2f} Gb/s per node   / line rate {float($2)/$RATE:.2f}   / iperf3 {float($2)/float($3):.2f}')"; }

echo "== 4 hosts on one switch, links shaped to $RATE Gbit/s each way, ${T} s per point"
line "iperf3 (ring)" "$iperf" "$iperf"
# Each driver's points: name|transport flags|mpirun options.
drivers=("tcp|--transport tcp")
# Open MPI and UCX send a 256 KiB message by rendezvous: its handshake shares the TCP stream with
# the data, and waits behind what the socket's send buffer holds (Linux grows it to 4 MiB, 32 ms at
# 1 Gbit/s). Their second point sends it eagerly, their third sizes the socket buffers to the link
# (docs/performance.md).
# Open MPI's ranks spin while a transfer is in flight: told to yield, as mpirun would if it knew
# that the four hosts share two cores.
$SMOKE || drivers+=("mpi|--transport mpi|--mca mpi_yield_when_idle 1"
                    "mpi-eager|--transport mpi|--mca mpi_yield_when_idle 1 --mca btl_tcp_eager_limit 300000 --mca btl_tcp_max_send_size 300000"
                    "mpi-buffers|--transport mpi|--mca mpi_yield_when_idle 1 --mca btl_tcp_sndbuf 131072 --mca btl_tcp_rcvbuf 131072"
                    "ofi|--transport ofi --ofi-provider tcp;ofi_rxm"
                    "ucx|--transport ucx --ucx-tls tcp|" "ucx-eager|--transport ucx --ucx-tls tcp|-x UCX_RNDV_THRESH=inf"
                    "ucx-buffers|--transport ucx --ucx-tls tcp|-x UCX_TCP_SNDBUF=64k -x UCX_TCP_RCVBUF=64k")
declare -A quiet
for d in "${drivers[@]}"; do
  IFS='|' read -r name flags mca <<< "$d"; read -r -a flags <<< "$flags"
  quiet[$name]=$(MCA=$mca evbench_network "$name" "${flags[@]}")
  line "evbench $name" "${quiet[$name]}" "$iperf"
  # The four hosts share this machine's cores: a driver that needs more CPU per byte meets them first.
  python3 -c "import json; c = json.load(open('$OUT/netns_$name.json'))['results']['cpu']
print(f'{\"\":<24} cores busy {c[\"cores_busy\"]:.2f} of $(nproc), {c[\"cores_per_100gbps\"]:.2f} cores per 100 Gb/s moved')"
done

# A shared node, at each driver's default --poll: the per-node rate with one process per core (2
# hosts: this machine has 2 cores), with twice as many (the 4 hosts above), beside a busy process (one
# `yes`, not pinned, as the trigger software beside an event builder) with one per core, and both at
# once; then both at once with --poll spin. Ratios to the first (mpi has no wait object: its idle
# ranks nap). Each driver's hog is started after its quiet points and stopped after its own.
echo "== a shared node: Gb/s per node; in brackets, of the same driver's 2 hosts on a quiet machine"
printf '%-12s %8s %15s %15s %15s %15s\n' driver "2 hosts" "4 hosts" "2 beside hog" "4 beside hog" "4, --poll spin"
share() { python3 -c "print(f'{float($1):5.2f} ({float($1)/float($2):.2f})')"; }
hog=""
# set -e holds in the trap too: a kill of a hog already gone must not turn the run's status into a failure.
trap '[ -z "$hog" ] || kill "$hog" 2>/dev/null || true; $bed down >/dev/null 2>&1 || true' EXIT
for d in "${drivers[@]}"; do
  IFS='|' read -r name flags mca <<< "$d"; read -r -a flags <<< "$flags"
  one=$(BED_HOSTS=2 MCA=$mca evbench_network "${name}_2" "${flags[@]}")
  yes > /dev/null & hog=$!
  hog2=$(BED_HOSTS=2 MCA=$mca evbench_network "${name}_2_hog" "${flags[@]}")
  hog4=$(MCA=$mca evbench_network "${name}_hog" "${flags[@]}")
  spin4=$(MCA=$mca evbench_network "${name}_hog_spin" "${flags[@]}" --poll spin)
  kill $hog; wait $hog 2>/dev/null || true
  hog=""
  printf '%-12s %8.2f %15s %15s %15s %15s\n' "$name" "$one" "$(share "${quiet[$name]}" "$one")" \
    "$(share "$hog2" "$one")" "$(share "$hog4" "$one")" "$(share "$spin4" "$one")"
done
