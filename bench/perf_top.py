#!/usr/bin/env python3
"""The top symbols of a `perf record` profile for one program, and its share in copies.
    perf_top.py PERF_DATA COMM [N]
prints 'cores N.N' (how many of the machine's cores the program kept busy: its share of all samples
of a `perf record -a`), 'copy NN%' (kernel or user copies: _copy_to_iter, copy_user*, copy_page*,
memcpy, memmove) then the N (default 4) symbols with the most samples of processes named COMM, each
'NN% symbol'."""
import os
import re
import subprocess
import sys

COPY = re.compile(r"copy_to_iter|copy_from_iter|copy_user|copy_page|memcpy|memmove")


def perf_report(data, *args):
    return subprocess.run(["perf", "report", "-i", data, "--stdio", *args], capture_output=True, text=True, check=True).stdout


def cores(data, comm):
    """The program's share of every sample taken on any core, in cores."""
    share = 0.0
    for line in perf_report(data, "--sort", "comm").splitlines():
        m = re.match(r"^\s+([0-9.]+)%\s+(.+?)\s*$", line)
        if m and m.group(2) == comm:
            share += float(m.group(1))
    return share / 100 * os.cpu_count()


def main():
    data, comm = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    report = perf_report(data, "--comms", comm, "--sort", "symbol", "--percentage", "relative")
    rows = []
    for line in report.splitlines():
        m = re.match(r"^\s+([0-9.]+)%\s+\[[.k]\]\s+(\S+)", line)
        if m:
            rows.append((float(m.group(1)), m.group(2)))
    if not rows:
        sys.exit(f"perf_top.py: no samples of '{comm}' in {data}")
    copy = sum(share for share, symbol in rows if COPY.search(symbol))
    print(f"cores {cores(data, comm):.1f}; copy {copy:.0f}%; " + ", ".join(f"{share:.0f}% {symbol[:40]}" for share, symbol in rows[:top]))


main()
