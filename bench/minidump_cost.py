#!/usr/bin/env python3
"""Issue 17: what the minidump costs at crash time, and its size.

(a) Fault to the last file fsync'd (crash_clock.h: the on_crash callback runs
    after the minidump too), with the minidump (the default) and without it
    (POSTMORTEM_MINIDUMP=0), on crash_target.c's process: THREADS threads,
    each about 35 frames deep.  Runs alternate so noise hits both alike.
    Beside them, what a user would otherwise do to keep memory for a
    debugger: `gdb -batch -p PID -ex "gcore FILE"` on the same process parked
    (wall clock from spawn to exit, and the core's size).
(b) Bytes of the minidump, and what each thread past the first adds (its
    context, up to 32 KiB of stack, its name), against the .crash + .json.

usage: minidump_cost.py TARGET [REPEATS]
"""
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from benchlib import Parked, clean_env, size_table, summary, table

THREADS = (1, 17, 257)


def crash_once(target, threads, minidump):
    d = tempfile.mkdtemp(prefix='pm-bench-')
    try:
        env = clean_env(POSTMORTEM_DIR=d, **({} if minidump else {'POSTMORTEM_MINIDUMP': '0'}))
        p = subprocess.run([target, str(threads), 'crash'], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120, check=False)
        if p.returncode != -signal.SIGSEGV:
            raise RuntimeError('target ended with status %d, not SIGSEGV' % p.returncode)
        ns, written = p.stdout.decode().split()[:2]
        if written != '1':
            raise RuntimeError('postmortem says the report was not written')
        dmp = glob.glob(os.path.join(d, 'pending', '*.dmp'))
        if len(dmp) != (1 if minidump else 0):
            raise RuntimeError('%d minidumps with minidump=%s' % (len(dmp), minidump))
        report = sum(os.path.getsize(f) for f in glob.glob(os.path.join(d, 'pending', '*.crash')) +
                     glob.glob(os.path.join(d, 'pending', '*.json')))
        return int(ns) / 1e6, os.path.getsize(dmp[0]) if dmp else 0, report
    finally:
        shutil.rmtree(d, ignore_errors=True)


def gcore_once(target, threads):
    parked = Parked(target, threads)
    try:
        core = os.path.join(parked.dir, 'core')
        t0 = time.monotonic_ns()
        subprocess.run(['gdb', '-nx', '-batch', '-p', str(parked.pid), '-ex', 'gcore ' + core],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        t1 = time.monotonic_ns()
        if not os.path.exists(core):
            raise RuntimeError('gcore wrote no core')
        return (t1 - t0) / 1e6, os.path.getsize(core)
    finally:
        parked.close()


def main():
    target = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    rows, sizes = [], {}
    for n in THREADS:
        with_md, without, gcore = [], [], []
        for _ in range(repeats):
            ms, dmp, report = crash_once(target, n, True)
            with_md.append(ms)
            sizes[n] = (dmp, report)
            without.append(crash_once(target, n, False)[0])
        for _ in range(max(1, repeats // 2)):
            ms, core = gcore_once(target, n)
            gcore.append(ms)
        (w_min, w_med), (o_min, o_med), (g_min, g_med) = summary(with_md), summary(without), summary(gcore)
        rows.append([n, '%.2f' % o_med, '%.2f' % w_med, '%.2f' % (w_med - o_med), '%.2fx' % (w_med / o_med),
                     '%.1f' % g_med, '%.0fx' % (g_med / w_med), '%.1f' % (core / 1e6)])
    print('(a) fault -> last file fsync\'d, median ms of %d runs each (alternating), reports on disk;\n'
          '    gcore: gdb -batch -p PID -ex "gcore FILE" on the same process parked (wall clock)' % repeats)
    table(['threads', 'no minidump', 'with minidump', 'added ms', 'with/without', 'gcore', 'gcore/with',
           'core MB'], rows)
    print()
    print('(b) bytes; "per thread" is what each thread past the first adds')
    size_table(['threads', '.dmp', '.crash+.json', '.dmp/thread', '.crash+.json/thread'], sizes, THREADS)


if __name__ == '__main__':
    main()
