#!/usr/bin/env python3
"""Issue 14: the page faults a crash takes, beside the pages it makes resident.

usage: crash_faults.py TARGET [RUNS [LIBDIR...]]

TARGET is bench_crash_target (crash_target.c).  Each LIBDIR is a build
directory whose libpostmortem the same target loads instead of its own
(LD_LIBRARY_PATH: the target's RUNPATH gives way to it), so that two builds
are counted side by side, alternating; without one, the target's own.

For 1, 17, 257 and 1025 threads, RUNS crashes each (5), the minidump off
(POSTMORTEM_MINIDUMP=0: the report alone, up to durable), reports on tmpfs
when /dev/shm exists.  crash_clock.c counts, from just before the faulting
store to the crash callback, on the faulting thread (the one that reports):

  faults    page faults taken (perf's software counter: the kernel's signal
            frame, the handler's first touches of fresh pages, faults in the
            kernel's copies to user memory); each costs about 13 us on the
            paravirtualized guest docs/benchmarks.md measures on, and
            25-60 us where it copies a file page (.data)
  resident  pages made resident for it (getrusage's minor faults, which
            also count pages populated ahead with MADV_POPULATE_WRITE: about
            1 us each in the call and 3-6 us at the first touch)
  ms        fault to the callback (report durable)

min and median of each.
"""
import os
import statistics
import sys

from benchlib import Crash, summary, table

THREADS = (1, 17, 257, 1025)
TMPFS = '/dev/shm'


def run(target, threads, libdir):
    env = {'POSTMORTEM_MINIDUMP': '0'}
    if libdir:
        env['LD_LIBRARY_PATH'] = libdir
    c = Crash([target, str(threads), 'crash'], TMPFS if os.path.isdir(TMPFS) else None, env=env)
    try:
        ns = int(c.stdout.split()[0])
        words = [l.split() for l in c.proc.stderr.decode(errors='replace').splitlines() if l.startswith('faults ')]
        if len(words) != 1:
            raise RuntimeError('%s printed no fault counts' % target)
        return int(words[0][1]), int(words[0][2]), ns / 1e6
    finally:
        c.close()


def main():
    target = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    libdirs = sys.argv[3:] or [None]
    rows = []
    for n in THREADS:
        got = {d: [] for d in libdirs}
        for r in range(runs):
            for d in libdirs if r % 2 == 0 else libdirs[::-1]:
                got[d].append(run(target, n, d))
        for d in libdirs:
            faults, resident, ms = zip(*got[d])
            rows.append([n, d or 'own', '%d' % min(faults), '%g' % statistics.median(faults),
                         '%d' % min(resident), '%g' % statistics.median(resident),
                         '%.3f' % summary(ms)[0], '%.3f' % summary(ms)[1]])
    table(['threads', 'libpostmortem', 'faults min', 'median', 'resident min', 'median', 'ms min', 'median'],
          rows)


if __name__ == '__main__':
    main()
