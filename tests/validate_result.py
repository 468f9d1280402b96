#!/usr/bin/python3
"""Checks evbench --json results against the shipped schema (Debian's python3-jsonschema, hence
/usr/bin/python3).

    tests/validate_result.py SCHEMA RESULT.json [...]

Exit 0 when every result validates; else one line per problem (file, where in it, what) and 1."""
import json
import sys

import jsonschema


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    problems = 0
    for path in argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        for error in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in error.absolute_path) or "(the document)"
            print(f"{path}: {where}: {error.message[:300]}")
            problems += 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
