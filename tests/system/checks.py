"""One line per check, ok or FAIL, and the failures counted (the system tests' output)."""
import sys

failures = []


def check(ok, what):
    print(('ok   ' if ok else 'FAIL ') + what)
    if not ok:
        failures.append(what)
    return ok


def finish():
    if failures:
        sys.exit('%d checks failed' % len(failures))
    print('every check passed')
