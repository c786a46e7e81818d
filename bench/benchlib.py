"""Helpers shared by the benchmark drivers: running a program that crashes
under postmortem, and small statistics."""
import ctypes
import glob
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def clean_env(**extra):
    """This environment without POSTMORTEM_* settings, plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('POSTMORTEM_')}
    env.update(extra)
    return env


class Crash:
    """One run of a program that crashes under postmortem, its reports in a
    new directory under `parent` (default: the system's temporary directory),
    removed by close(); `env` adds to its environment."""

    def __init__(self, argv, parent=None, timeout=120, env=None):
        self.dir = tempfile.mkdtemp(prefix='pm-bench-', dir=parent)
        self.proc = subprocess.run(argv, env=clean_env(POSTMORTEM_DIR=self.dir, **(env or {})),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=timeout, check=False)
        self.stdout = self.proc.stdout.decode(errors='replace')
        crash = glob.glob(os.path.join(self.dir, 'pending', '*.crash'))
        js = glob.glob(os.path.join(self.dir, 'pending', '*.json'))
        if len(crash) != 1 or len(js) != 1:
            raise RuntimeError('%s left %d .crash and %d .json files (status %d): %s'
                               % (argv[0], len(crash), len(js), self.proc.returncode,
                                  self.proc.stderr.decode(errors='replace')))
        self.crash_path, self.json_path = crash[0], js[0]
        with open(self.json_path, encoding='utf-8') as f:
            self.report = json.load(f)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class Parked:
    """A crash_target.c process parked with `threads` threads, for a debugger to
    attach to (its pid); `env` adds to its environment; close() kills it."""

    def __init__(self, target, threads, env=None):
        self.dir = tempfile.mkdtemp(prefix='pm-bench-')
        self.proc = subprocess.Popen([target, str(threads), 'park'],
                                     env=clean_env(POSTMORTEM_DIR=self.dir, **(env or {})), stdout=subprocess.PIPE)
        self.pid = self.proc.pid
        if self.proc.stdout.readline().strip() != b'ready':
            self.close()
            raise RuntimeError('the parked target did not start')

    def close(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def summary(values):
    """(min, median) of a list of numbers."""
    return min(values), statistics.median(values)


def timed_output(path, args, env):
    """(wall ms from spawn to reaped, the words it printed) of one run of path with args;
    raises when it exits non-zero."""
    r, w = os.pipe()
    t0 = time.perf_counter()
    pid = os.posix_spawn(path, [path] + args, env, file_actions=[(os.POSIX_SPAWN_DUP2, w, 1)])
    os.close(w)
    _, status = os.waitpid(pid, 0)
    t1 = time.perf_counter()
    with os.fdopen(r) as f:
        out = f.read().split()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError('%s exited %d: %s' % (path, os.waitstatus_to_exitcode(status), out))
    return (t1 - t0) * 1e3, out


def free_runs(reports_dir):
    """Free every record of reports_dir's runs file as the store's collection does
    (docs/store.md, "Sessions": each a hole again), so that each run claims a free
    record as an app's does.  Truncating the file instead made the next run's write
    wait for the truncation (about 160 us here)."""
    path = os.path.join(reports_dir, 'runs')
    if not os.path.exists(path):
        return
    fd = os.open(path, os.O_RDWR)
    try:
        # fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE) over the 4096 records of 4 KiB.
        ctypes.CDLL(None).fallocate(fd, 3, ctypes.c_long(0), ctypes.c_long(4096 * 4096))
    finally:
        os.close(fd)


def table(header, rows):
    """Print rows under a header, columns right-aligned to the widest cell."""
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for k, r in enumerate(cells):
        print('  '.join(c.rjust(w) for c, w in zip(r, widths)))
        if k == 0:
            print('  '.join('-' * w for w in widths))


def size_table(header, sizes, threads):
    """Print the byte counts in sizes[n] (a tuple per thread count n), then what each
    thread past the first adds to each of them."""
    base = sizes[threads[0]]
    rows = []
    for n in threads:
        per = ['%.0f' % ((v - b) / (n - 1)) for v, b in zip(sizes[n], base)] if n > 1 else ['-'] * len(base)
        rows.append([n] + list(sizes[n]) + per)
    table(header, rows)
