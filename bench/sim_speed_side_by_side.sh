#!/usr/bin/env bash
# Two simulator builds timed side by side: both run the 512-node event builder (k = 16 tree, 16
# credits, 1 MiB) at the same time, one per core, swapping cores each round, so both see the same
# machine (this VM's speed drifts by up to 20% over hours, and one run after the other differed by
# 0.8x to 1.2x for the same binary). Prints each round's wall times and old/new ratio, their
# median, and whether the last round's results are equal but for wall time and event count
# (a speed step must not change what the simulator predicts). With two rounds or more it also
# compares each core's own times (old on core c against new on core c, then their geometric
# mean): when one core of the VM runs slower than the other, the rounds' ratios alternate around
# the true one (0.63 to 1.72 in one hour where the per-core comparison read 0.977 and 0.979). And
# each core's fastest runs, the measure least moved by other processes on a busy machine.
# Each run is pinned to one core (taskset), so a build with --sim-threads runs on one thread (its
# default is the cores available); the thread count is left out of the comparison.
# Usage: bash bench/sim_speed_side_by_side.sh OLD_EVBENCH NEW_EVBENCH [simulated time] [rounds] [extra flags]
#        (default 20ms 4; needs 2 cores and taskset)
# EVB_BENCH_SMOKE=1: 2 rounds of 1 ms (bench/smoke.sh).
set -euo pipefail
source "$(dirname "$0")/smoke.sh"
OLD=$1; NEW=$2; SIM=${3:-$(smoke 20ms 1ms)}; ROUNDS=${4:-$(smoke 4 2)}; EXTRA=${5:-}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
run() {   # binary core name
  # shellcheck disable=SC2086  # EXTRA is a list of flags
  /usr/bin/time -f "%e" -o "$OUT/$3.time" taskset -c "$2" "$1" --transport sim --nodes 512 --k 16 --credits 16 \
    --fragment-size 1MiB --duration "$SIM" $EXTRA --quiet --json "$OUT/$3.json" >/dev/null
}
echo "old: $("$OLD" --version)"
echo "new: $("$NEW" --version)"
for i in $(seq 1 "$ROUNDS"); do
  core_old=$(( i % 2 )); core_new=$(( 1 - i % 2 ))
  run "$OLD" "$core_old" old & run "$NEW" "$core_new" new & wait
  echo "$(cat "$OUT/old.time") $(cat "$OUT/new.time") $core_old" >> "$OUT/rounds"
done
python3 - "$OUT" "$ROUNDS" "$SIM" <<'PY'
import json, statistics, sys
out, rounds, sim = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def results(path):   # the results but for the wall time, the thread count and the simulator's event count
    r = json.load(open(path))["results"]
    del r["wall_s"], r["network"]["wall_seconds"]
    r["network"].pop("sim_threads", None)
    return r, r["network"].pop("events")
ratios = []
on_core = {("old", 0): [], ("old", 1): [], ("new", 0): [], ("new", 1): []}
print(f"{'round':>5} {'old_s':>8} {'new_s':>8} {'old/new':>8}")
for i, line in enumerate(open(f"{out}/rounds"), 1):
    old, new, core_old = line.split()
    old, new, core_old = float(old), float(new), int(core_old)
    ratios.append(old / new)
    on_core[("old", core_old)].append(old)
    on_core[("new", 1 - core_old)].append(new)
    print(f"{i:5d} {old:8.2f} {new:8.2f} {old / new:8.3f}")
print(f"median {statistics.median(ratios):.3f}x faster ({min(ratios):.3f} to {max(ratios):.3f}), 512 nodes, {sim} simulated, {rounds} rounds")
if all(on_core.values()):   # both binaries ran on both cores
    per_core = [statistics.mean(on_core[("old", c)]) / statistics.mean(on_core[("new", c)]) for c in (0, 1)]
    print(f"per core (mean old / mean new on the same core): core 0 {per_core[0]:.3f}, core 1 {per_core[1]:.3f}, "
          f"geometric mean {(per_core[0] * per_core[1]) ** 0.5:.3f}x faster")
    # Another process only ever slows a run down: each binary's fastest run on a core is the
    # nearest to its speed on a quiet machine.
    fastest = [min(on_core[("old", c)]) / min(on_core[("new", c)]) for c in (0, 1)]
    print(f"fastest per core (fastest old / fastest new on the same core): core 0 {fastest[0]:.3f}, core 1 {fastest[1]:.3f}, "
          f"geometric mean {(fastest[0] * fastest[1]) ** 0.5:.3f}x faster")
(a, ea), (b, eb) = results(f"{out}/old.json"), results(f"{out}/new.json")   # the last round's
print(f"results {'equal' if a == b else 'DIFFERENT'}; simulator events {ea} old, {eb} new")
sys.exit(0 if a == b else 1)
PY
