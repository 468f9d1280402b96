#!/usr/bin/env bash
# One rail against two on verbs, in one VM boot (tests/vm): rxe0 on d0 alone, then rxe0 and rxe1
# (on a second dummy interface d1) with --rails, 2 nodes at ppn 1, 1 MiB fragments; with
# ib_write_bw -b on rxe0 in the same boot as the machine's limit. Soft-RoCE is CPU-bound (the
# kernel computes every packet's CRC), so on this 2-core machine two rails share the same cores.
# Usage: bash bench/rails_bench.sh [seconds]   (EVB_BENCH_SMOKE=1: 1 s each; bench/build_bench.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
source bench/ib_write_bw_in_vm.sh
secs=${1:-$(smoke 5 1)}
iters=$((secs * 50))   # ib_write_bw by iterations: with -D it measured nothing on rxe (verbs_bench.sh)
E=$EVB
script="$IBW_PAIR
ip link add d1 type dummy; ip addr add 10.0.1.1/24 dev d1; ip link set d1 up; rdma link add rxe1 type rxe netdev d1; sleep 1
echo @@ bi.ib_write_bw; ibw -b -d rxe0 -x 1 -s 1048576 -n $iters; sleep 1
echo @@ runs
for rails in '' '--rails rxe0,rxe1'; do
  echo evb \"one\$rails\" \$($E --transport verbs --launch-local 2 --fragment-size 1MiB --credits 4 --parallel 2 --duration ${secs}s --quiet \$rails | tail -2 | tr '\n' ' ')
done"
out=$(bash tests/vm/run-in-vm.sh -t 900 -b "$E" -b "$(command -v ib_write_bw)" -- "$script")
echo "$out"
echo "$out" | python3 -c '
import re, sys
sys.path.insert(0, "bench")
import peer_output
text = sys.stdin.read()
bi = peer_output.figure_of("bi.ib_write_bw", peer_output.sections(text).get("bi.ib_write_bw", "")) / 2   # per direction
print(f"limit  ib_write_bw -b on rxe0, 1 MiB: {bi:.3f} Gb/s per direction")
base = None
runs = re.findall(r"^evb (.*?) .*# system: .*?, ([0-9.]+) Gb/s per node", text, re.M)   # over the network
if len(runs) != 2:
    sys.exit(f"rails_bench.sh: {len(runs)} of the 2 evbench runs printed a system line")
for cfg, per_node in runs:
    net = float(per_node)   # each BU own fragment left out: N = 2, half of what it builds
    base = base or net
    label = "two rails (--rails rxe0,rxe1)" if "rails" in cfg else "one rail (rxe0)"
    print(f"{label:30}: {2 * net:.3f} Gb/s built per node, {net:.3f} over the network per direction = {net / bi:.2f}x ib_write_bw -b, {net / base:.3f}x one rail")
for line in re.findall(r"# rails: .*?(?=# system)", text): print(line.strip())
'
