#!/usr/bin/env python3
"""handled_faults.py PRELOAD FAULT_LOOP FAULT_LOOP_LINKED [JAVA CLASSDIR] [ROUNDS] — issue 30:
what a runtime's handled faults cost under postmortem, beside the same program
without it.  Each program times its own loop of faults its handler resolves
(the C stand-in: a context edit or siglongjmp; the JVM: NullPointerExceptions
in compiled code; node: WebAssembly loads out of bounds); the runs alternate,
ROUNDS of each (default 7), and the table gives the median time per fault
and the ratio to the bare program.  Every run under postmortem must leave no
report.  The faults the JVM and node really take are counted once with strace."""
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchlib import clean_env, table

NODE_LOOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'runtimes', 'fault_loop.js')


def run(argv, preload=None):
    """(ns per iteration, reports left) of one run, bare or under the preload library."""
    d = tempfile.mkdtemp(prefix='pm-bench-')
    env = clean_env(POSTMORTEM_DIR=d)
    if preload:
        env['LD_PRELOAD'] = preload
    try:
        out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, timeout=600).stdout
        ns, n = (int(x) for x in out.split()[-2:])
        return ns / n, len(glob.glob(os.path.join(d, 'pending', '*.crash')))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def segvs(argv):
    """SIGSEGVs the program takes (strace, signals only)."""
    with tempfile.NamedTemporaryFile() as trace:
        subprocess.run(['strace', '-f', '-qq', '-e', 'trace=none', '-e', 'signal=SIGSEGV', '-o', trace.name]
                       + argv, env=clean_env(), capture_output=True, check=True, timeout=600)
        return sum(1 for line in open(trace.name, encoding='utf-8', errors='replace') if '--- SIGSEGV {' in line)


def main():
    preload, loop, loop_linked = sys.argv[1:4]
    rest = sys.argv[4:]
    programs = [('C, context edit', [loop, 'context', '200000'], [loop_linked, 'context', '200000']),
                ('C, siglongjmp', [loop, 'longjmp', '200000'], [loop_linked, 'longjmp', '200000'])]
    if len(rest) >= 2:
        programs.append(('JVM, NullPointerException', [rest[0], '-cp', rest[1], 'FaultLoop', '2000000'], None))
        rest = rest[2:]
    if shutil.which('node'):
        programs.append(('node, wasm bounds', ['node', NODE_LOOP, '20000'], None))
    rounds = int(rest[0]) if rest else 7
    rows = []
    for name, argv, linked in programs:
        sides = [('bare', argv, None), ('postmortem run', argv, preload)]
        if linked:
            sides.append(('linked', linked, None))
        times = {s[0]: [] for s in sides}
        reports = 0
        for r in range(rounds):
            for label, a, pre in sides[r % len(sides):] + sides[:r % len(sides)]:
                t, n = run(a, pre)
                times[label].append(t)
                reports += n
        base = statistics.median(times['bare'])
        taken = segvs(argv) if name.startswith(('JVM', 'node')) else int(argv[-1])
        row = [name, taken, '%.2f' % (base / 1e3)]
        for label, _, _ in sides[1:]:
            m = statistics.median(times[label])
            row += ['%.2f' % (m / 1e3), '%.3fx' % (m / base)]
        row += [''] * (8 - len(row)) + [reports]
        rows.append(row)
    table(['program', 'SIGSEGVs', 'bare us/iter', 'run us/iter', 'run/bare', 'linked us/iter', 'linked/bare',
           '', 'reports'], rows)
    if any(r[-1] for r in rows):
        sys.exit('postmortem wrote reports of faults the runtime handled')


main()
