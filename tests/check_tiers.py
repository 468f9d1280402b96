#!/usr/bin/env python3
"""Every ctest test has exactly one tier label (unit, integration, system), no name is there
twice, and every test a gtest binary holds is a ctest test exactly once (a group filter of
tests/tiers.cmake that missed one would leave it out of every tier).
    check_tiers.py BUILD_DIR
A binary that is not built (the quick test command does not build the system tier's) is named
and its tests are not checked."""
import collections
import json
import subprocess
import sys

TIERS = {"unit", "integration", "system"}


def gtest_list(binary):
    """Full names of the tests in a gtest binary, as gtest_discover_tests names them."""
    out = subprocess.run([binary, "--gtest_list_tests"], capture_output=True, text=True, check=True).stdout
    names, suite = [], None
    for line in out.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        else:
            names.append(suite + line.split("#")[0].strip())
    return names


def labels_of(test):
    return next((p["value"] for p in test.get("properties", []) if p["name"] == "LABELS"), [])


def main(build):
    shown = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True, check=True)
    tests = json.loads(shown.stdout)["tests"]
    problems = []
    counts = collections.Counter(t["name"] for t in tests if not t["name"].endswith("_NOT_BUILT"))
    problems += [f"{name}: listed {n} times" for name, n in counts.items() if n > 1]
    by_binary = collections.defaultdict(set)
    not_built = set()
    for t in tests:
        if t["name"].endswith("_NOT_BUILT"):
            not_built.add(t["name"][: -len("_NOT_BUILT")])
            continue
        tiers = TIERS.intersection(labels_of(t))
        if len(tiers) != 1:
            problems.append(f"{t['name']}: tier labels {sorted(tiers)}, not one of {sorted(TIERS)}")
        command = t.get("command", [])
        exact = [a[len("--gtest_filter="):] for a in command if a.startswith("--gtest_filter=")]
        if exact and not any(c in exact[0] for c in "*?:"):
            by_binary[command[0]].add(exact[0])
    for binary, discovered in sorted(by_binary.items()):
        held = gtest_list(binary)
        missing = sorted(set(held) - discovered)
        problems += [f"{name} (in {binary}): no ctest test runs it" for name in missing]
        print(f"{binary}: {len(held)} tests, each a ctest test once")
    for name in sorted(not_built):
        print(f"{name}: not built, its tests not checked")
    for p in problems:
        print(p)
    sizes = collections.Counter(label for t in tests for label in TIERS.intersection(labels_of(t)))
    print("tiers: " + ", ".join(f"{tier} {sizes[tier]}" for tier in ("unit", "integration", "system")))
    return 1 if problems or not by_binary else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
