#!/usr/bin/env python3
"""Regenerates the flag tables of README.md and docs/*.md from evbench's option declarations.

Each table sits between `<!-- flags: GROUP -->` and `<!-- /flags -->`; `evbench [COMMAND]
--flags-markdown` prints every group of a command in that form. tests/test_readme_flags.cpp
fails when the pages and the declarations disagree; this script makes them agree again:

    tools/readme_flags.py [--binary build/evbench] [PAGE...]   (default: README.md docs/*.md)
"""
import argparse
import glob
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
    ap.add_argument("pages", nargs="*")
    args = ap.parse_args()
    pages = args.pages or ["README.md", *sorted(glob.glob("docs/*.md"))]
    blocks = generated_blocks(args.binary)
    seen = set()
    for page in pages:
        text = open(page).read()
        groups = re.findall(r"<!-- flags: (\S+) -->", text)
        missing = [g for g in groups if g not in blocks]
        if missing:
            sys.exit(f"{page} has flag tables no command declares: {', '.join(missing)}")
        seen.update(groups)
        new = BLOCK.sub(lambda m: blocks[m.group(1)], text)
        if new != text:
            open(page, "w").write(new)
    absent = [g for g in blocks if g not in seen]
    if absent:
        print(f"note: groups without a table in the docs yet: {', '.join(absent)}", file=sys.stderr)


if __name__ == "__main__":
    main()
