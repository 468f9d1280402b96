#!/usr/bin/env python3
"""Runs the shell blocks of one documentation page as a user would (ctest: DocCommands.<page>).

    tests/doc_commands.py BUILD_DIR SOURCE_DIR PAGE

Every ```sh block carries a mark on the line before its fence:

    <!-- doc-test: run -->             every line runs here, in order, and must exit 0
    <!-- doc-test: parse -->           cluster-only: each evbench command's flags must be flags of
                                       that command (evbench [COMMAND] --flags-markdown)
    <!-- doc-test: skip: REASON -->    not run (e.g. the quick start, which CI runs itself)

An unmarked block fails the test. Run blocks see what a user with an installed evbench sees: the
build installed into a temporary prefix (`cmake --install`), its bin/ first on PATH, a working
directory of their own holding launch/, tools/, configs/ and tests/ of the source tree and the
build as build/, and a HOME of their own. Every flag of a run block is checked as in a parse block too.
"""
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^```sh\s*$")
MARK = re.compile(r"^<!-- doc-test: (run|parse|skip: .+) -->$")
COMMANDS = ("info", "fabric", "conflicts", "netsim", "help")
OPERATORS = {";", "&&", "||", "|", ">", ">>", "<", "2>", "&", "2>&1"}
BLOCK_LIMIT_S = 600   # a block's commands together; the page's ctest timeout is above the sum


def blocks_of(page):
    """(line number of the fence, mark or None, the block's text) for every ```sh block."""
    lines = open(page).read().splitlines()
    found = []
    i = 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            mark = MARK.match(lines[i - 1]) if i > 0 else None
            end = i + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            found.append((i + 1, mark.group(1) if mark else None, "\n".join(lines[i + 1:end])))
            i = end
        i += 1
    return found


def declared_flags(evbench):
    """Each command's flags ('' is the run itself), from the declarations' markdown tables."""
    flags = {}
    for command in ("",) + COMMANDS[:-1]:
        argv = [evbench] + ([command] if command else []) + ["--flags-markdown"]
        out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
        flags[command] = set(re.findall(r"^\| `(--[a-z0-9-]+)", out, re.M)) | {"--help", "--version", "--config"}
    return flags


def commands_of(text):
    """The block's commands: continuation lines joined, comments and blank lines left out."""
    joined = text.replace("\\\n", " ")
    for line in joined.splitlines():
        try:
            tokens = shlex.split(line, comments=True)
        except ValueError as e:
            yield line, None, str(e)
            continue
        if tokens:
            yield line, tokens, None


def flag_errors(tokens, flags):
    """Flags given to evbench in one command line that its command does not declare."""
    errors = []

    def check(command, args):
        for a in args:
            if a in OPERATORS:
                break
            name = a.split("=", 1)[0]
            if name.startswith("--") and name != "--" and name not in flags[command]:
                where = f"evbench {command}" if command else "evbench"
                errors.append(f"{name} is not a flag of {where}")

    for i, t in enumerate(tokens):
        base = os.path.basename(t)
        rest = tokens[i + 1:]
        if base == "evbench":
            command = rest[0] if rest and rest[0] in COMMANDS else ""
            check("" if command == "help" else command, rest[1:] if command else rest)
        elif base in ("mpirun.sh", "srun.sh", "scan.py", "evbench.sbatch") and "--" in rest:
            check("", rest[rest.index("--") + 1:])
        if base == "scan.py":
            for j, a in enumerate(rest):
                if a == "--param" and j + 1 < len(rest):
                    name = "--" + rest[j + 1].split("=", 1)[0]
                    if name not in flags[""]:
                        errors.append(f"--param {rest[j + 1]}: {name} is not a flag of evbench")
    return errors


def run_block(text, work, env):
    """Runs the block as one bash script (so `export` and `cd` carry on), failing at the first
    command that fails; returns (ok, seconds, output)."""
    script = "set -euo pipefail\ntrap 'echo \"doc-test: this command failed: $BASH_COMMAND\" >&2' ERR\n" + text + "\n"
    began = time.monotonic()
    proc = subprocess.Popen(["bash", "-c", script], cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=BLOCK_LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return False, time.monotonic() - began, out + f"\ndoc-test: the block did not end within {BLOCK_LIMIT_S} s"
    return proc.returncode == 0, time.monotonic() - began, out


def end_left_behind(tmp):
    """Kills what a failed block left running (daemons leave its session: slurmd, munged): every
    process whose command line names the page's temporary directory."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if tmp.encode() in f.read():
                    os.kill(int(pid), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    build, source, page = sys.argv[1:]
    name = os.path.relpath(page, source)
    blocks = blocks_of(page)
    failures = []
    unmarked = [line for line, mark, _ in blocks if mark is None]
    for line in unmarked:
        failures.append(f"{name}:{line}: a ```sh block without a <!-- doc-test: run|parse|skip: why --> mark")
    if all(mark is None or mark.startswith("skip") for _, mark, _ in blocks):
        for line, mark, _ in blocks:
            print(f"{name}:{line}: {mark or 'unmarked'}")
        for f in failures:
            print(f, file=sys.stderr)
        sys.exit(1 if failures else 0)
    with tempfile.TemporaryDirectory(prefix="evbench-doc-") as tmp:
        prefix = os.path.join(tmp, "prefix")
        subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
        evbench = os.path.join(prefix, "bin", "evbench")
        flags = declared_flags(evbench)
        work, home = os.path.join(tmp, "work"), os.path.join(tmp, "home")
        os.makedirs(work)
        os.makedirs(home)
        for d in ("launch", "tools", "configs", "tests"):
            os.symlink(os.path.join(source, d), os.path.join(work, d))
        os.symlink(os.path.abspath(build), os.path.join(work, "build"))
        env = {k: v for k, v in os.environ.items() if k != "EVBENCH" and not k.startswith(("OMPI_", "PMIX_", "SLURM_"))}
        env.update(PATH=os.path.join(prefix, "bin") + os.pathsep + env.get("PATH", "/usr/bin:/bin"), HOME=home)
        for line, mark, text in blocks:
            if mark is None or mark.startswith("skip"):
                print(f"{name}:{line}: {mark or 'unmarked'}")
                continue
            errors = []
            for command, tokens, error in commands_of(text):
                if error:
                    errors.append(f"cannot read '{command.strip()}': {error}")
                else:
                    errors += [f"{e} ('{command.strip()[:120]}')" for e in flag_errors(tokens, flags)]
            if errors:
                failures += [f"{name}:{line}: {e}" for e in errors]
                continue
            if mark == "parse":
                print(f"{name}:{line}: parse: every flag declared")
                continue
            ok, seconds, out = run_block(text, work, env)
            print(f"{name}:{line}: run: {'ok' if ok else 'FAILED'} in {seconds:.1f} s")
            if not ok:
                failures.append(f"{name}:{line}: the block failed; its output ends:\n" + "\n".join(out.splitlines()[-25:]))
            elif "# no event was built in the" in out:   # an example a reader copies must show what it is for
                failures.append(f"{name}:{line}: a documented run builds no event:\n" +
                                "\n".join(l for l in out.splitlines() if l.startswith("# no event was built")))
        end_left_behind(tmp)
    for f in failures:
        print(f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
