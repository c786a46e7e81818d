#!/usr/bin/env python3
"""start_cost.py BARE INSTALL UPLOAD TOOLS [RUNS] — issue 13: what an app
that never crashes pays for postmortem.  The four builds of start_target.c
run in turn, RUNS rounds (interleaved, so machine noise falls on all alike):
the whole process from spawn to exit, the shared objects it maps, its peak
resident memory, its own postmortem calls timed inside it and the page
faults taken in them.  A second table times the same programs run without
the argument that makes them print (the stricter view: nothing of their own
timing or output is in it).  Then, from
bench_install_cost beside them (issue 14), pm_install with 1, 17 and 257
threads alive: the first install of a fresh process (which asks every
thread for its alternate stack) and the reinstalls after it.  Each run
records its session (issue 33) in the runs file, whose records are freed
every round as the store's collection frees them."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import clean_env, free_runs, table, timed_output

NAMES = ['bare', 'pm_install', 'pm_install + pm_upload_start (nothing pending)',
         'pm_install, tooling linked too (before the split)']


def run(path, env):
    """(wall ms, microseconds inside, page faults inside, peak RSS kB) of one run."""
    ms, out = timed_output(path, ['t'], env)
    if len(out) != 3:
        raise RuntimeError('%s printed %s' % (path, out))
    return ms, float(out[0]), int(out[1]), int(out[2])


def run_quiet(path, env):
    """Wall ms of one run that prints nothing."""
    t0 = time.perf_counter()
    pid = os.posix_spawn(path, [path], env)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError('%s exited %d' % (path, os.waitstatus_to_exitcode(status)))
    return (t1 - t0) * 1e3


def objects(path, env):
    """Shared objects the loader maps for path (LD_TRACE_LOADED_OBJECTS, as ldd)."""
    out = subprocess.run([path], env=dict(env, LD_TRACE_LOADED_OBJECTS='1'), capture_output=True,
                         text=True, check=True).stdout
    return sum(1 for line in out.splitlines() if line.strip() and 'vdso' not in line)


INSTALL_THREADS = (1, 17, 257)


def install_cost(path, runs, env):
    """Per row of bench_install_cost (a thread count; the last adds threads
    that block every signal, "257+16b"): the first pm_install of each of
    `runs` fresh processes, and the median reinstall of each."""
    first, again = {}, {}
    with tempfile.TemporaryDirectory(prefix='pm-install-') as d:
        for _ in range(runs):
            out = subprocess.run([path, d, '20'] + [str(n) for n in INSTALL_THREADS], env=env,
                                 capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                cells = line.split()
                if len(cells) == 8 and cells[0][0].isdigit():
                    first.setdefault(cells[0], []).append(float(cells[1]))
                    again.setdefault(cells[0], []).append(float(cells[3]))
    rows = []
    for label in first:
        med, again_med = statistics.median(first[label]), statistics.median(again[label])
        rows.append([label, '%.1f' % min(first[label]), '%.1f' % med, '%.1f' % again_med,
                     'yes' if med < 200 else 'NO', 'yes' if again_med < 200 else 'NO'])
    print('\npm_install in a process with 1, 17 and 257 threads, then 16 more that block every signal\n'
          '(bench_install_cost), %d fresh processes; microseconds (goal: under 200 us with 257 threads).\n'
          'Each row\'s first install asks the threads started since the row before for their stacks;\n'
          'the first row\'s is also the process\'s first install (the loader\'s first calls, first-touch\n'
          'faults), which no thread count can bring under 200 us; a reinstall finds every thread known.\n'
          % runs)
    table(['threads', 'first install min', 'first install median', 'reinstall median', 'first < 200 us',
           'reinstall < 200 us'], rows)


def main():
    progs = sys.argv[1:5]
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 200
    with tempfile.TemporaryDirectory(prefix='pm-start-') as d:
        env = clean_env(POSTMORTEM_DIR=d)
        for p in progs:          # warm the page cache and the loader's caches
            run(p, env)
        res = [[] for _ in progs]
        quiet = [[] for _ in progs]
        for _ in range(runs):
            for i, p in enumerate(progs):
                res[i].append(run(p, env))
                quiet[i].append(run_quiet(p, env))
            free_runs(d)
    med = [[statistics.median(x[k] for x in r) for k in range(4)] for r in res]
    print('Process start to exit (spawn to reaped), %d runs of each, interleaved; pending/ empty\n'
          '(goal: pm_install and pm_upload_start within 1.2x of bare, peak RSS within 1 MB)\n' % runs)
    rows = []
    for i, name in enumerate(NAMES):
        rows.append([name, objects(progs[i], env), '%.2f' % min(x[0] for x in res[i]), '%.2f' % med[i][0],
                     '%.2fx' % (med[i][0] / med[0][0]), '%.0f' % med[i][1], '%.0f' % med[i][2],
                     '%.0f' % med[i][3], '%+.0f' % (med[i][3] - med[0][3])])
    table(['program', 'shared objects', 'min ms', 'median ms', 'x bare', 'calls us', 'faults',
           'peak RSS kB', 'vs bare kB'], rows)
    ok = all(med[i][0] <= 1.2 * med[0][0] and med[i][3] - med[0][3] <= 1024 for i in (1, 2))
    print('\n"calls us": pm_install (and pm_upload_start) as timed inside the process, median;'
          '\n"faults": the page faults taken in them (ru_minflt; bare: the timing\'s own).')
    print('goal %s' % ('met' if ok else 'NOT met'))
    qmed = [statistics.median(q) for q in quiet]
    print('\nThe same programs printing nothing (no timing of their own), run in the same rounds\n')
    table(['program', 'min ms', 'median ms', 'x bare'],
          [[name, '%.2f' % min(quiet[i]), '%.2f' % qmed[i], '%.2fx' % (qmed[i] / qmed[0])]
           for i, name in enumerate(NAMES)])
    cost = os.path.join(os.path.dirname(progs[1]), 'bench_install_cost')
    if os.access(cost, os.X_OK):
        install_cost(cost, max(5, runs // 20), clean_env())
    else:
        print('\n(no %s: install cost not measured)' % cost)


main()
