#!/usr/bin/env python3
"""evbench results to CSV: one row per run from scan JSON lines (launch/scan.py) or --json files.

  tools/aggregate.py scan.jsonl [more.jsonl ...] > scan.csv
Columns: transport, protocol (or the baseline), scheduling, nodes, ppn, credits, parallel,
fragment_size (B), exit_code, events_built, errors, start_up (yes: the window holds the start-up,
a BU built no event in it or its first one: not a steady figure), idle_builders (BUs that built no
event in the window), steady (--until steady: yes when the rate was known within its bound, no
when the cap came first; empty without it), steady_gbps and half_width_gbps (its built rate per
node over the steady window and the 95 % half-width), per_node_gbps (average receive rate per
node over the network; the fabric's per-packet figure for --transport sim), min/max_node_gbps,
built_gbps (every fragment byte into a BU, its own node's included, per node), event_rate_hz
(events built per second, all BUs), latency_avg_us and latency_p99_us (event building), window_s
(the span the rates count over), duration_s, warmup_s, seed, commit (evbench's build), point (the
scan point's arguments). Lines that are not JSON are named on standard error."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scan_table import COLUMNS, rows_of  # noqa: E402


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    missing = [p for p in argv[1:] if not os.path.exists(p)]
    if missing:
        print(f"aggregate.py: error: no such file: {missing[0]}", file=sys.stderr)
        return 2
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")   # lines as evbench --format csv ends them
    writer.writeheader()
    for row, _ in rows_of(argv[1:]):
        writer.writerow(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
