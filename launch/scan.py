#!/usr/bin/env python3
"""Runs evbench over a parameter grid and collects one JSON line per point.

  launch/scan.py --out scan.jsonl --param credits=1,16 --param parallel=1,8 -- --transport sim --duration 5ms

Points are the cartesian product of the --param lists (each becomes --NAME VALUE), or one line
of extra arguments each from --points FILE; the arguments after -- are common to all. Which
points this process runs:
  - SLURM_ARRAY_TASK_ID set: that one point (sbatch --array=0-$((N-1)), N from --count);
  - under mpirun or srun (OMPI_COMM_WORLD_RANK, PMIX_RANK or SLURM_PROCID with the matching
    size): every point i with i % size == rank;
  - otherwise all of them, --jobs at a time (default: every core).
Points already in the output file with exit code 0 are skipped, so an interrupted scan resumes
where it stopped and failed points run again.
Each line holds "point" (the point's arguments), "exit_code", "start_up_in_window" (true: a BU
built no event in the point's window, or its first: its rates are start-up figures, not the
steady state; under --until steady, the rate was not known by the cap) and evbench's --json
document. With --until steady among the common arguments every point runs until its rate is known
(its line says the rate and half-width, results.steady has them).
"""
import argparse
import fcntl
import itertools
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))   # tools/ beside launch/, in the source tree and installed
from scan_table import start_up_of  # noqa: E402


def default_binary():
    """As launch/find_evbench.sh: $EVBENCH, the source tree's build/evbench, the installed one
    (PREFIX/bin for PREFIX/share/evbench/launch), then evbench on PATH."""
    if os.environ.get("EVBENCH"):
        return os.environ["EVBENCH"]
    for candidate in (os.path.join(HERE, "..", "build", "evbench"), os.path.join(HERE, "..", "..", "..", "bin", "evbench")):
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("evbench") or os.path.join(HERE, "..", "build", "evbench")


def check_output(path):
    """The output file can be appended to, before any point runs (a missing folder, a directory,
    a read-only file would otherwise fail after the first point's run)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        fail(f"--out {path}: is a directory")
    if not os.path.isdir(folder):
        fail(f"--out {path}: the folder {folder} does not exist")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        fail(f"--out {path}: not writable")
    if not os.path.exists(path) and not os.access(folder, os.W_OK):
        fail(f"--out {path}: the folder {folder} is not writable")


def fail(message):
    print(f"scan.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def points_of(args):
    if args.points:
        try:
            with open(args.points) as f:
                return [shlex.split(line) for line in f if line.strip() and not line.startswith("#")]
        except OSError as e:
            fail(f"cannot read --points file: {e}")
    names, values = [], []
    for p in args.param:
        name, sep, vals = p.partition("=")
        if not sep or not name or not vals:
            fail(f"--param '{p}' is not NAME=V1,V2,...")
        names.append(name)
        values.append(vals.split(","))
    return [[tok for n, v in zip(names, combo) for tok in (f"--{n}", v)] for combo in itertools.product(*values)]


def mine(points):
    """The indices this process runs."""
    if os.environ.get("SLURM_ARRAY_TASK_ID") is not None:
        i = int(os.environ["SLURM_ARRAY_TASK_ID"])
        if i >= len(points):
            fail(f"array task {i} but the scan has {len(points)} points")
        return [i]
    for rank_var, size_var in (("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("PMIX_RANK", "PMIX_SIZE"),
                               ("SLURM_PROCID", "SLURM_NTASKS")):
        if os.environ.get(rank_var) is not None and os.environ.get(size_var) is not None:
            rank, size = int(os.environ[rank_var]), int(os.environ[size_var])
            return [i for i in range(len(points)) if i % size == rank]
    return list(range(len(points)))


def done_points(path):
    done = set()
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    record = json.loads(line)
                    if record["exit_code"] == 0:   # failed points run again
                        done.add(json.dumps(record["point"]))
                except (ValueError, KeyError):
                    pass   # a line cut by an interrupted write: that point runs again
    return done


def append(path, record):
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        # After an interrupted write the file may end mid-line: start a fresh one.
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:
            f.seek(f.tell() - 1)
            if f.read(1) != "\n":
                f.write("\n")
        f.write(json.dumps(record) + "\n")
        f.flush()
        fcntl.flock(f, fcntl.LOCK_UN)


# Each point is a run of its own: it must not see this process's place in an mpirun or srun job.
LAUNCHER_PREFIXES = ("OMPI_", "PMIX_", "PMI_", "EVBENCH_RANK", "EVBENCH_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_")


def point_env():
    return {k: v for k, v in os.environ.items() if not k.startswith(LAUNCHER_PREFIXES)}


def run_point(binary, common, point, out, timeout):
    with tempfile.TemporaryDirectory(prefix="evbench-scan-") as tmp:
        result_file = os.path.join(tmp, "result.json")
        cmd = [binary] + common + point + ["--quiet", "--json", result_file]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=point_env())
            code, err = proc.returncode, proc.stderr.strip()
        except subprocess.TimeoutExpired:
            code, err = -1, f"timed out after {timeout} s"
        record = {"point": point, "exit_code": code}
        if os.path.exists(result_file):
            with open(result_file) as f:
                record.update(json.load(f))
        record["start_up_in_window"] = start_up_of(record)
        if code != 0:
            record["error"] = err.splitlines()[-1] if err else "failed"
        append(out, record)
        return code, record


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="JSON lines file (appended; existing points are skipped)")
    parser.add_argument("--param", action="append", default=[], help="NAME=V1,V2,...: an evbench flag and its values")
    parser.add_argument("--points", help="file with one point's extra arguments per line (instead of --param)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="points run at once locally")
    parser.add_argument("--binary", default=default_binary(), help="evbench binary")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per point")
    parser.add_argument("--count", action="store_true", help="print the number of points and exit")
    parser.add_argument("common", nargs=argparse.REMAINDER, help="-- then arguments for every point")
    args = parser.parse_args()
    common = args.common[1:] if args.common[:1] == ["--"] else args.common
    if args.param and args.points:
        fail("give --param or --points, not both")
    points = points_of(args)
    if not points:
        fail("no points: give --param NAME=V1,V2 or --points FILE")
    if args.count:
        print(len(points))
        return 0
    if not os.access(args.binary, os.X_OK):
        fail(f"evbench binary '{args.binary}' not found (build first, or set --binary / $EVBENCH)")
    if args.jobs < 1:
        fail("--jobs must be at least 1")
    check_output(args.out)
    done = done_points(args.out)
    todo = [points[i] for i in mine(points) if json.dumps(points[i]) not in done]
    skipped = len(mine(points)) - len(todo)
    finished = [0]
    lock = threading.Lock()

    def run_and_say(point):
        code, record = run_point(args.binary, common, point, args.out, args.timeout)
        steady = (record.get("results") or {}).get("steady")
        with lock:
            finished[0] += 1
            said = "ok" if code == 0 else f"exit code {code}"
            if steady and steady.get("reached"):
                said += (f" (steady: {steady['per_node_built_gbps']:.2f} +- {steady['half_width_gbps']:.2f} Gb/s per node built, "
                         f"from {steady['began_s']:g} s)")
            elif steady:
                said += f" (not steady by the cap: {steady.get('why_not')})"
            elif record["start_up_in_window"]:
                said += " (start-up in its window: a BU built no event, or its first; lengthen --duration or --warmup, or --until steady)"
            print(f"scan.py: [{finished[0]}/{len(todo)}] {' '.join(point)}: {said}", flush=True)
        return code

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        codes = list(pool.map(run_and_say, todo))
    failed = sum(1 for c in codes if c != 0)
    print(f"scan.py: {len(todo)} points run, {skipped} already done, {failed} failed; results in {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
