#!/usr/bin/env python3
"""Regenerates README.md's flag tables from evbench's option declarations.

Each table sits between `<!-- flags: GROUP -->` and `<!-- /flags -->`; `evbench [COMMAND]
--flags-markdown` prints every group of a command in that form. tests/test_readme_flags.cpp
fails when README and the declarations disagree; this script makes them agree again:

    tools/readme_flags.py [--binary build/evbench] [--readme README.md]
"""
import argparse
import re
import subprocess
import sys

COMMANDS = [[], ["conflicts"], ["fabric"], ["netsim"], ["info"]]
BLOCK = re.compile(r"<!-- flags: (\S+) -->\n.*?<!-- /flags -->\n", re.S)


def generated_blocks(binary):
    blocks = {}
    for command in COMMANDS:
        out = subprocess.run([binary, *command, "--flags-markdown"], check=True, capture_output=True, text=True).stdout
        for m in BLOCK.finditer(out):
            blocks.setdefault(m.group(1), m.group(0))
    return blocks


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="build/evbench")
    ap.add_argument("--readme", default="README.md")
    args = ap.parse_args()
    blocks = generated_blocks(args.binary)
    text = open(args.readme).read()
    missing = [g for g in re.findall(r"<!-- flags: (\S+) -->", text) if g not in blocks]
    if missing:
        sys.exit(f"README has flag tables no command declares: {', '.join(missing)}")
    text = BLOCK.sub(lambda m: blocks[m.group(1)], text)
    open(args.readme, "w").write(text)
    absent = [g for g in blocks if f"<!-- flags: {g} -->" not in text]
    if absent:
        print(f"note: groups without a README table yet: {', '.join(absent)}", file=sys.stderr)


if __name__ == "__main__":
    main()
