#!/usr/bin/env bash
# What one simulator event costs in the steady state of the 512-node event builder (k = 16 tree,
# 16 credits, 1 MiB, packet mode), counted rather than timed: valgrind's callgrind runs the
# simulator with counting off for SKIP seconds of wall time (past the start-up: fragments
# generated, every credit filled), then counts WINDOW seconds and stops the run. Prints the
# window's simulator events and packets sent over a hop, instructions and mispredicted branches
# (valgrind's branch model, not this CPU's) per event, and the functions that take the most
# instructions. Counts do not drift with the machine as times do (this VM: up to 20% over hours),
# but a step that cuts instructions need not cut time: time it too (sim_speed_side_by_side.sh).
# Usage: bash bench/sim_instructions_per_event.sh EVBENCH [skip seconds] [window seconds] [extra flags]
#        (default 90 45; under valgrind the simulator ran about 3 times slower uncounted, 60 ms
#        simulated in 110 s, and 15 times slower counted, so the window starts some 40 ms
#        simulated in and holds about 20 M events)
# EVB_BENCH_SMOKE=1: 64 nodes, 3 s skipped, 3 s counted (bench/smoke.sh).
set -euo pipefail
source "$(dirname "$0")/smoke.sh"
EVB=$1; SKIP=${2:-$(smoke 90 3)}; WINDOW=${3:-$(smoke 45 3)}; EXTRA=${4:-}
NODES=$(smoke 512 64)
command -v valgrind >/dev/null || { echo "sim_instructions_per_event.sh: valgrind is missing (bash launch/setup-debian.sh installs it)" >&2; exit 1; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# shellcheck disable=SC2086  # EXTRA is a list of flags
valgrind --tool=callgrind --branch-sim=yes --instr-atstart=no --callgrind-out-file="$OUT/cg.out" \
  "$EVB" --transport sim --nodes "$NODES" --k 16 --credits 16 --fragment-size 1MiB --duration 1s $EXTRA --quiet \
  >/dev/null 2>"$OUT/valgrind.log" &
pid=$!
sleep "$SKIP"
kill -0 "$pid" 2>/dev/null || { echo "sim_instructions_per_event.sh: the run ended before the window (see valgrind's log):" >&2; tail -n 5 "$OUT/valgrind.log" >&2; exit 1; }
callgrind_control -i on "$pid" >/dev/null 2>&1
sleep "$WINDOW"
callgrind_control -d "$pid" >/dev/null 2>&1
callgrind_control -k "$pid" >/dev/null 2>&1 || true
wait "$pid" 2>/dev/null || true
dumps=("$OUT"/cg.out.*)
dump=${dumps[0]}
[ -s "$dump" ] || { echo "sim_instructions_per_event.sh: callgrind wrote no counts for the window (see valgrind's log):" >&2; tail -n 5 "$OUT/valgrind.log" >&2; exit 1; }
python3 - "$dump" <<'PY'
import re, sys
path = sys.argv[1]
names, calls, totals, events = {}, {}, None, None
for line in open(path):
    m = re.match(r'(c?fn)=\((\d+)\)(?: (.*))?', line.strip())
    if m:
        if m.group(3):
            names[m.group(2)] = m.group(3)
        if m.group(1) == 'cfn':
            callee = m.group(2)
    elif line.startswith('calls='):
        calls[callee] = calls.get(callee, 0) + int(line.split('=')[1].split()[0])
    elif line.startswith('events:'):
        events = line.split()[1:]
    elif line.startswith(('totals:', 'summary:')):
        totals = dict(zip(events, map(int, line.split()[1:])))
def called(function):   # a member function, and each of its template instances ("f<...>(")
    pattern = re.compile(re.escape(function) + r'[(<]')
    return sum(n for k, n in calls.items() if pattern.search(names.get(k, '')))
# Simulator events: calls of FabricSim::dispatch, once per event; where the optimiser folded it
# into its one caller (Release, link-time optimised), calls of EventQueue::push, once per event
# too: in a steady-state window as many are pushed as dispatched, to within the queue's length.
dispatched, counted_by = called('FabricSim::dispatch'), 'FabricSim::dispatch'
if not dispatched:
    dispatched, counted_by = called('EventQueue::push'), 'EventQueue::push, dispatch being inlined'
hops = called('FabricSim::start_packet')
if not dispatched:
    sys.exit("sim_instructions_per_event.sh: no simulator event in the window (no call of FabricSim::dispatch or EventQueue::push)")
mispredicted = totals.get('Bcm', 0) + totals.get('Bim', 0)
print(f"window: {dispatched} simulator events (calls of {counted_by}), {hops} packets sent over a hop")
print(f"per event: {totals['Ir'] / dispatched:.0f} instructions, {mispredicted / dispatched:.2f} mispredicted branches (valgrind's model)")
PY
echo "the functions with the most instructions in the window (Ir), branches (Bc, Bi) and mispredicted ones (Bcm, Bim):"
callgrind_annotate --inclusive=no "$dump" 2>/dev/null | awk '/file:function/{p=1} p && NF && !/^-+$/' | head -n 13
