#!/usr/bin/env python3
"""Two builds' crash time side by side: runs alternate (A, B, A, B, ...) at
each thread count, so the machine's noise hits both alike.

For each build and thread count: the fault -> report durable time (as
crash_vs_gdb.py (a): the callback's time less the minidump's phase) and the
fsync phase (the report's writeback waits and fsyncs), min and median in ms.

usage: crash_ab.py [--dir DIR] TARGET_A TARGET_B [PAIRS [THREADS...]]
  DIR: where the reports go (default: the system's temporary directory;
  /dev/shm shows what a filesystem whose fsync costs nothing pays)
"""
import sys

from benchlib import summary, table
from crash_vs_gdb import PHASES, time_postmortem


def main():
    args = sys.argv[1:]
    parent = None
    if args[:1] == ['--dir']:
        parent, args = args[1], args[2:]
    targets = args[0:2]
    pairs = int(args[2]) if len(args) > 2 else 5
    counts = [int(n) for n in args[3:]] or [1, 17, 257]
    rows = []
    for n in counts:
        durable, fsync = ([], []), ([], [])
        for _ in range(pairs):
            for side, target in enumerate(targets):
                (ms, _all), _frames, _sizes, phases = time_postmortem(target, n, parent)
                durable[side].append(ms)
                fsync[side].append(phases[PHASES.index('fsync')])
        for side in (0, 1):
            (dmin, dmed), (fmin, fmed) = summary(durable[side]), summary(fsync[side])
            rows.append([n, 'AB'[side], '%.2f' % dmin, '%.2f' % dmed, '%.2f' % fmin, '%.2f' % fmed])
    print('A = %s\nB = %s\nreports in %s; %d pairs, alternating; ms'
          % (targets[0], targets[1], parent or 'the temporary directory', pairs))
    table(['threads', 'build', 'durable min', 'durable median', 'fsync min', 'fsync median'], rows)


if __name__ == '__main__':
    main()
