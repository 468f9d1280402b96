# What the simulator bench scripts (sim_validation.sh, barrel_start_and_vls.sh) share to print
# their tables from launch/scan.py's JSON lines: a point's flags, its fabric rx, and its cell.
import json
import os
import sys

_start_up_seen = False


def load_rows(path):
    """The scan's points; in smoke mode (EVB_BENCH_SMOKE=1) a failed point fails the benchmark,
    which otherwise prints it as nan for a rerun to retry."""
    rows = [json.loads(line) for line in open(path) if line.strip()]
    failed = [r for r in rows if r.get("exit_code") != 0]
    if os.environ.get("EVB_BENCH_SMOKE") == "1" and (failed or not rows):
        what = f"{' '.join(failed[0]['point'])}: {failed[0].get('error', 'failed')}" if failed else "no point ran"
        sys.exit(f"{path}: {what}")
    return rows


def arg(point, name):
    return point[point.index(name) + 1] if name in point else ""


def rx(row):
    """Fabric rx Gb/s per node; nan for a failed point (a rerun retries it)."""
    return row["results"]["network"]["fabric_rx_gbps"]["avg"] if row.get("exit_code") == 0 else float("nan")


def cell(row):
    """A table cell; a point whose window starts before its first events are built measures the
    start-up (every credit begun at once), not the steady state: it gets a '*'."""
    global _start_up_seen
    if row is None:
        return f"{float('nan'):8.2f} "
    if row.get("exit_code") == 0 and row["results"]["network"].get("start_up_in_window"):
        _start_up_seen = True
        return f"{rx(row):8.2f}*"
    return f"{rx(row):8.2f} "


def footnote():
    if _start_up_seen:
        print("* start-up window: it begins before the first events are built; the steady state is lower "
              "(docs/simulator.md, 'Start-up and steady state'; a --warmup past the first events leaves it out)")
