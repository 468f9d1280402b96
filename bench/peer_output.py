#!/usr/bin/env python3
"""The peer tools' figures, read from their own output: one parser per tool for every benchmark.
Each returns Gb/s (10^9 bit/s) and raises PeerOutputError, naming the tool and what it printed,
when the figure is not there: a benchmark whose peer printed something else stops instead of
printing a table without its limit.
    peer_output.py TOOL FILE     prints the figure of FILE (the tool's output), e.g.
    peer_output.py qperf /tmp/qperf.txt
TOOL: qperf, ib_write_bw, fi_pingpong, ucx_perftest, iperf3 (its -J document).
A VM run prints several tools' output at once: sections() splits it at lines '@@ NAME', and
figure_of() reads a section named LABEL.TOOL (uni.ib_write_bw) with TOOL's parser."""
import json
import re
import sys


class PeerOutputError(ValueError):
    pass


def _fail(tool, what, text):
    first = next((line.strip() for line in text.splitlines() if line.strip()), "nothing")
    raise PeerOutputError(f"{tool}: {what} not in its output (it printed: {first[:120]!r})")


def qperf(text):
    """qperf -vu tcp_bw / rc_rdma_write_bw: 'bw  =  54.8 MB/sec' (K, M or G bytes a second)."""
    m = re.search(r"^\s*bw\s*=\s*([0-9.]+)\s*([KMG]?)B/sec", text, re.M)
    if not m:
        _fail("qperf", "a 'bw = N MB/sec' line", text)
    return float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)] * 8 / 1e9


def ib_write_bw(text):
    """perftest's ib_write_bw: the 'BW average[MB/sec]' column of the row under '#bytes'."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "#bytes" in line and "BW average" in line:
            for row in lines[i + 1:]:
                fields = row.split()
                if len(fields) >= 4 and fields[0].isdigit():
                    if float(fields[3]) <= 0:   # as with -D on rxe in the VM: 0 iterations, 0.00 MB/sec
                        _fail("ib_write_bw", "a bandwidth above 0 (it measured no iteration: run it longer)", row)
                    return float(fields[3]) * 8 / 1e3
            break
    _fail("ib_write_bw", "a row under its '#bytes ... BW average[MB/sec]' header", text)


def fi_pingpong(text):
    """fabtests' fi_pingpong: the MB/sec column (6th) of the result row, MB of 2^20 bytes."""
    for line in text.splitlines():
        fields = line.split()
        # sizes and counts in its short form: 1m bytes, 1k sent
        if len(fields) >= 6 and all(re.fullmatch(r"[0-9.]+[kmg]?", f) for f in fields[:2]):
            return float(fields[5]) * 8 * 1.048576 / 1000
    _fail("fi_pingpong", "a result row (bytes #sent #ack total time MB/sec ...)", text)


def ucx_perftest(text):
    """ucx_perftest: the 'Final:' row's overall bandwidth (6th field), MB of 2^20 bytes a second."""
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 6 and fields[0] == "Final:":
            return float(fields[5]) * 8 * 1.048576 / 1000
    _fail("ucx_perftest", "a 'Final:' row", text)


def iperf3(text):
    """iperf3 -J: what the receivers got, end.sum_received.bits_per_second."""
    try:
        return json.loads(text)["end"]["sum_received"]["bits_per_second"] / 1e9
    except (ValueError, KeyError, TypeError):
        _fail("iperf3", "a JSON document with end.sum_received.bits_per_second", text)


TOOLS = {"qperf": qperf, "ib_write_bw": ib_write_bw, "fi_pingpong": fi_pingpong, "ucx_perftest": ucx_perftest, "iperf3": iperf3}


def sections(text):
    """A VM run's output split at lines '@@ NAME': {NAME: the lines after it}."""
    out, name = {}, None
    for line in text.splitlines():
        if line.startswith("@@ "):
            name = line[3:].strip()
            out[name] = ""
        elif name is not None:
            out[name] += line + "\n"
    return out


def figure_of(name, text):
    """The figure of a section named 'LABEL.TOOL' (or TOOL)."""
    tool = name.split(".")[-1]
    if tool not in TOOLS:
        raise PeerOutputError(f"section {name}: no parser for '{tool}' ({', '.join(TOOLS)})")
    return TOOLS[tool](text)


def main(argv):
    if len(argv) != 3 or argv[1] not in TOOLS:
        print(f"usage: peer_output.py {{{'|'.join(TOOLS)}}} FILE", file=sys.stderr)
        return 2
    text = open(argv[2], errors="replace").read()
    try:
        print(TOOLS[argv[1]](text))
    except PeerOutputError as e:
        print(f"peer_output.py: {argv[2]}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
