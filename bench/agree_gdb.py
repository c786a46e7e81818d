#!/usr/bin/env python3
"""Issue 4 (d): does postmortem's report show the stacks gdb shows?

For each build flavour, one run of agree_target under gdb:
  1. gdb stops the process at its SIGSEGV, before postmortem's handler runs,
     and gdb_frames.py records gdb's backtrace of every thread;
  2. `continue` hands the signal to the process: postmortem reports that same
     state (the parked threads are still in their calls; the crashed thread
     gets the signal with the registers gdb saw);
  3. the process then dies of SIGSEGV.
Not a core file: postmortem's handler runs before the kernel dumps core, so in
the core every parked thread sits inside postmortem's freeze handler, and
gdb's view would need those frames cut off first.

Per thread (matched by LWP id), gdb's physical frames are compared with the
report's: INLINE frames (from debug info) and TAILCALL frames (rebuilt from
DWARF call-site information: the caller jumped and left no frame) have
nothing on the stack to find, and postmortem names physical frames only.
Two frames agree when they are in the same function: the ELF symbol gdb finds
there starts where postmortem's symbol starts (so aliases such as gdb's
__GI_raise and raise agree, and so do msort_with_tmp and
msort_with_tmp.part.0); a frame in no symbol agrees with a frame in no symbol
at the same address; gdb's "<signal handler called>" agrees with a frame named
__restore_rt.
  reproduced  longest common subsequence of the two stacks / gdb's frames
  exact       threads whose two stacks are equal / threads
  other pc    frames at the same depth whose addresses differ: expected for
              frame 0 of a thread in a restartable system call, which the
              kernel rewinds to the syscall instruction before running
              postmortem's freeze handler, while gdb sees the pc after it

Time per frame, from runs without gdb:
  unwind      the unwinder alone (bench_unwind_cost: as_unwind over and
              over on one captured context), ns per frame
  report      fault to both files fsync'd (crash_clock.h) / frames of all threads

usage: agree_gdb.py GDB_FRAMES_PY (AGREE_TARGET UNWIND_COST)... [--repeats N]
"""
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile

from benchlib import Crash, clean_env, table

FLAVOURS = {'': '-O2, no frame pointers', '_fp': '-O2, frame pointers', '_O0': '-O0'}
GOALS = {'': (98.0, 95.0), '_fp': (100.0, 100.0), '_O0': (100.0, 100.0)}
PHYSICAL = ('NORMAL', 'SIGTRAMP')


def flavour_of(target):
    m = re.search(r'bench_agree(_fp|_O0)?$', target)
    return m.group(1) or ''


def gdb_view(target, gdb_frames_py, workdir):
    """gdb's backtraces at the SIGSEGV stop and the report postmortem wrote
    after it, from one process."""
    out = os.path.join(workdir, 'gdb.json')
    reports = os.path.join(workdir, 'reports')
    # The freeze signal is one of the real-time signals; it must not stop gdb.
    rt = ' '.join('SIG%d' % n for n in range(34, 65))
    cmd = ['gdb', '-nx', '-batch',
           '-ex', 'set backtrace past-main on',
           '-ex', 'handle SIGUSR2 nostop noprint pass',
           '-ex', 'handle %s nostop noprint pass' % rt,
           '-ex', 'run',
           '-ex', 'source ' + gdb_frames_py,
           '-ex', 'continue', '-ex', 'continue', target]
    log = subprocess.run(cmd, env=clean_env(POSTMORTEM_DIR=reports, PM_GDB_FRAMES=out),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600,
                         check=False).stdout.decode(errors='replace')
    if 'received signal SIGSEGV' not in log or not os.path.exists(out):
        raise RuntimeError('%s did not run to its SIGSEGV under gdb:\n%s' % (target, log))
    with open(out, encoding='utf-8') as f:
        gdb = json.load(f)
    pending = os.path.join(reports, 'pending')
    names = [n for n in os.listdir(pending) if n.endswith('.json')]
    if len(names) != 1:
        raise RuntimeError('expected one report in %s, found %d' % (pending, len(names)))
    with open(os.path.join(pending, names[0]), encoding='utf-8') as f:
        return gdb, json.load(f)


def gdb_key(f):
    if f['type'] == 'SIGTRAMP':
        return ('sigtramp',)
    return ('fn', f['start']) if f['start'] is not None else ('?', f['pc'])


def pm_key(f):
    if f.get('symbol') == '__restore_rt':
        return ('sigtramp',)
    if f.get('symbol') is not None:
        return ('fn', f['address'] - f.get('offset', 0))
    return ('?', f['address'])


def lcs(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def gdb_label(f):
    if f['type'] == 'SIGTRAMP':
        return '<signal handler called>'
    return f['name'] or f['sym'] or '??'


def show_mismatch(lwp, g, p, thread):
    print('thread %d (%s): gdb %d frames, postmortem %d; walk ended: %s'
          % (lwp, thread.get('name'), len(g), len(p), thread.get('note') or '(outermost frame)'))
    for i in range(max(len(g), len(p))):
        gl = '%#x %s' % (g[i]['pc'], gdb_label(g[i])) if i < len(g) else ''
        pl = ('%#x %s [%s]' % (p[i]['address'], p[i].get('symbol') or '???', p[i].get('how'))
              if i < len(p) else '')
        mark = ' ' if i < len(g) and i < len(p) and gdb_key(g[i]) == pm_key(p[i]) else '*'
        print('  %s %2d  %-50s %s' % (mark, i, gl, pl))


def compare(gdb, report, verbose):
    """(gdb frames, report frames, frames reproduced, threads, exact threads,
    frames at the same depth whose addresses differ)."""
    pm_threads = {t['id']: t for t in report['threads']}
    totals = [0, 0, 0, 0, 0, 0]
    for t in gdb:
        g = [f for f in t['frames'] if f['type'] in PHYSICAL]
        pt = pm_threads.get(t['lwp'], {})
        p = pt.get('frames', [])
        gk, pk = [gdb_key(f) for f in g], [pm_key(f) for f in p]
        same = lcs(gk, pk)
        totals[0] += len(g)
        totals[1] += len(p)
        totals[2] += same
        totals[3] += 1
        totals[4] += gk == pk
        totals[5] += sum(x['pc'] != y['address'] for x, y in zip(g, p))
        if gk != pk and verbose:
            show_mismatch(t['lwp'], g, p, pt)
    return totals


def report_cost(target, repeats):
    """Median fault-to-report time over all frames, in microseconds per frame."""
    per_frame = []
    for _ in range(repeats):
        c = Crash([target])
        try:
            if c.proc.returncode != -signal.SIGSEGV:
                raise RuntimeError('%s ended with status %d' % (target, c.proc.returncode))
            ns = int(c.stdout.split()[0])
            per_frame.append(ns / 1e3 / sum(len(t.get('frames', [])) for t in c.report['threads']))
        finally:
            c.close()
    return statistics.median(per_frame)


def unwind_cost(program):
    out = subprocess.run([program], stdout=subprocess.PIPE, check=True, timeout=300).stdout.decode()
    m = re.search(r'ns/frame (\S+)', out)
    return float(m.group(1))


def main():
    args = sys.argv[1:]
    repeats = 5
    if '--repeats' in args:
        k = args.index('--repeats')
        repeats = int(args[k + 1])
        del args[k:k + 2]
    gdb_frames_py, pairs = args[0], list(zip(args[1::2], args[2::2]))
    rows = []
    for target, unwinder in pairs:
        flavour = flavour_of(target)
        print('--- %s (%s): threads whose stacks differ (* marks a differing row)' % (target, FLAVOURS[flavour]))
        with tempfile.TemporaryDirectory(prefix='pm-agree-') as work:
            gdb, report = gdb_view(target, gdb_frames_py, work)
        g, p, same, threads, exact, moved = compare(gdb, report, True)
        frames_goal, exact_goal = GOALS[flavour]
        frames_pct, exact_pct = 100.0 * same / g, 100.0 * exact / threads
        met = frames_pct >= frames_goal and exact_pct >= exact_goal
        rows.append([FLAVOURS[flavour], threads, g, p, moved, '%.1f%%' % frames_pct, '%.1f%%' % exact_pct,
                     '>=%g%% / >=%g%%' % GOALS[flavour], 'yes' if met else 'NO',
                     '%.0f' % unwind_cost(unwinder), '%.2f' % report_cost(target, repeats)])
        print()
    print('(d) postmortem vs gdb on the same process state (physical frames; threads matched by LWP)')
    table(['build', 'threads', 'gdb frames', 'pm frames', 'other pc', 'reproduced', 'exact stacks', 'goal', 'met',
           'unwind ns/frame', 'report us/frame'], rows)


if __name__ == '__main__':
    main()
