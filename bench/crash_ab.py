#!/usr/bin/env python3
"""Builds' crash time side by side: each build's crash_target runs once a
round at each thread count, the order rotated every round, so that the
machine's noise hits every build alike.

For each thread count and build, min and median in ms of: the fault to the
report durable (as crash_vs_gdb.py (a): the on_crash callback's time less the
minidump's phase), the phases asked for (pm_crash_phases) and, with more
than one, their sum, and the whole process's CPU time (user + system, from
its rusage: the same program in every build, so a difference is the crash's).

usage: crash_ab.py [--dir DIR] [--no-minidump] [--phases P[,P...]] ROUNDS THREADS[,THREADS...] TARGET...
  DIR: where the reports go (default: the system's temporary directory, a
       disk here; /dev/shm shows the handler's work without the disk)
  --phases: default fsync; e.g. freeze,images,threads for what the freeze touches
  e.g. crash_ab.py 21 1,17,257 main/build/bench/bench_crash_target build/bench/bench_crash_target
"""
import os
import resource
import signal
import sys

from benchlib import Crash, summary, table
from crash_vs_gdb import PHASES


def run(target, threads, parent, env, shown):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    c = Crash([target, str(threads), 'crash'], parent, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        if c.proc.returncode != -signal.SIGSEGV or len(c.report['threads']) != threads:
            raise RuntimeError('%s: status %d, %d threads listed' % (target, c.proc.returncode,
                                                                     len(c.report['threads'])))
        ns, _written, *phases = c.stdout.split()
        p = dict(zip(PHASES, (int(v) / 1e6 for v in phases)))
        cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3
        row = [p[k] for k in shown]
        return [int(ns) / 1e6 - p['minidump']] + row + ([sum(row)] if len(row) > 1 else []) + [cpu]
    finally:
        c.close()


def main():
    args, parent, env, shown = sys.argv[1:], None, {}, ['fsync']
    while args and args[0].startswith('--'):
        opt = args.pop(0)
        if opt == '--dir':
            parent = args.pop(0)
        elif opt == '--no-minidump':
            env['POSTMORTEM_MINIDUMP'] = '0'
        elif opt == '--phases':
            shown = args.pop(0).split(',')
        else:
            sys.exit(__doc__)
    if len(args) < 3 or any(k not in PHASES for k in shown):
        sys.exit(__doc__)
    rounds, counts, targets = int(args[0]), [int(t) for t in args[1].split(',')], args[2:]
    print('load average before: %.2f %.2f %.2f' % os.getloadavg())
    print('reports in %s; %d rounds, order rotated; ms, min / median'
          % (parent or 'the temporary directory', rounds))
    for i, t in enumerate(targets):
        print('%c: %s' % (65 + i, t))
    cols = ['durable'] + shown + (['sum'] if len(shown) > 1 else []) + ['cpu']
    for n in counts:
        got = {t: [] for t in targets}
        for r in range(rounds):
            for k in range(len(targets)):
                t = targets[(r + k) % len(targets)]
                got[t].append(run(t, n, parent, env, shown))
        rows = [['%d %c' % (n, 65 + i)] + ['%.2f / %.2f' % summary([r[k] for r in got[t]]) for k in range(len(cols))]
                for i, t in enumerate(targets)]
        table(['threads'] + cols, rows)
        print('load average: %.2f %.2f %.2f' % os.getloadavg())
        print()


if __name__ == '__main__':
    main()
