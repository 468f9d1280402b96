#!/usr/bin/env python3
"""Every reference between the project's pages points somewhere (ctest: DocLinks.EveryReferenceResolves).

    tests/doc_links.py SOURCE_DIR          check the tree
    tests/doc_links.py --selftest          check that the checks catch what they are for

Two kinds of reference are checked:
- a relative Markdown link in README.md or docs/*.md, [text](path) or [text](path#anchor): the path
  resolves from the page's own folder to a file of the tree, and an anchor names a heading of the
  target (GitHub's slugs);
- a pointer to a section from a comment of configs/, launch/ or bench/, written
  (README: "Section") or (docs/page.md: "Section"): the page exists and holds the section's words
  as a heading or as a paragraph's bold lead-in (**Section.**).
Links to other sites (http:, https:, mailto:) are not followed: the tests run without the internet.
"""
import glob
import os
import re
import sys
import tempfile

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
POINTER = re.compile(r"\((README|docs/[a-z0-9_-]+\.md): \"([^\"]+)\"\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.M)
BOLD_LEAD = re.compile(r"^\*\*([^*]+?)\.?\*\*", re.M)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def without_code(text):
    """The page without its fenced blocks and inline code: a link inside them is an example."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def sections(path):
    text = open(path).read()
    found = {h.strip("` ").rstrip(":") for h in HEADING.findall(text)} | set(BOLD_LEAD.findall(text))
    return found | {re.sub(r"\s*\([^)]*\)$", "", s) for s in found}   # "Ready configurations (`configs/`)" is "Ready configurations"


def check_page(root, page):
    problems = []
    text = without_code(open(page).read())
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        where = os.path.relpath(page, root)
        resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(resolved) or not os.path.realpath(resolved).startswith(os.path.realpath(root)):
            problems.append(f"{where}: link ({target}) points to {os.path.relpath(resolved, root)}, which is not in the tree")
        elif anchor and resolved.endswith(".md") and anchor not in {slug(h) for h in HEADING.findall(open(resolved).read())}:
            problems.append(f"{where}: link ({target}): {os.path.relpath(resolved, root)} has no heading with the anchor #{anchor}")
    return problems


def check_pointers(root, path):
    problems = []
    for page, section in POINTER.findall(open(path, errors="replace").read()):
        target = os.path.join(root, "README.md" if page == "README" else page)
        where = os.path.relpath(path, root)
        if not os.path.exists(target):
            problems.append(f"{where}: points to {page}, which does not exist")
        elif section not in sections(target):
            problems.append(f"{where}: points to {page}: \"{section}\", which has no such section")
    return problems


def check_tree(root):
    problems = []
    for page in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
        problems += check_page(root, page)
    for folder in ("configs", "launch", "bench", "tools"):
        for path in sorted(glob.glob(os.path.join(root, folder, "**", "*"), recursive=True)):
            if os.path.isfile(path):
                problems += check_pointers(root, path)
    return problems


def selftest():
    """A tree with one of each defect, and one without: the checks find exactly the defects."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        os.makedirs(os.path.join(root, "configs"))
        open(os.path.join(root, "README.md"), "w").write("# Title\n\n## Where to go next\n\n[usage](docs/usage.md)\n")
        open(os.path.join(root, "docs", "usage.md"), "w").write(
            "# Usage\n\n**Ready configurations.** text\n\n[back](../README.md#where-to-go-next) [cluster](cluster.md)\n"
            "`[code](nowhere.md)` [web](https://example.org)\n")
        open(os.path.join(root, "docs", "cluster.md"), "w").write(
            "# Cluster\n\n[security](docs/security.md) [usage](usage.md#no-such-heading)\n")
        open(os.path.join(root, "configs", "a.toml"), "w").write(
            '# (docs/usage.md: "Ready configurations") (README: "Ready configurations") (docs/gone.md: "X")\n')
        found = check_tree(root)
        expected = [
            "docs/cluster.md: link (docs/security.md) points to docs/docs/security.md, which is not in the tree",
            "docs/cluster.md: link (usage.md#no-such-heading): docs/usage.md has no heading with the anchor #no-such-heading",
            'configs/a.toml: points to README: "Ready configurations", which has no such section',
            "configs/a.toml: points to docs/gone.md, which does not exist",
        ]
        if found != expected:
            print("doc_links selftest: expected\n  " + "\n  ".join(expected) + "\nfound\n  " + "\n  ".join(found))
            return 1
    return 0


def main():
    if sys.argv[1:] == ["--selftest"]:
        return selftest()
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    problems = check_tree(os.path.abspath(sys.argv[1]))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
