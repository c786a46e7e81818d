#!/usr/bin/env python3
"""Issue 3, benchmarks (a) and (c); issue 14, the eu-stack column and the phases.

(a) Time from the fault to both report files durable, against gdb and
    eu-stack printing every thread's backtrace of the same kind of process.
      postmortem: the target reads CLOCK_MONOTONIC just before its faulting
                  store and again in postmortem's on_crash callback, which
                  runs once the .crash and the .json are written, renamed
                  and durable (fsync'd as their filesystem needs), and the minidump
                  after them (crash_target.c).  The report is durable at the
                  callback's time less the minidump's phase (its rendering,
                  writing and fsyncs); "all three" is the callback's time.
      gdb:        wall clock of `gdb -batch -p PID -ex "thread apply all bt"`
                  from spawn to exit, on the target in "park" mode: the same
                  threads at the same depths, the main thread blocked
                  instead of faulting.
      eu-stack:   wall clock of `eu-stack -p PID` (elfutils: ptrace and
                  libdwfl) on the same parked target.
    Runs alternate (postmortem, gdb, postmortem on tmpfs, eu-stack, ...) so
    that noise on the machine hits every side alike.  The reports go to the
    system's temporary directory (a disk here); the tmpfs run writes them to
    /dev/shm, where fsync costs nothing, to show the disk's share.
(b) Where the handler's time goes (pm_crash_phases, from the on_crash
    callback) at 1, 17, 257 and 1025 threads: medians of the disk runs;
    "fsync" is the report's (its writeback waited for, its fsyncs), "minidump" has its own.
(c) Bytes of the .crash and the .json, and what each thread adds.

usage: crash_vs_gdb.py TARGET [REPEATS]
"""
import os
import re
import signal
import subprocess
import sys
import time

from benchlib import Crash, Parked, size_table, summary, table

THREADS = (1, 17, 257)
PHASE_THREADS = THREADS + (1025,)
PHASES = ('freeze', 'images', 'threads', 'symbols', 'write', 'fsync', 'minidump')
TMPFS = '/dev/shm'


def time_postmortem(target, threads, parent=None):
    c = Crash([target, str(threads), 'crash'], parent)
    try:
        if c.proc.returncode != -signal.SIGSEGV:
            raise RuntimeError('target ended with status %d, not SIGSEGV' % c.proc.returncode)
        ns, written, *phases = c.stdout.split()
        if written != '1':
            raise RuntimeError('postmortem says the report was not written')
        if len(c.report['threads']) != threads:
            raise RuntimeError('the report lists %d threads, expected %d' % (len(c.report['threads']), threads))
        frames = sum(len(t.get('frames', [])) for t in c.report['threads'])
        sizes = os.path.getsize(c.crash_path), os.path.getsize(c.json_path)
        phases = [int(v) / 1e6 for v in phases]
        # (the report durable, all three files durable)
        return (int(ns) / 1e6 - phases[PHASES.index('minidump')], int(ns) / 1e6), frames, sizes, phases
    finally:
        c.close()


def time_parked(target, threads, argv):
    """Wall clock of argv + [pid of the parked target] and what it printed."""
    parked = Parked(target, threads)
    try:
        t0 = time.monotonic_ns()
        out = subprocess.run(argv + [str(parked.pid)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=False).stdout
        t1 = time.monotonic_ns()
    finally:
        parked.close()
    return (t1 - t0) / 1e6, out


# Each tool's command (the parked target's pid follows), the lines that count its frames and its threads.
GDB = ('gdb', ['gdb', '-nx', '-batch', '-ex', 'thread apply all bt', '-p'], rb'^#\d+ ', rb'^Thread \d+ ')
EU_STACK = ('eu-stack', ['eu-stack', '-p'], rb'^#\d+ ', rb'^TID \d+:')


def time_tool(target, threads, tool):
    """Wall clock of the tool on the parked target, and the frames it printed."""
    name, argv, frame_re, thread_re = tool
    ms, out = time_parked(target, threads, argv)
    listed = len(re.findall(thread_re, out, re.M))
    if listed != threads:
        raise RuntimeError('%s listed %d threads, expected %d' % (name, listed, threads))
    return ms, len(re.findall(frame_re, out, re.M))


def ratio(num, den):
    return '%.0fx' % (num / den)


def main():
    target = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    timing, sizes, phases = [], {}, {}
    for n in PHASE_THREADS:
        pm, pm_all, shm, gdb, eu, ph = [], [], [], [], [], []
        for _ in range(repeats):
            (ms, all_ms), pm_frames, sizes[n], p = time_postmortem(target, n)
            pm.append(ms)
            pm_all.append(all_ms)
            ph.append([all_ms - sum(p)] + p)
            if n not in THREADS:
                continue
            ms, gdb_frames = time_tool(target, n, GDB)
            gdb.append(ms)
            if os.path.isdir(TMPFS):
                shm.append(time_postmortem(target, n, TMPFS)[0][0])
            ms, eu_frames = time_tool(target, n, EU_STACK)
            eu.append(ms)
        phases[n] = [summary([p[k] for p in ph])[1] for k in range(len(PHASES) + 1)]
        phases[n].insert(0, summary(pm_all)[1])
        if n not in THREADS:
            continue
        (pm_min, pm_med), (gdb_min, gdb_med), (eu_min, eu_med) = summary(pm), summary(gdb), summary(eu)
        timing.append([n, pm_frames, gdb_frames, eu_frames, '%.2f' % pm_min, '%.2f' % pm_med,
                       '%.2f' % summary(shm)[1] if shm else '-', '%.2f' % summary(pm_all)[1],
                       '%.1f' % gdb_min, '%.1f' % gdb_med, '%.1f' % eu_min, '%.1f' % eu_med,
                       ratio(gdb_min, pm_min), ratio(gdb_med, pm_med), ratio(eu_min, pm_min), ratio(eu_med, pm_med),
                       ratio(eu_med, summary(shm)[1]) if shm else '-',
                       'yes' if gdb_med / pm_med >= 100 else 'NO',
                       'yes' if eu_med / pm_med >= 8 else 'NO'])
    print('(a) fault -> the .crash and .json durable (postmortem) vs gdb -batch -p PID "thread apply all bt" and '
          'eu-stack -p PID (wall clock);\n'
          '    %d runs each, alternating; times in ms; ratios: the tool\'s time / postmortem\'s with the '
          'reports on disk\n'
          '    ("eu/pm tmpfs": on /dev/shm, the handler\'s work without the disk\'s flushes);\n'
          '    "pm all three": fault -> the minidump durable too' % repeats)
    table(['threads', 'frames pm', 'frames gdb', 'frames eu', 'pm min', 'pm median', 'pm tmpfs median',
           'pm all three median',
           'gdb min', 'gdb median', 'eu min', 'eu median', 'gdb/pm min', 'gdb/pm median', 'eu/pm min',
           'eu/pm median', 'eu/pm tmpfs median', '>=100x gdb', '>=8x eu'], timing)
    print()
    print('(b) where the time goes, medians in ms of the disk runs; "entry" is the fault to the handler\'s\n'
          '    first phase plus the callback (total less the phases)')
    table(['threads', 'total', 'entry'] + list(PHASES),
          [[n] + ['%.3f' % v for v in phases[n]] for n in PHASE_THREADS])
    print()
    print('(c) report size in bytes; "per thread" is what each thread past the first adds')
    size_table(['threads', '.crash', '.json', '.crash/thread', '.json/thread'], sizes, THREADS)


if __name__ == '__main__':
    main()
