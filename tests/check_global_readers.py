#!/usr/bin/env python3
"""check_global_readers.py ARCHIVE... — the capture context rule
(docs/architecture.md, "The capture context"): of the crash-path objects
(as_*.c, arch_*.c, whichever room's archive holds them), only the signal
handlers' entries and the file defining it refer to as_g; everything below
them takes an as_capture_ctx.  Read from nm: an object that names as_g
anywhere, even through a macro, shows it as undefined."""
import os
import subprocess
import sys

# Each finds its state from a signal handler, or holds what several handlers share.
ALLOWED = {
    'as_state.c.o',    # defines it
    'as_handler.c.o',  # the fatal signal's entry
    'as_freeze.c.o',   # the freeze handler's slots and futex words
    'as_sample.c.o',   # the sample handler
    'as_control.c.o',  # the control-signal router
    'as_fds.c.o',      # the descriptors held from install, shared with it
    'as_interpose.c.o', # the program's sigaction under the preload library, maybe in its handler
}

out = subprocess.run(['nm', '-A', '--format=posix'] + sys.argv[1:], capture_output=True, text=True,
                     check=True).stdout
readers = set()
for line in out.splitlines():
    parts = line.split()
    obj = os.path.basename(parts[0].rstrip(':').rstrip(']')) if parts else ''
    if len(parts) >= 2 and parts[1] == 'as_g' and obj.startswith(('as_', 'arch_')):
        readers.add(obj)
if not readers:
    sys.exit('no crash-path object names as_g: are these the reporter\'s archives?')
bad = sorted(readers - ALLOWED)
for name in bad:
    print('%s reads as_g: take its inputs from the as_capture_ctx passed down' % name)
print('%d objects read the global' % len(bad) if bad else 'only the entries read as_g: %s' % ', '.join(sorted(readers)))
sys.exit(1 if bad else 0)
