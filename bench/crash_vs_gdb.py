#!/usr/bin/env python3
"""Issue 3, benchmarks (a) and (c).

(a) Time from the fault to both report files fsync'd, against gdb printing
    every thread's backtrace of the same kind of process.
      postmortem: the target reads CLOCK_MONOTONIC just before its faulting
                  store and again in postmortem's on_crash callback, which
                  runs once both files are written, fsync'd and renamed and
                  the directory is fsync'd (crash_target.c).
      gdb:        wall clock of `gdb -batch -p PID -ex "thread apply all bt"`
                  from spawn to exit, on the target in "park" mode: the same
                  threads at the same depths, the main thread blocked
                  instead of faulting.
    Runs alternate (postmortem, gdb, postmortem, gdb, ...) so that noise on
    the machine hits both sides alike.  The reports go to the system's
    temporary directory (a disk here); a third run per round writes them to
    tmpfs (/dev/shm), where fsync costs nothing, to show the disk's share.
(c) Bytes of the .crash and the .json, and what each thread adds.

usage: crash_vs_gdb.py TARGET [REPEATS]
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from benchlib import Crash, clean_env, size_table, summary, table

THREADS = (1, 17, 257)
TMPFS = '/dev/shm'


def time_postmortem(target, threads, parent=None):
    c = Crash([target, str(threads), 'crash'], parent)
    try:
        if c.proc.returncode != -signal.SIGSEGV:
            raise RuntimeError('target ended with status %d, not SIGSEGV' % c.proc.returncode)
        ns, written = c.stdout.split()
        if written != '1':
            raise RuntimeError('postmortem says the report was not written')
        if len(c.report['threads']) != threads:
            raise RuntimeError('the report lists %d threads, expected %d' % (len(c.report['threads']), threads))
        frames = sum(len(t.get('frames', [])) for t in c.report['threads'])
        sizes = os.path.getsize(c.crash_path), os.path.getsize(c.json_path)
        return int(ns) / 1e6, frames, sizes
    finally:
        c.close()


def time_gdb(target, threads):
    reports = tempfile.mkdtemp(prefix='pm-bench-')
    p = subprocess.Popen([target, str(threads), 'park'], env=clean_env(POSTMORTEM_DIR=reports),
                         stdout=subprocess.PIPE)
    try:
        if p.stdout.readline().strip() != b'ready':
            raise RuntimeError('the parked target did not start')
        t0 = time.monotonic_ns()
        out = subprocess.run(['gdb', '-nx', '-batch', '-p', str(p.pid), '-ex', 'thread apply all bt'],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout
        t1 = time.monotonic_ns()
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(reports, ignore_errors=True)
    frames = len(re.findall(rb'^#\d+ ', out, re.M))
    gdb_threads = len(re.findall(rb'^Thread \d+ ', out, re.M))
    if gdb_threads != threads:
        raise RuntimeError('gdb listed %d threads, expected %d' % (gdb_threads, threads))
    return (t1 - t0) / 1e6, frames


def main():
    target = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    timing, sizes = [], {}
    for n in THREADS:
        pm, shm, gdb = [], [], []
        for _ in range(repeats):
            ms, pm_frames, sizes[n] = time_postmortem(target, n)
            pm.append(ms)
            ms, gdb_frames = time_gdb(target, n)
            gdb.append(ms)
            if os.path.isdir(TMPFS):
                shm.append(time_postmortem(target, n, TMPFS)[0])
        (pm_min, pm_med), (gdb_min, gdb_med) = summary(pm), summary(gdb)
        timing.append([n, pm_frames, gdb_frames, '%.2f' % pm_min, '%.2f' % pm_med,
                       '%.2f' % summary(shm)[1] if shm else '-',
                       '%.1f' % gdb_min, '%.1f' % gdb_med,
                       '%.0fx' % (gdb_min / pm_min), '%.0fx' % (gdb_med / pm_med),
                       'yes' if gdb_med / pm_med >= 100 else 'NO'])
    print('(a) fault -> both files fsync\'d (postmortem) vs gdb -batch -p PID '
          '"thread apply all bt" (wall clock); %d runs each, alternating; times in ms;\n'
          '    ratios: gdb / postmortem with the reports on disk' % repeats)
    table(['threads', 'frames pm', 'frames gdb', 'pm min', 'pm median', 'pm tmpfs median', 'gdb min', 'gdb median',
           'ratio min', 'ratio median', '>=100x'], timing)
    print()
    print('(c) report size in bytes; "per thread" is what each thread past the first adds')
    size_table(['threads', '.crash', '.json', '.crash/thread', '.json/thread'], sizes, THREADS)


if __name__ == '__main__':
    main()
