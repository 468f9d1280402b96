#!/usr/bin/env python3
"""Every C++ file of the tree follows .clang-format (ctest: Style.EveryFileFollowsTheClangFormat).

    tests/check_format.py SOURCE_DIR

Names each place clang-format would change (file:line); exit 1 if any."""
import subprocess
import sys


def main(root):
    files = subprocess.run(["git", "-C", root, "ls-files", "*.cpp", "*.hpp"], check=True, capture_output=True, text=True).stdout.split()
    if not files:
        print("check_format.py: no C++ files found (not a git checkout?)")
        return 2
    r = subprocess.run(["clang-format", "--style=file", "--dry-run", "-Werror", *files], cwd=root, capture_output=True, text=True)
    places = [line for line in r.stderr.splitlines() if ": error: code should be clang-formatted" in line]
    for p in places:
        print(p.split(": error:")[0] + ": not as .clang-format lays it out (clang-format -i FILE)")
    if r.returncode != 0 and not places:
        print(r.stderr.strip())
    return 1 if r.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
