#!/usr/bin/env python3
"""tests/doc_commands.py must fail a page whose run block fails, whose flags are not declared,
or whose block is unmarked, and pass one that is right (ctest: DocCommands.TheRunnerCatchesWhatIsWrong).
    doc_commands_selftest.py BUILD_DIR SOURCE_DIR"""
import os
import subprocess
import sys
import tempfile

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "doc_commands.py")
WRONG = """# wrong
<!-- doc-test: run -->
```sh
evbench --duration 100ms
false
```
<!-- doc-test: parse -->
```sh
evbench --no-such-flag 3
evbench netsim --credits 2
```
```sh
echo unmarked
```
<!-- doc-test: run -->
```sh
evbench --transport sim --nodes 4 --duration 2us
```
"""
RIGHT = """# right
<!-- doc-test: run -->
```sh
evbench --duration 100ms --json run.json
test -s run.json
```
<!-- doc-test: parse -->
```sh
mpirun -np 64 evbench --transport mpi --credits 4   # flags checked, not run
```
<!-- doc-test: skip: shown, not run -->
```sh
false
```
"""


def run(build, source, text):
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.md")
        with open(page, "w") as f:
            f.write(text)
        return subprocess.run([sys.executable, RUNNER, build, source, page], capture_output=True, text=True)


def main():
    build, source = sys.argv[1:3]
    problems = []
    wrong = run(build, source, WRONG)
    if wrong.returncode != 1:
        problems.append(f"a wrong page exited {wrong.returncode}, not 1")
    for expected in ("doc-test: this command failed: false", "--no-such-flag is not a flag of evbench",
                     "--credits is not a flag of evbench netsim", "a ```sh block without a <!-- doc-test",
                     "a documented run builds no event"):
        if expected not in wrong.stderr:
            problems.append(f"a wrong page's report lacks '{expected}'")
    right = run(build, source, RIGHT)
    if right.returncode != 0:
        problems.append(f"a right page exited {right.returncode}: {right.stderr[-2000:]}")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(wrong.stdout, wrong.stderr, sep="\n", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
