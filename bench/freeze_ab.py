#!/usr/bin/env python3
"""The freeze, builds side by side: crash_target of each build, one run of
each per round, the order rotated every round, reports on tmpfs (/dev/shm:
the handler's work without the disk) and no minidump.  Per thread count,
min and median of the phases the freeze touches (pm_crash_phases: freeze,
images, threads and their sum), of the fault to the report durable, and of
the whole process's CPU time (user + system, from its rusage: the same
program in every build, so a difference is the crash's).

usage: freeze_ab.py ROUNDS THREADS[,THREADS...] TARGET...
  e.g. freeze_ab.py 8 17,257,1025 main/build/bench/bench_crash_target build/bench/bench_crash_target
"""
import os
import resource
import signal
import sys

from benchlib import Crash, summary, table

PHASES = ('freeze', 'images', 'threads', 'symbols', 'write', 'fsync', 'minidump')
SHOWN = ('freeze', 'images', 'threads')


def run(target, threads):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    c = Crash([target, str(threads), 'crash'], '/dev/shm', env={'POSTMORTEM_MINIDUMP': '0'})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        if c.proc.returncode != -signal.SIGSEGV or len(c.report['threads']) != threads:
            raise RuntimeError('%s: status %d, %d threads listed' % (target, c.proc.returncode,
                                                                     len(c.report['threads'])))
        ns, written, *phases = c.stdout.split()
        p = dict(zip(PHASES, (int(v) / 1e6 for v in phases)))
        cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3
        row = [p[k] for k in SHOWN]
        return row + [sum(row), int(ns) / 1e6, cpu]
    finally:
        c.close()


def main():
    rounds, counts, targets = int(sys.argv[1]), [int(t) for t in sys.argv[2].split(',')], sys.argv[3:]
    print('load average before: %.2f %.2f %.2f' % os.getloadavg())
    for i, t in enumerate(targets):
        print('%c: %s' % (65 + i, t))
    cols = list(SHOWN) + ['f+i+t', 'durable', 'cpu']
    for n in counts:
        got = {t: [] for t in targets}
        for r in range(rounds):
            for k in range(len(targets)):
                t = targets[(r + k) % len(targets)]
                got[t].append(run(t, n))
        rows = [['%d %c' % (n, 65 + i)] + ['%.2f / %.2f' % summary([r[k] for r in got[t]]) for k in range(len(cols))]
                for i, t in enumerate(targets)]
        table(['threads'] + ['%s min / med' % c for c in cols], rows)
        print('load average: %.2f %.2f %.2f' % os.getloadavg())
        print()


if __name__ == '__main__':
    main()
