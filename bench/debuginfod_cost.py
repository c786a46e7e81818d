#!/usr/bin/env python3
"""Issue 34: symbolicating through debuginfod, against eu-stack and gdb
fetching from the same server.

The process is crash_target.c with 17 threads, 30 frames deep each, and its
debug information is on a local debuginfod server only:
  - the program runs stripped of its DWARF (objcopy --strip-debug), its
    debug file (--only-keep-debug) served;
  - it runs with a copy of libc under a new build id, and libc6-dbg's debug
    file of libc under the same id is served (tests/symbolicate/
    new_build_id.py), so that /usr/lib/debug answers for neither.
Debian's debuginfod indexes them (tests/symbolicate/serve_debug.py), on a
loopback port.

  postmortem  `postmortem symbolicate` of the report the crash wrote
              (JSON twin in, JSON out), spawn to exit
  eu-stack    `eu-stack -i -s -p PID` on the same process parked
              (elfutils 0.188: libdwfl asks debuginfod itself)
  gdb         `gdb -batch -ex 'thread apply all bt' -p PID`, debuginfod on

Each run has its own empty cache (cold: every debug file comes from the
server), then runs again with that cache filled (warm).  Runs alternate
between the tools so that noise hits each alike; every run is checked to
have printed the program's and libc's file:line (else its time would not be
a symbolicated one).  The medians and their ratios to postmortem's are from
this one run of the benchmark.

usage: debuginfod_cost.py TARGET POSTMORTEM SOURCE_ROOT [REPEATS]
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import Crash, Parked, clean_env, table

THREADS = 17


def libc_path():
    """The libc this interpreter runs with: the one the target would."""
    with open('/proc/self/maps') as f:
        for line in f:
            path = line.split()[-1]
            if os.path.basename(path) == 'libc.so.6':
                return path
    raise RuntimeError('no libc.so.6 in /proc/self/maps')


def sh(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def build_id(path):
    for line in sh('readelf', '-n', path).splitlines():
        if 'Build ID:' in line:
            return line.split()[-1]
    raise RuntimeError('%s has no build id' % path)


def lay_out(lab, target, source_root):
    """bin/ the stripped program, lib/ libc under a new id, serve/ their debug files."""
    for d in ('bin', 'lib', 'serve', 'work'):
        os.mkdir(os.path.join(lab, d))
    prog = os.path.join(lab, 'bin', 'target')
    sh('objcopy', '--strip-debug', target, prog)
    sh('objcopy', '--only-keep-debug', target, os.path.join(lab, 'serve', 'target.debug'))
    rename = os.path.join(source_root, 'tests', 'symbolicate', 'new_build_id.py')
    system_libc = libc_path()
    old = build_id(system_libc)
    libc = os.path.join(lab, 'lib', 'libc.so.6')
    sh(sys.executable, rename, system_libc, libc)
    os.chmod(libc, 0o755)
    sh(sys.executable, rename, '/usr/lib/debug/.build-id/%s/%s.debug' % (old[:2], old[2:]),
       os.path.join(lab, 'serve', 'libc.debug'))
    return prog


class Server:
    """serve_debug.py debuginfod over lab/serve, until close()."""

    def __init__(self, lab, source_root):
        script = os.path.join(source_root, 'tests', 'symbolicate', 'serve_debug.py')
        self.proc = subprocess.Popen([sys.executable, script, 'debuginfod', os.path.join(lab, 'serve'),
                                      os.path.join(lab, 'work')], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.url = self.proc.stdout.readline().decode().strip()
        if not self.url.startswith('http://127.0.0.1:'):
            self.close()
            raise RuntimeError('debuginfod did not start (%s/work/debuginfod.log)' % lab)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def timed(argv, env):
    t0 = time.monotonic_ns()
    p = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    ms = (time.monotonic_ns() - t0) / 1e6
    if p.returncode != 0:
        raise RuntimeError('%s exited %d: %s' % (argv[0], p.returncode, p.stderr))
    return ms, p.stdout


def check_lines(name, text):
    """The run symbolicated through the server: the program's and libc's source lines are there."""
    for what in ('park.c:', 'pthread_cond_wait.c:'):
        if what not in text:
            raise RuntimeError('%s printed no %s line: the debug files did not come' % (name, what))


def run_postmortem(pm, report, out, env):
    ms, _ = timed([pm, 'symbolicate', report, '-o', out], env)
    with open(out, encoding='utf-8') as f:
        frames = [fr for t in json.load(f)['threads'] for fr in t.get('frames', [])]
    check_lines('postmortem', '\n'.join('%s:%s' % (fr.get('file', ''), fr.get('line', '')) for fr in frames))
    return ms, sum(1 for fr in frames if fr.get('file'))


# Each debugger's command (the parked target's pid follows) and its lines that give a frame's file:line.
ATTACHED = {
    'eu-stack': (['eu-stack', '-i', '-s', '-p'], re.compile(r'^\s+\S+:\d+(:\d+)?$', re.M)),
    'gdb': (['gdb', '-nx', '-batch', '-iex', 'set debuginfod enabled on', '-ex', 'thread apply all bt', '-p'],
            re.compile(r'^#\d+ .* at \S+:\d+$', re.M)),
}


def run_attached(name, target, env):
    argv, line_re = ATTACHED[name]
    parked = Parked(target, THREADS, env)
    try:
        ms, out = timed(argv + [str(parked.pid)], env)
    finally:
        parked.close()
    check_lines(name, out)
    return ms, len(line_re.findall(out))


def main():
    target, pm, source_root = sys.argv[1:4]
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    load_before = open('/proc/loadavg').read().split()[:3]
    lab = tempfile.mkdtemp(prefix='pm-bench-dfd-')
    server = None
    try:
        prog = lay_out(lab, target, source_root)
        server = Server(lab, source_root)
        # The copy is outside the build tree: its relative run path no longer finds libpostmortem.
        libs = os.path.join(lab, 'lib') + ':' + os.path.dirname(os.path.dirname(os.path.abspath(target)))
        crash = Crash([prog, str(THREADS), 'crash'], env={'LD_LIBRARY_PATH': libs})
        times = {k: {'cold': [], 'warm': []} for k in ('postmortem', 'eu-stack', 'gdb')}
        lines = {}
        try:
            for r in range(repeats):
                for tool in times:
                    cache = os.path.join(lab, 'cache-%s-%d' % (tool, r))
                    env = clean_env(DEBUGINFOD_URLS=server.url, DEBUGINFOD_CACHE_PATH=cache, LD_LIBRARY_PATH=libs)
                    env.pop('DEBUGINFOD_PROGRESS', None)
                    for state in ('cold', 'warm'):
                        if tool == 'postmortem':
                            ms, n = run_postmortem(pm, crash.json_path, os.path.join(lab, 'out.json'), env)
                        else:
                            ms, n = run_attached(tool, prog, env)
                        times[tool][state].append(ms)
                        lines[tool] = n
                    shutil.rmtree(cache)
        finally:
            crash.close()
    finally:
        if server:
            server.close()
        shutil.rmtree(lab, ignore_errors=True)
    load_after = open('/proc/loadavg').read().split()[:3]

    med = {k: {s: statistics.median(v[s]) for s in v} for k, v in times.items()}
    print('Symbolicating %d threads through a local debuginfod (program and libc: %d runs each, median ms;'
          ' ratio: the tool\'s time over postmortem\'s)' % (THREADS, repeats))
    rows = []
    for tool in times:
        row = [tool]
        for state in ('cold', 'warm'):
            m = med[tool][state]
            row += ['%.0f' % m, '%.0f' % min(times[tool][state]),
                    '-' if tool == 'postmortem' else '%.1fx' % (m / med['postmortem'][state])]
        rows.append(row + [lines[tool]])
    table(['tool', 'cold ms', 'cold min', 'cold ratio', 'warm ms', 'warm min', 'warm ratio', 'frames with file:line'],
          rows)
    print('load average (1, 5, 15 min): %s before, %s after' % (' '.join(load_before), ' '.join(load_after)))


if __name__ == '__main__':
    main()
