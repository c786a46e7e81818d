#!/usr/bin/env python3
"""first_install.py PROGRAM [RUNS [BASE_LIBDIR]] — issue 14: the first
pm_install of a fresh process with 1, 17 and 257 threads, what an app pays
once per start, beside a bare first pthread_create in the same kind of
process (the anchor).  PROGRAM is bench_first_install; each measurement is
a process of its own, spawned in turn (anchor, this build, and with
BASE_LIBDIR the libpostmortem found there, e.g. main's build directory, by
LD_LIBRARY_PATH), RUNS rounds, so that the machine's noise falls on all
alike.  Prints min and median wall time, median CPU time of the calling
thread and its page faults, and the load average before and after."""
import os
import statistics
import subprocess
import sys
import tempfile

from benchlib import clean_env, table

THREADS = (1, 17, 257)


def one(program, d, threads, mode, libdir):
    env = clean_env()
    if libdir:
        env['LD_LIBRARY_PATH'] = libdir
    out = subprocess.run([program, d, str(threads), mode], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def main():
    program = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    base = sys.argv[3] if len(sys.argv) > 3 else None
    own = os.path.dirname(os.path.dirname(os.path.abspath(program)))
    variants = [('pthread_create (anchor)', 'thread', own), ('pm_install, this build', 'install', own)]
    if base:
        variants.append(('pm_install, %s' % base, 'install', base))
    load = os.getloadavg()
    res = {(n, v[0]): [] for n in THREADS for v in variants}
    with tempfile.TemporaryDirectory(prefix='pm-first-') as d:
        for n in THREADS:
            one(program, d, n, 'install', own)  # the reports directory made, the page cache warm
        for r in range(runs):
            for n in THREADS:
                order = variants if r % 2 == 0 else variants[:1] + variants[:0:-1]
                for name, mode, libdir in order:
                    res[(n, name)].append(one(program, d, n, mode, libdir))
    print('The first call in a fresh process, %d processes per row, alternating; microseconds\n'
          '(goal: pm_install under 200 us with 257 threads); load average %.2f before, %.2f after\n'
          % (runs, load[0], os.getloadavg()[0]))
    rows = []
    for n in THREADS:
        for name, _, _ in variants:
            v = res[(n, name)]
            wall = [x[0] for x in v]
            rows.append([n, name, '%.1f' % min(wall), '%.1f' % statistics.median(wall),
                         '%.1f' % statistics.median(x[1] for x in v), '%.0f' % statistics.median(x[2] for x in v)])
    table(['threads', 'call', 'wall min', 'wall median', 'CPU median', 'faults'], rows)


main()
