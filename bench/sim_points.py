# What the simulator bench scripts (sim_validation.sh, barrel_start_and_vls.sh) share to print
# their tables from launch/scan.py's JSON lines: a point's flags, its fabric rx, and its cell.
import json

_start_up_seen = False


def load_rows(path):
    return [json.loads(line) for line in open(path) if line.strip()]


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
              "(README, 'Start-up and steady state'; a --warmup past the first events leaves it out)")
