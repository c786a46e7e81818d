#!/usr/bin/env python3
"""session_cost.py BARE INSTALL [RUNS] — issue 33: what a run's session costs
an app that never crashes.  session_target.c built bare and calling
pm_install runs in turn, RUNS rounds (interleaved, so machine noise falls on
all alike), the installing build twice: with sessions (the default) and with
POSTMORTEM_SESSIONS=0.  Printed: pm_install and exit as timed inside the
process (exit: the hooks exit() runs after main, postmortem's among them),
and the whole process from spawn to reaped beside the bare program's, the
ratio the start-cost goal (issue 13: within 1.2x of bare) is about.  The runs
file's records are freed every round, as the store's collection frees them."""
import os
import statistics
import sys
import tempfile

from benchlib import clean_env, free_runs, table, timed_output

NAMES = ['bare', 'pm_install, no session (POSTMORTEM_SESSIONS=0)', 'pm_install with its session']


def run(path, env):
    """(wall ms, install us, exit us) of one run."""
    ms, out = timed_output(path, ['t'], env)
    if len(out) != 2:
        raise RuntimeError('%s printed %s' % (path, out))
    return ms, float(out[0]), float(out[1])


def main():
    bare, install = sys.argv[1:3]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    with tempfile.TemporaryDirectory(prefix='pm-session-') as d:
        envs = [clean_env(POSTMORTEM_DIR=d), clean_env(POSTMORTEM_DIR=d, POSTMORTEM_SESSIONS='0'),
                clean_env(POSTMORTEM_DIR=d)]
        progs = [bare, install, install]
        for p, e in zip(progs, envs):   # warm the page cache and the loader's caches
            run(p, e)
        res = [[] for _ in progs]
        for _ in range(runs):
            for i, (p, e) in enumerate(zip(progs, envs)):
                res[i].append(run(p, e))
            free_runs(d)
    med = [[statistics.median(x[k] for x in r) for k in range(3)] for r in res]
    print('Process start to exit (spawn to reaped), %d runs of each, interleaved; pm_install and exit\n'
          'as timed inside the process, medians (goal: pm_install within 1.2x of bare)\n' % runs)
    rows = []
    for i, name in enumerate(NAMES):
        rows.append([name, '%.2f' % min(x[0] for x in res[i]), '%.2f' % med[i][0], '%.2fx' % (med[i][0] / med[0][0]),
                     '%.1f' % med[i][1] if i else '-', '%.1f' % min(x[1] for x in res[i]) if i else '-',
                     '%.2f' % med[i][2]])
    table(['program', 'min ms', 'median ms', 'x bare', 'pm_install us', 'min us', 'exit hooks us'], rows)
    print('\nthe session adds: pm_install %+.1f us (median), exit %+.2f us, the whole process %+.3f ms (%+.1f%%)'
          % (med[2][1] - med[1][1], med[2][2] - med[1][2], med[2][0] - med[1][0],
             100 * (med[2][0] - med[1][0]) / med[0][0]))
    print('goal %s' % ('met' if med[2][0] <= 1.2 * med[0][0] else 'NOT met'))


main()
