#!/usr/bin/env python3
"""The slowest tests of one or more ctest runs, from their JUnit files (ctest --output-junit).
    slowest_tests.py N RUN.xml...
Prints each run's test count and seconds, then the N slowest tests with their run."""
import pathlib
import sys
import xml.etree.ElementTree as ET


def main(n, files):
    rows = []
    for f in files:
        path = pathlib.Path(f)
        if not path.exists():
            print(f"{path.stem}: no results (the run did not finish)")
            continue
        cases = ET.parse(path).getroot().iter("testcase")
        times = [(float(c.get("time", 0)), c.get("name"), path.stem) for c in cases]
        print(f"{path.stem}: {len(times)} tests, {sum(t for t, _, _ in times):.0f} s of test time")
        rows += times
    print(f"== the {n} slowest tests")
    for seconds, name, run in sorted(rows, reverse=True)[:n]:
        print(f"{seconds:8.1f} s  {name}  ({run})")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
