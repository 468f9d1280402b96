#!/usr/bin/env python3
"""Writes evbench's man page and bash completion from its option declarations, as the docs' flag
tables are (tools/readme_flags.py): every command's `--flags-markdown`.

    tools/man_and_completion.py --binary build/evbench --out DIR

writes DIR/man/man1/evbench.1 and DIR/bash-completion/completions/evbench (the layout of
PREFIX/share, where `cmake --install` puts them). The build runs it after linking evbench.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readme_flags import BLOCK, COMMANDS  # noqa: E402

ROW = re.compile(r"^\| `(--[a-z0-9-]+)(?: ([^`]*))?` \| (.*?) \| (.*) \|$")
COMMAND_SUMMARY = {
    "": "run the event builder (or a micro-benchmark) over a transport",
    "info": "what this machine offers evbench: NUMA nodes, NICs, RDMA devices, libfabric and UCX",
    "fabric": "read, generate or write a fabric: ibnetdiscover dumps, generated fat trees, hostfiles",
    "conflicts": "which barrel-shift phases of a fabric and its routing share a link",
    "netsim": "the flit-level InfiniBand simulator alone, with synthetic traffic",
}
FILE_VALUES = {"FILE", "FILE,...", "PATH"}


def flags_of(binary, command):
    """[(group, [(flag, value name, default, help)])] of one command, in declaration order."""
    out = subprocess.run([binary, *command, "--flags-markdown"], check=True, capture_output=True, text=True).stdout
    groups = []
    for block in BLOCK.finditer(out):
        rows = []
        for line in block.group(0).splitlines():
            m = ROW.match(line)
            if m:
                unescape = lambda t: (t or "").replace("\\|", "|")  # noqa: E731
                rows.append((m.group(1), unescape(m.group(2)), unescape(m.group(3)).strip("`"), unescape(m.group(4))))
        groups.append((block.group(1), rows))
    return groups


def drivers_of(binary):
    out = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout
    m = re.search(r"drivers?:?\s+([a-z0-9 ,]+)", out)
    return sorted(set(re.findall(r"[a-z0-9]+", m.group(1)))) if m else []


def troff(text):
    """Text for a man page: backslashes and leading dots or quotes escaped, code marks dropped."""
    text = text.replace("\\", "\\e").replace("`", "")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def man_page(binary, version):
    lines = [
        f'.TH EVBENCH 1 "" "evbench {troff(version)}" "User Commands"',
        ".SH NAME",
        "evbench \\- event-building network benchmark for data-acquisition systems",
        ".SH SYNOPSIS",
        ".B evbench",
        "[\\fIOPTIONS\\fR]",
        ".br",
        ".B evbench",
        "\\fBinfo\\fR|\\fBfabric\\fR|\\fBconflicts\\fR|\\fBnetsim\\fR [\\fIOPTIONS\\fR]",
        ".br",
        ".B evbench help",
        "[\\fICOMMAND\\fR]",
        ".SH DESCRIPTION",
        "Readout units (RU) hold event fragments, builder units (BU) gather every fragment of an event, and an event "
        "manager (EM) assigns events to BUs under credits, over a transport (local, tcp, verbs, ofi, ucx, psm2, mpi) or "
        "the built-in InfiniBand simulator (sim). Options may also come from a TOML file or a result of \\-\\-json "
        "(\\-\\-config FILE).",
    ]
    for command in COMMANDS:
        name = command[0] if command else ""
        lines.append(f".SH {'OPTIONS' if not name else troff(name.upper()) + ' OPTIONS'}")
        lines.append(troff(("evbench " + name + ": " if name else "evbench: ") + COMMAND_SUMMARY.get(name, "")))
        for group, rows in flags_of(binary, command):
            lines.append(f".SS {troff(group)}")
            for flag, value, default, text in rows:
                lines.append(".TP")
                lines.append(f"\\fB{troff(flag).replace('-', chr(92) + '-')}\\fR" + (f" \\fI{troff(value)}\\fR" if value else ""))
                lines.append(troff(text) + (f" (default: {troff(default)})" if default else ""))
    lines += [
        ".SH EXIT STATUS",
        "0 the run succeeded; 1 it failed or saw data errors; 2 bad input; 3 lost nodes were survived but data was lost; "
        "130 or 143 interrupted by SIGINT or SIGTERM (the report covers the run until then).",
        ".SH FILES",
        "PREFIX/share/evbench/configs (the configurations \\-\\-config finds by name), PREFIX/share/evbench/launch "
        "(mpirun, srun, sbatch and scan launchers), PREFIX/share/evbench/tools (CSV and plots of scans), "
        "PREFIX/share/evbench/schema (the JSON Schema of \\-\\-json results).",
        ".SH SEE ALSO",
        "The documentation in the source tree: README.md and docs/ (usage, output, cluster, scans, simulator).",
    ]
    return "\n".join(lines) + "\n"


def completion(binary):
    """A bash completion function: the commands, each command's flags, and the values a flag takes."""
    cases, values = [], {}
    for command in COMMANDS:
        name = command[0] if command else ""
        flags = []
        for _, rows in flags_of(binary, command):
            for flag, value, _, _ in rows:
                flags.append(flag)
                if value and "|" in value and re.fullmatch(r"[a-z0-9|-]+", value):
                    values[flag] = " ".join(value.split("|"))
                elif value in FILE_VALUES or flag in ("--config", "--json"):
                    values.setdefault(flag, "@files")
        flags += ["--help", "--config"] + (["--version"] if not name else [])
        cases.append(f"    {name or 'run'}) flags=\"{' '.join(sorted(set(flags)))}\" ;;")
    drivers = drivers_of(binary)
    if drivers:
        values["--transport"] = " ".join(drivers)
    value_cases = []
    for flag, words in sorted(values.items()):
        if words == "@files":
            value_cases.append(f"    {flag}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;")
        else:
            value_cases.append(f"    {flag}) COMPREPLY=($(compgen -W \"{words}\" -- \"$cur\")); return ;;")
    return f"""# bash completion for evbench (generated from its option declarations by tools/man_and_completion.py)
_evbench() {{
  local cur prev command flags
  cur=${{COMP_WORDS[COMP_CWORD]}}
  prev=${{COMP_WORDS[COMP_CWORD-1]}}
  command=run
  case "${{COMP_WORDS[1]}}" in info|fabric|conflicts|netsim) command=${{COMP_WORDS[1]}} ;; esac
  case "$prev" in
{chr(10).join(value_cases)}
  esac
  if [ "$COMP_CWORD" -eq 1 ] && [[ "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "info fabric conflicts netsim help" -- "$cur"))
    return
  fi
  case "$command" in
{chr(10).join(cases)}
  esac
  COMPREPLY=($(compgen -W "$flags" -- "$cur"))
}}
complete -F _evbench evbench
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    first = subprocess.run([args.binary, "--version"], check=True, capture_output=True, text=True).stdout.split("\n")[0].split()
    version = first[1] if len(first) > 1 else "?"   # "evbench 0.1 (commit ...)"
    man_dir = os.path.join(args.out, "man", "man1")
    completion_dir = os.path.join(args.out, "bash-completion", "completions")
    os.makedirs(man_dir, exist_ok=True)
    os.makedirs(completion_dir, exist_ok=True)
    with open(os.path.join(man_dir, "evbench.1"), "w") as f:
        f.write(man_page(args.binary, version))
    with open(os.path.join(completion_dir, "evbench"), "w") as f:
        f.write(completion(args.binary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
