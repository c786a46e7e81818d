#!/usr/bin/env python3
"""Validate Sentry events against Sentry's published event schema.

usage: validate_sentry_event.py SCHEMA EVENT.json...   (exit 0: every event is valid)

The schema is Relay's (../shared/sentry/event.schema.json); python3-jsonschema
picks the validator its "$schema" names.
"""
import json
import sys

import jsonschema


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        schema = json.load(f)
    validator = jsonschema.validators.validator_for(schema)(schema)
    failed = 0
    for path in argv[1:]:
        with open(path) as f:
            event = json.load(f)
        errors = sorted(validator.iter_errors(event), key=lambda e: list(e.path))
        failed += bool(errors)
        print('%s %s' % ('FAIL' if errors else 'ok  ', path))
        for e in errors[:20]:
            print('    at %s: %s' % ('/'.join(str(p) for p in e.path) or '(top)', e.message[:300]))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
