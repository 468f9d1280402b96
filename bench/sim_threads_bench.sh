#!/usr/bin/env bash
# The simulator on more than one core: the 512-host fat tree (k = 16) under the linear shifter
# of 1 MiB messages (evbench netsim), or with WORKLOAD `builder` the 512-node event builder on it
# (16 credits, 1 MiB fragments), run with --sim-threads 1 and with N threads (default: the
# cores available) one after the other (in turn first), ROUNDS rounds. Prints each round's wall times and their
# ratio, the median ratio, whether the two runs' results are equal but for wall time and thread
# count (they must be, bit for bit), and from the N-thread runs the events per window and the
# time per window each thread ran events, waited for the others, and the one thread handed over.
# From those it projects 16 and 64 threads, assuming waiting and handing over stay what they
# are at N: a projection, not a measurement.
# Usage: bash bench/sim_threads_bench.sh [simulated time, 3ms] [rounds, 3] [threads, the cores available] [netsim|builder]
# EVB_BENCH_SMOKE=1: 100us, 1 round, 2 threads, netsim and builder.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/build_bench.sh
SIM=${1:-$(smoke 3ms 100us)}; ROUNDS=${2:-$(smoke 3 1)}; THREADS=${3:-$(smoke "$(nproc)" 2)}; WORKLOAD=${4:-netsim}
[ "$THREADS" -ge 2 ] || { echo "sim_threads_bench.sh: needs 2 threads or more (this machine has $(nproc) cores)" >&2; exit 2; }
case $WORKLOAD in netsim | builder) ;; *) echo "sim_threads_bench.sh: the workload is netsim or builder, not '$WORKLOAD'" >&2; exit 2 ;; esac
if $SMOKE && [ -z "${4:-}" ]; then bash "$0" "$SIM" "$ROUNDS" "$THREADS" builder; fi   # the smoke run tries both
run() {   # threads name
  if [ "$WORKLOAD" = netsim ]; then
    $EVB netsim --k 16 --levels 2 --traffic linear --message-size 1MiB --duration "$SIM" --progress-interval 0 \
         --sim-threads "$1" --json "$OUT/sim-threads-$2.json" > "$OUT/sim-threads-$2.txt"
  else
    $EVB --transport sim --nodes 512 --k 16 --credits 16 --fragment-size 1MiB --duration "$SIM" --progress-interval 1s \
         --sim-threads "$1" --json "$OUT/sim-threads-$2.json" > "$OUT/sim-threads-$2.txt"
  fi
}
echo "workload: $WORKLOAD, $SIM simulated"
echo "round  1_thread_s  ${THREADS}_threads_s  speed-up"
for i in $(seq 1 "$ROUNDS"); do
  if [ $((i % 2)) = 1 ]; then run 1 one; run "$THREADS" many; else run "$THREADS" many; run 1 one; fi
  python3 - "$OUT" "$i" <<'PY' | tee -a "$OUT/sim-threads-rounds"
import json, sys
out, i = sys.argv[1], sys.argv[2]
def wall(name):
    r = json.load(open(f"{out}/sim-threads-{name}.json"))["results"]
    return r["network"]["wall_seconds"] if "network" in r else r["wall_seconds"]
one, many = wall("one"), wall("many")
print(f"{i:>5} {one:11.3f} {many:11.3f} {one / many:9.3f}")
PY
done
python3 - "$OUT" "$THREADS" <<'PY'
import json, re, statistics, sys
out, threads = sys.argv[1], int(sys.argv[2])
ratios = [float(line.split()[3]) for line in open(f"{out}/sim-threads-rounds") if line.strip()]
open(f"{out}/sim-threads-rounds", "w").close()
print(f"median speed-up {statistics.median(ratios):.3f}x with {threads} threads ({min(ratios):.3f} to {max(ratios):.3f}), {len(ratios)} rounds")
def predicted(x):   # the results but how they were run: wall times, the thread count, the machine
    if isinstance(x, dict):
        return {k: predicted(v) for k, v in x.items() if k not in ("wall_seconds", "wall_s", "sim_threads", "origins", "origin")}
    return [predicted(v) for v in x] if isinstance(x, list) else x
results = {n: json.load(open(f"{out}/sim-threads-{n}.json"))["results"] for n in ("one", "many")}
wall_one = results["one"]["network"]["wall_seconds"] if "network" in results["one"] else results["one"]["wall_seconds"]
one, many = predicted(results["one"]), predicted(results["many"])
print(f"results of 1 and {threads} threads equal" if one == many else f"RESULTS DIFFER between 1 and {threads} threads")
if one != many:
    sys.exit(1)
line = next(l for l in open(f"{out}/sim-threads-many.txt") if " windows, " in l)
windows, per_window, busy, wait, handover = (float(x) for x in re.findall(r"([\d.]+) (?:windows|events per window|us of events|us waiting|us handing)", line))
print(line.strip("# \n"))
# Projected: the one-thread run's work per window shared by T threads, plus what waiting and
# handing over cost per window at the measured count.
work = wall_one / windows * 1e6
for t in (16, 64):
    print(f"projected at {t} threads (not measured): {work / (work / t + wait + handover):.1f}x, "
          f"{per_window / t:.0f} events per thread and window")
PY
