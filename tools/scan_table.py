"""Reading evbench results (JSON lines from launch/scan.py, or evbench's --json documents): one
flat row per run, shared by aggregate.py and plot_scan.py."""
import json
import sys

COLUMNS = ["transport", "protocol", "scheduling", "nodes", "ppn", "credits", "parallel", "fragment_size", "exit_code",
           "events_built", "errors", "start_up", "idle_builders", "steady", "steady_gbps", "half_width_gbps", "per_node_gbps", "min_node_gbps", "max_node_gbps",
           "built_gbps", "event_rate_hz", "latency_avg_us", "latency_p99_us", "window_s", "duration_s", "warmup_s", "seed",
           "commit", "point"]


def idle_builders_of(doc):
    """BUs that built no event in the window (results.system.idle_builders); None when the
    result does not say (an evbench before it did, a baseline)."""
    return doc.get("results", {}).get("system", {}).get("idle_builders")


def start_up_of(doc):
    """Whether a run's window holds its start-up: a BU built no event in it or its first one, as
    evbench's own row says (src/report/result_row.cpp); under --until steady, whether the rate
    was not known by the cap."""
    results = doc.get("results") or {}
    if results.get("steady"):
        return not results["steady"].get("reached")
    network = results.get("network") or {}
    first_events = results.get("system", {}).get("first_events_in_window") or 0
    return bool(network.get("start_up_in_window")) or (idle_builders_of(doc) or 0) > 0 or first_events > 0


def documents_of(path):
    """The runs of one file: a --json document (the whole file), or one per JSON line. A line that
    is not JSON is named on standard error and skipped."""
    with open(path) as f:
        text = f.read()
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        yield whole
        return
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            yield json.loads(line)
        except ValueError:
            print(f"{path}:{number}: not a JSON line (skipped)", file=sys.stderr)


def rows_of(paths):
    """Yields (row dict, per-node Gb/s list) for every run in the files."""
    for path in paths:
        for doc in documents_of(path):
            row, per_node = flatten(doc)
            if row is not None:
                yield row, per_node


def flatten(doc):
    config, results = doc.get("config"), doc.get("results")
    if config is None or results is None:
        return None, []
    system = results.get("system", {})
    network = results.get("network")
    nodes = results.get("nodes", [])
    if network and "fabric_rx_gbps" in network:   # simulated: the per-packet fabric figure
        per_node = network["fabric_rx_gbps"]["per_node"]
    else:
        per_node = [n.get("in_gbps", 0.0) for n in nodes]
    avg = system.get("per_node_in_gbps", sum(per_node) / len(per_node) if per_node else 0.0)
    if network and "fabric_rx_gbps" in network:
        avg = network["fabric_rx_gbps"]["avg"]
    latency = system.get("latency_us") or {}
    idle = idle_builders_of(doc)
    steady = results.get("steady")   # --until steady: its verdict, and its rate when it has batches
    steady_rate = bool(steady) and steady.get("batches", 0) > 0

    def rounded(v):
        return round(v, 4) if isinstance(v, (int, float)) else ""
    row = {
        "transport": config.get("transport"),
        "protocol": results.get("baseline") or config.get("protocol"),
        "scheduling": config.get("scheduling"),
        "nodes": config.get("nodes"),
        "ppn": config.get("ppn"),
        "credits": config.get("credits"),
        "parallel": config.get("parallel"),
        "fragment_size": config.get("fragment_size"),
        "exit_code": doc.get("exit_code", results.get("exit_code", 0)),
        "events_built": system.get("events_built", results.get("iterations")),
        "errors": system.get("errors", 0),
        "start_up": "yes" if start_up_of(doc) else "no",
        "idle_builders": "" if idle is None else idle,
        "steady": ("yes" if steady.get("reached") else "no") if steady else "",
        "steady_gbps": rounded(steady.get("per_node_built_gbps")) if steady_rate else "",
        "half_width_gbps": rounded(steady.get("half_width_gbps")) if steady_rate else "",
        "per_node_gbps": round(avg, 4),
        "min_node_gbps": round(min(per_node), 4) if per_node else "",
        "max_node_gbps": round(max(per_node), 4) if per_node else "",
        "built_gbps": rounded(system.get("per_node_built_gbps")),
        "event_rate_hz": rounded(system.get("event_rate_hz")),
        "latency_avg_us": rounded(latency.get("avg")),
        "latency_p99_us": rounded(latency.get("p99")),
        "window_s": results.get("window_s", results.get("seconds", "")),
        "duration_s": config.get("duration_s", ""),
        "warmup_s": config.get("warmup_s", 0),
        "seed": config.get("seed", ""),
        "commit": doc.get("evbench", {}).get("commit", ""),
        "point": " ".join(doc.get("point", [])),
    }
    return row, per_node
