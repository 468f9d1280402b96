#!/usr/bin/python3
"""Plots of an evbench scan (matplotlib from Debian: python3-matplotlib, hence /usr/bin/python3).

  tools/plot_scan.py scan.jsonl [...] --out DIR
Writes, as PNG and SVG (text kept as text):
  heatmap_nodes<N>[_<dim><value>...].*  Gb/s per node over credits x parallel, or over the two
                       scanned dimensions that vary (credits first: credits x fragment size): one
                       map per value of every other scanned dimension (nodes, fragment size, ...);
  vs_nodes.*           Gb/s per node against nodes, one line per setting of the other dimensions
                       (only when nodes take more than one value);
  per_node.*           min / avg / max over nodes for every run, as bars labelled by every
                       scanned dimension.
Every plot says which rate it shows (Gb/s per node received over the network; on the simulator
the fabric's per-packet figure), over which transports and for how long. A run whose window
holds its start-up (a BU built no event in it, or, simulated, it opened before the first events
could be built) is no steady figure: its cell says "start-up" and is hatched, its point is
hollow, its bar hatched. Two runs with the same settings are refused (say which to plot) rather
than drawn over each other. Failed runs (exit code != 0) are left out and counted on stdout."""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"   # labels stay text: searchable, and checked by the tests
import matplotlib.patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scan_table import rows_of  # noqa: E402


def save(fig, out, name):
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=110, bbox_inches="tight")
    plt.close(fig)
    return [f"{name}.png", f"{name}.svg"]


# Every setting a scan may vary, with its short label for bars and file names.
DIMENSIONS = [("nodes", "N"), ("credits", "c"), ("parallel", "p"), ("fragment_size", "f"), ("ppn", "ppn"),
              ("protocol", ""), ("scheduling", ""), ("transport", "")]
COLOUR_UNIT = "Gb/s per node"
START_UP_HATCH = "////"


def steady_of(r):
    """(rate, half-width) of a run under --until steady that reached its verdict's batches, else None."""
    return (r["steady_gbps"], r["half_width_gbps"]) if r.get("steady_gbps", "") != "" else None


def shown_rate(r):
    """What a plot shows of a run: the steady window's built rate under --until steady, else the
    average receive rate."""
    steady = steady_of(r)
    return steady[0] if steady else r["per_node_gbps"]


def what_is_shown(runs):
    """The line under every plot's title: which rate, over which transports, for how long."""
    transports = sorted({str(r["transport"]) for r, _ in runs})
    simulated = "sim" in transports
    rate = "received over the network" + (" (simulator: per packet on the host links)" if simulated else "")
    steady = sum(1 for r, _ in runs if steady_of(r))
    if steady == len(runs):
        rate = "built over each run's steady window (--until steady), +- 95 % half-width"
    elif steady:
        rate += f";\n{steady} runs under --until steady: built over the steady window, +- 95 % half-width"
    spans = sorted({(r["duration_s"], r["warmup_s"]) for r, _ in runs}, key=str)
    if len(spans) == 1:
        duration, warmup = spans[0]
        span = f"{duration:g} s" + (" simulated" if transports == ["sim"] else "") if isinstance(duration, (int, float)) else "?"
        if steady:
            span = "until steady or " + span
        if isinstance(warmup, (int, float)) and warmup > 0:
            span += f", counted from {warmup:g} s"
    else:
        span = "durations differ per run"
    start_ups = sum(1 for r, _ in runs if r["start_up"] == "yes")
    note = f"; {start_ups} start-up (hatched): not steady" if start_ups else ""
    return f"{COLOUR_UNIT} {rate};\ntransport {', '.join(transports)}; {span}{note}"


def series_style(i):
    """Line i's colour and line style: ten colours, then each again dashed, dotted, dash-dotted."""
    return {"color": plt.get_cmap("tab10")(i % 10), "linestyle": ["-", "--", ":", "-."][(i // 10) % 4]}


def size_text(v):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if isinstance(v, int) and v >= scale and v % scale == 0:
            return f"{v // scale}{unit}"
    return str(v)


def value_text(dim, v):
    return size_text(v) if dim == "fragment_size" else str(v)


def varied(runs):
    """The dimensions with more than one value among the runs."""
    return [d for d, _ in DIMENSIONS if len({r[d] for r, _ in runs}) > 1]


def label(r, dims):
    parts = []
    for d, short in DIMENSIONS:
        if d in dims:
            parts.append(f"{short}{value_text(d, r[d])}")
    return " ".join(parts) or f"N{r['nodes']}"


def duplicates(runs):
    """Pairs of runs with the same plotted settings (their scan points, or 'settings ...'): drawn,
    one would hide the other."""
    first, twice = {}, []
    for r, _ in runs:
        key = tuple(r[d] for d, _ in DIMENSIONS)
        if key in first:
            what = " ".join(f"{d}={value_text(d, v)}" for (d, _), v in zip(DIMENSIONS, key))
            twice.append((what, first[key] or "(no scan point)", r["point"] or "(no scan point)"))
        else:
            first[key] = r["point"]
    return twice


def heatmap_axes(runs):
    """(x, y): credits and parallel, or, where one of them does not vary, the next scanned
    dimension that does (nodes always makes its own maps)."""
    scanned = [d for d in varied(runs) if d != "nodes"]
    x = "credits" if "credits" in scanned or not scanned else scanned[0]
    rest = [d for d in scanned if d != x]
    y = "parallel" if "parallel" in rest or not rest else rest[0]
    return x, y


def heatmaps(runs, out):
    written = []
    x_dim, y_dim = heatmap_axes(runs)
    others = [d for d in varied(runs) if d not in ("nodes", x_dim, y_dim)]
    panels = sorted({(r["nodes"],) + tuple(r[d] for d in others) for r, _ in runs}, key=str)
    for panel in panels:
        sel = [r for r, _ in runs if (r["nodes"],) + tuple(r[d] for d in others) == panel]
        xs = sorted({r[x_dim] for r in sel})
        ys = sorted({r[y_dim] for r in sel})
        grid = [[float("nan")] * len(xs) for _ in ys]
        start_up = [[False] * len(xs) for _ in ys]
        half_width = [[None] * len(xs) for _ in ys]
        for r in sel:
            grid[ys.index(r[y_dim])][xs.index(r[x_dim])] = shown_rate(r)
            half_width[ys.index(r[y_dim])][xs.index(r[x_dim])] = (steady_of(r) or (None, None))[1]
            start_up[ys.index(r[y_dim])][xs.index(r[x_dim])] = r["start_up"] == "yes"
        fig, ax = plt.subplots(figsize=(1.6 + 0.9 * len(xs), 1.2 + 0.7 * len(ys)))
        im = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(xs)), [value_text(x_dim, v) for v in xs])
        ax.set_yticks(range(len(ys)), [value_text(y_dim, v) for v in ys])
        ax.set_xlabel(x_dim.replace("_", " "))
        ax.set_ylabel(y_dim.replace("_", " "))
        extra = ", ".join(f"{d.replace('_', ' ')} {value_text(d, v)}" for d, v in zip(others, panel[1:]))
        ax.set_title(f"{panel[0]} nodes" + (f", {extra}" if extra else "") + "\n" + what_is_shown([(r, []) for r in sel]), fontsize=8)
        for y, row in enumerate(grid):
            for x, v in enumerate(row):
                if v == v:
                    hw = f"\n+-{half_width[y][x]:.2f}" if half_width[y][x] is not None else ""
                    ax.text(x, y, f"{v:.1f}" + hw + ("\nstart-up" if start_up[y][x] else ""), ha="center", va="center", color="white",
                            fontsize=8)
                if start_up[y][x]:
                    ax.add_patch(matplotlib.patches.Rectangle((x - 0.5, y - 0.5), 1, 1, fill=False, hatch=START_UP_HATCH, edgecolor="white",
                                                              linewidth=0))
        fig.colorbar(im, ax=ax, label=COLOUR_UNIT)
        name = f"heatmap_nodes{panel[0]}" + "".join(f"_{d}{value_text(d, v)}" for d, v in zip(others, panel[1:]))
        written += save(fig, out, name)
    return written


def versus_nodes(runs, out):
    if "nodes" not in varied(runs):   # one x value: a line per setting would be a column of dots
        return []
    fig, ax = plt.subplots(figsize=(6, 4))
    others = [d for d in varied(runs) if d != "nodes"] or ["credits", "parallel"]
    for i, key in enumerate(sorted({tuple(r[d] for d in others) for r, _ in runs}, key=str)):
        pts = sorted((r["nodes"], shown_rate(r), r["start_up"] == "yes") for r, _ in runs if tuple(r[d] for d in others) == key)
        style = series_style(i)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=", ".join(f"{d.replace('_', ' ')} {value_text(d, v)}" for d, v in zip(others, key)),
                **style)
        for steady in (True, False):   # start-up points hollow
            sel = [p for p in pts if p[2] != steady]
            if sel:
                ax.plot([p[0] for p in sel], [p[1] for p in sel], linestyle="none", marker="o", color=style["color"],
                        markerfacecolor=style["color"] if steady else "none")
    ax.set_xlabel("nodes")
    ax.set_ylabel(COLOUR_UNIT)
    ax.set_title(what_is_shown(runs).replace("(hatched)", "(hollow)"), fontsize=8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, out, "vs_nodes")


def per_node_bars(runs, out):
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(runs)), 4))
    dims = varied(runs)
    labels, avgs, lows, highs = [], [], [], []
    for r, per_node in runs:
        labels.append(label(r, dims))
        steady = steady_of(r)
        avg = shown_rate(r)
        avgs.append(avg)
        lows.append(steady[1] if steady else avg - (min(per_node) if per_node else avg))
        highs.append(steady[1] if steady else (max(per_node) if per_node else avg) - avg)
    bars = ax.bar(range(len(runs)), avgs, yerr=[lows, highs], capsize=3, color="tab:blue")
    for bar, (r, _) in zip(bars, runs):
        if r["start_up"] == "yes":
            bar.set_hatch(START_UP_HATCH)
            bar.set_facecolor("none")
            bar.set_edgecolor("tab:blue")
    ax.set_xticks(range(len(runs)), labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel(f"{COLOUR_UNIT} (avg; min..max or +- half-width)", fontsize=8)
    ax.set_title(what_is_shown(runs), fontsize=8)
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
    twice = duplicates(runs)
    if twice:
        what, a, b = twice[0]
        print(f"plot_scan.py: error: {len(twice)} runs have the settings of another ({what}: '{a}' and '{b}'), and the plots have "
              "no axis for what tells them apart: plot them separately", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    written = heatmaps(runs, args.out) + versus_nodes(runs, args.out) + per_node_bars(runs, args.out)
    print(f"plot_scan.py: {len(runs)} runs plotted ({len(all_runs) - len(runs)} failed left out): {', '.join(written)} in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
