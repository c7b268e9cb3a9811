#!/usr/bin/python3
"""Validates JSON documents against the published schemas (docs/schemas/*.schema.json)
with an independent validator, Python's jsonschema (Debian: python3-jsonschema).

    deploy/validate-json.py --check-schemas docs/schemas/*.schema.json
    deploy/validate-json.py SCHEMA FILE...      # FILE: one JSON document per line; - is stdin
    deploy/validate-json.py --field KEY SCHEMA FILE...
                                                # the value of KEY in each line's object
                                                # (lines where it is absent or null are skipped),
                                                # e.g. the worked examples' "notification"

An empty line is skipped. Exits 0 when every line is valid, 1 when one is not (each
invalid line is reported with its file, line number and the validator's message), 64 on
a usage error. Prints `valid N` on success, so a caller can check how many it saw.
"""
import json
import sys

import jsonschema
from jsonschema import Draft202012Validator


def check_schemas(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            print(f"{path}: $schema is not JSON Schema 2020-12", file=sys.stderr)
            return 1
        try:
            Draft202012Validator.check_schema(schema)
        except jsonschema.exceptions.SchemaError as error:
            print(f"{path}: not a valid 2020-12 schema: {error.message}", file=sys.stderr)
            return 1
    print(f"valid {len(paths)}")
    return 0


def validate_lines(schema_path, paths, field=None):
    with open(schema_path, encoding="utf-8") as f:
        validator = Draft202012Validator(json.load(f))
    valid = invalid = 0
    for path in paths:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
        with stream:
            for number, line in enumerate(stream, start=1):
                if not line.strip():
                    continue
                try:
                    document = json.loads(line)
                except json.JSONDecodeError as error:
                    print(f"{path}:{number}: not JSON ({error}): {line[:200]}", file=sys.stderr)
                    invalid += 1
                    continue
                if field is not None:
                    document = document.get(field) if isinstance(document, dict) else None
                    if document is None:
                        continue
                errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
                if errors:
                    invalid += 1
                    for error in errors[:5]:
                        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
                        print(f"{path}:{number}: {where}: {error.message}", file=sys.stderr)
                    print(f"{path}:{number}: the line: {line.strip()[:400]}", file=sys.stderr)
                else:
                    valid += 1
    if invalid:
        print(f"invalid {invalid} of {valid + invalid} against {schema_path}", file=sys.stderr)
        return 1
    print(f"valid {valid}")
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "--check-schemas":
        return check_schemas(argv[1:])
    if len(argv) >= 4 and argv[0] == "--field":
        return validate_lines(argv[2], argv[3:], field=argv[1])
    if len(argv) >= 2 and not argv[0].startswith("-"):
        return validate_lines(argv[0], argv[1:])
    print(__doc__.strip(), file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
