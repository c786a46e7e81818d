#!/usr/bin/env python3
"""check_no_hooks.py PROGRAM... — programs that run the capture engine over
another process (a core's reader: the CLI, postmortem-core-handler) link
the engine and nothing of what pm_install brings to the process it runs
in: the pthread_create hook that gives new threads alternate stacks, the
_exit that ends a handler's call, pm_install itself.  The engine's rooms
are archives, and an archive member that defines a libc function wins
over libc for every reference the program makes (nm reads the symbols)."""
import subprocess
import sys

HOOKS = {'pthread_create', '_exit', '__cxa_throw', 'sigaction', 'signal', 'pm_install'}
failed = False
for program in sys.argv[1:]:
    out = subprocess.run(['nm', '--defined-only', program], check=True, capture_output=True, text=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3 and l.split()[1] in 'TtWw'}
    if not any(s.startswith('as_') for s in defined):
        print(f'{program}: no engine symbol found (nm output changed?)')
        failed = True
    hooks = sorted(HOOKS & defined)
    if hooks:
        print(f'{program} defines {", ".join(hooks)}: it links pm_install\'s hooks')
        failed = True
    else:
        print(f'{program}: the engine ({sum(s.startswith("as_") for s in defined)} as_ symbols), none of the hooks')
sys.exit(1 if failed else 0)
