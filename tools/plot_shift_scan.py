#!/usr/bin/python3
"""The shift scan's figure (paper 003 fig. 6 and 8): min / average / max per-node bandwidth per
shift, from the JSON of `evbench --benchmark shift-scan --json FILE`.

  tools/plot_shift_scan.py scan.json [--conflicts conflicts.json] [--out DIR] [--name NAME]
Writes NAME.png and NAME.svg (default shift_scan) into DIR (default: beside the JSON). With the
JSON of `evbench conflicts --json` on the same fabric, b_eff / max_flows is drawn per shift too:
the analyser's prediction next to the measurement. A file that is not a shift scan's result is
refused with one line and exit 2."""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def fail(message):
    print(f"plot_shift_scan: error: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scan")
    ap.add_argument("--conflicts", help="JSON of `evbench conflicts --json` on the same fabric")
    ap.add_argument("--out")
    ap.add_argument("--name", default="shift_scan")
    a = ap.parse_args()
    doc = load(a.scan)
    phases = doc.get("results", {}).get("phases") if isinstance(doc, dict) else None
    if not phases:
        fail(f"{a.scan}: no results.phases (not a --benchmark shift-scan result)")
    # Shift 0 is each node to itself: no network rate (results written before over_network
    # existed mark it by its shift).
    phases = [p for p in phases if p.get("over_network", p["shift"] != 0)]
    shifts = [p["shift"] for p in phases]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(shifts, [p["max_gbps"] for p in phases], "^-", color="tab:green", label="max")
    ax.plot(shifts, [p["avg_gbps"] for p in phases], "o-", color="tab:blue", label="average")
    ax.plot(shifts, [p["min_gbps"] for p in phases], "v-", color="tab:red", label="min")
    if a.conflicts:
        analysis = load(a.conflicts)
        b_eff = doc["results"].get("network", {}).get("effective_gbps")
        if b_eff is None:
            fail(f"{a.scan}: no results.network.effective_gbps: the prediction needs a --transport sim result")
        rows = [r for r in analysis.get("phases", []) if r["shift"] != 0]
        ax.step([r["shift"] for r in rows], [b_eff / r["max_flows"] for r in rows], where="mid", color="black",
                linestyle="--", label="b_eff / max flows (evbench conflicts)")
    cfg = doc.get("config", {})
    ax.set_xlabel("shift s (node i sends to node i + s; shift 0, each node to itself, is not on the network)")
    ax.set_ylabel("per-node bandwidth, Gb/s")
    ax.set_title(f"shift scan: {cfg.get('nodes', '?')} nodes, transport {cfg.get('transport', '?')}, "
                 f"message {cfg.get('fragment_size', '?')} B")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend()
    out = a.out or os.path.dirname(os.path.abspath(a.scan))
    os.makedirs(out, exist_ok=True)
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{a.name}.{ext}"), dpi=110, bbox_inches="tight")
    print(f"wrote {os.path.join(out, a.name)}.png and .svg")


if __name__ == "__main__":
    main()
