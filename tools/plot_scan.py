#!/usr/bin/python3
"""Plots of an evbench scan (matplotlib from Debian: python3-matplotlib, hence /usr/bin/python3).

  tools/plot_scan.py scan.jsonl [...] --out DIR
Writes, as PNG and SVG:
  heatmap_nodes<N>.*   per-node throughput over credits x parallel, one map per node count;
  vs_nodes.*           per-node throughput against nodes, one line per (credits, parallel);
  per_node.*           min / avg / max over nodes for every run, as bars.
Failed runs (exit code != 0) are left out and counted on stdout."""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scan_table import rows_of  # noqa: E402


def save(fig, out, name):
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=110, bbox_inches="tight")
    plt.close(fig)
    return [f"{name}.png", f"{name}.svg"]


def heatmaps(runs, out):
    written = []
    for nodes in sorted({r["nodes"] for r, _ in runs}):
        sel = [r for r, _ in runs if r["nodes"] == nodes]
        credits = sorted({r["credits"] for r in sel})
        parallel = sorted({r["parallel"] for r in sel})
        grid = [[float("nan")] * len(credits) for _ in parallel]
        for r in sel:
            grid[parallel.index(r["parallel"])][credits.index(r["credits"])] = r["per_node_gbps"]
        fig, ax = plt.subplots(figsize=(1.2 + 0.9 * len(credits), 1.0 + 0.7 * len(parallel)))
        im = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(credits)), [str(c) for c in credits])
        ax.set_yticks(range(len(parallel)), [str(p) for p in parallel])
        ax.set_xlabel("credits")
        ax.set_ylabel("parallel")
        ax.set_title(f"Gb/s per node, {nodes} nodes")
        for y, row in enumerate(grid):
            for x, v in enumerate(row):
                if v == v:
                    ax.text(x, y, f"{v:.1f}", ha="center", va="center", color="white", fontsize=8)
        fig.colorbar(im, ax=ax)
        written += save(fig, out, f"heatmap_nodes{nodes}")
    return written


def versus_nodes(runs, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    for key in sorted({(r["credits"], r["parallel"]) for r, _ in runs}):
        pts = sorted((r["nodes"], r["per_node_gbps"]) for r, _ in runs if (r["credits"], r["parallel"]) == key)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{key[0]} credits, {key[1]} parallel")
    ax.set_xlabel("nodes")
    ax.set_ylabel("Gb/s per node")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, out, "vs_nodes")


def per_node_bars(runs, out):
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(runs)), 4))
    labels, avgs, lows, highs = [], [], [], []
    for r, per_node in runs:
        labels.append(f"N{r['nodes']} c{r['credits']} p{r['parallel']}")
        avg = r["per_node_gbps"]
        avgs.append(avg)
        lows.append(avg - (min(per_node) if per_node else avg))
        highs.append((max(per_node) if per_node else avg) - avg)
    ax.bar(range(len(runs)), avgs, yerr=[lows, highs], capsize=3, color="tab:blue")
    ax.set_xticks(range(len(runs)), labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("Gb/s per node (bar: avg, whiskers: min..max)")
    return save(fig, out, "per_node")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="scan JSON lines or --json documents")
    parser.add_argument("--out", required=True, help="directory for the plots")
    args = parser.parse_args()
    for p in args.files:
        if not os.path.exists(p):
            print(f"plot_scan.py: error: no such file: {p}", file=sys.stderr)
            return 2
    all_runs = list(rows_of(args.files))
    runs = [(r, n) for r, n in all_runs if r["exit_code"] == 0]
    if not runs:
        print("plot_scan.py: error: no successful runs to plot", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    written = heatmaps(runs, args.out) + versus_nodes(runs, args.out) + per_node_bars(runs, args.out)
    print(f"plot_scan.py: {len(runs)} runs plotted ({len(all_runs) - len(runs)} failed left out): {', '.join(written)} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
