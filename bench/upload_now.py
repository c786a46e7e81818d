#!/usr/bin/env python3
"""Issue 40: a crash delivered at once, by the uploader its handler starts.

crash_target.c's process (THREADS threads, 30 frames deep each) crashes with
POSTMORTEM_DSN pointing at a receiver on loopback in this process, and, in
the same round, with POSTMORTEM_UPLOAD=next-launch as well (today's
behaviour: nothing starts), the order alternated every round.  Times are on
CLOCK_MONOTONIC from the fault (crash_clock.c notes it just before the
faulting store), in ms:

  event    the fault to the event's envelope read whole by the receiver: the
           report written and durable, the uploader started, loaded, waiting
           for the crashed run to end (its session goes in the same envelope),
           the envelope built and sent (now only)
  start    what starting the uploader took inside the handler (its phase,
           pm_crash_phases.upload: the lock, the clone, the child until its
           execve let our memory go) (now only)
  durable  the fault to the on_crash callback, which runs after the report
           is durable and after the uploader was started (the minidump
           included)
  dead     the fault to waitpid returning the crashed process's signal here:
           what the dying process costs its parent

Each run gets a fresh reports directory (with a session: POSTMORTEM_APP_VERSION
set) and waits for its uploader to end before the next starts.

With INSTALL (bench_start_install, start_target.c), also what arming the start
costs every launch: pm_install in a fresh process, with POSTMORTEM_DSN set and
without, ROUNDS * 10 runs each, interleaved, in one reports directory (so the
lock file exists, as it does from an app's second launch on).

With --machine CORE_TARGET CLI (as root), the same fault-to-event machine-wide:
core_target.c (no postmortem in it, the same threads 30 frames deep) crashes as
an unprivileged user the benchmark makes, under `postmortem system enable --dsn`
of a root's copy of this build's core handler and uploader (the machine's crash
settings put back whatever happens: tests/system/kernel_settings.py); the
handler writes the report as the user and starts the uploader as the user.

usage: upload_now.py TARGET [ROUNDS] [THREADS[,THREADS...]] [INSTALL] [--machine CORE_TARGET CLI]
       (defaults 21 and 1,17)
"""
import http.server
import os
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time

from benchlib import clean_env, free_runs, table, timed_output


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    arrivals = []

    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length', 0)))
        Receiver.arrivals.append(time.monotonic_ns())
        self.send_response(200)
        self.send_header('Content-Length', '2')
        self.end_headers()
        self.wfile.write(b'{}')

    def log_message(self, *args):
        pass


def crash(target, threads, env):
    """(fault_at ns, dead ns, durable ns, start ns, reports dir) of one crash; raises unless SIGSEGV ended it."""
    d = tempfile.mkdtemp(prefix='pm-bench-now-')
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    e = clean_env(POSTMORTEM_DIR=d, POSTMORTEM_APP_VERSION='1.0', **env)
    pid = os.posix_spawn(target, [target, str(threads), 'crash'], e,
                         file_actions=[(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)])
    os.close(out_w)
    os.close(err_w)
    _, status = os.waitpid(pid, 0)
    dead = time.monotonic_ns()
    with os.fdopen(out_r) as f:
        out = f.read().split()
    with os.fdopen(err_r) as f:
        err = f.read().split()
    if not os.WIFSIGNALED(status) or os.WTERMSIG(status) != signal.SIGSEGV or len(out) < 2 or out[1] != '1':
        raise RuntimeError('%s: status %#x, %s %s' % (target, status, out, err))
    fault_at = int(err[err.index('fault_at') + 1])
    return fault_at, dead, fault_at + int(out[0]), int(out[9]), d


def uploader_done(d, timeout=30):
    """Wait until the uploader of d has written its last line."""
    log = os.path.join(d, 'upload.log')
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(log) as f:
                text = f.read()
            if ']: end:' in text:
                return text
        except FileNotFoundError:
            pass
        time.sleep(0.002)
    raise RuntimeError('the uploader of %s did not end' % d)


def ms(ns):
    return ns / 1e6


def stats(values):
    return '%.1f / %.1f' % (statistics.median(values), max(values))


def install_cost(install, dsn, runs):
    """pm_install's microseconds in a fresh process, median and worst, armed (a DSN) and not."""
    d = tempfile.mkdtemp(prefix='pm-bench-install-')
    got = {'without a destination': [], 'POSTMORTEM_DSN set': []}
    for r in range(runs):
        for name in (list(got) if r % 2 == 0 else list(reversed(list(got)))):
            env = clean_env(POSTMORTEM_DIR=d, **({'POSTMORTEM_DSN': dsn} if 'DSN' in name else {}))
            free_runs(d)
            got[name].append(float(timed_output(install, ['t'], env)[1][0]))
    shutil.rmtree(d, ignore_errors=True)
    print()
    table(['pm_install, fresh process', 'median us', 'worst us'],
          [[k, '%.0f' % statistics.median(v), '%.0f' % max(v)] for k, v in got.items()])


def machine_wide(core_target, cli, dsn, rounds, counts):
    """Rows of the fault to the event with the system reporter, per thread count (None: not root)."""
    if os.geteuid() != 0:
        return None
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'tests', 'system'))
    from crashes import as_user, mkdir
    from reporter_on import ReporterOn
    import subprocess
    rows = []
    with ReporterOn(os.path.dirname(os.path.dirname(os.path.realpath(cli))), 'pmbenchnow') as on:
        if on.enable('--dsn', dsn).returncode != 0:
            raise RuntimeError('system enable --dsn refused')
        for n in counts:
            event = []
            for r in range(rounds):
                d = mkdir(os.path.join(on.work, 'r%d-%d' % (n, r)), on.user.pw_uid, 0o700)
                before = len(Receiver.arrivals)
                proc = subprocess.Popen([core_target, str(n), '0'], env={'POSTMORTEM_DIR': d},
                                        stdout=subprocess.PIPE, preexec_fn=as_user(on.user))
                fault_at = int(proc.stdout.read().split()[0])
                proc.wait()
                text = uploader_done(d)
                if len(Receiver.arrivals) != before + 1:
                    raise RuntimeError('%d requests for one crash: %s' % (len(Receiver.arrivals) - before, text))
                event.append(ms(Receiver.arrivals[-1] - fault_at))
                shutil.rmtree(d, ignore_errors=True)
            rows.append([n, stats(event)])
    return rows


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    machine = None
    if '--machine' in sys.argv:
        at = sys.argv.index('--machine')
        machine = sys.argv[at + 1:at + 3]
        del sys.argv[at:at + 3]
    target = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 21
    counts = [int(t) for t in sys.argv[3].split(',')] if len(sys.argv) > 3 else [1, 17]
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    dsn = 'http://k3y@127.0.0.1:%d/42' % server.server_port
    print('load average before: %.2f %.2f %.2f' % os.getloadavg())
    print('%d rounds, ms from the fault, median / worst; now: POSTMORTEM_DSN set; next-launch: '
          'POSTMORTEM_UPLOAD=next-launch' % rounds)
    rows = []
    for n in counts:
        got = {'now': {'event': [], 'start': [], 'durable': [], 'dead': []}, 'next-launch': {'durable': [], 'dead': []}}
        for r in range(rounds):
            for mode in (['now', 'next-launch'] if r % 2 == 0 else ['next-launch', 'now']):
                env = {'POSTMORTEM_DSN': dsn}
                if mode == 'next-launch':
                    env['POSTMORTEM_UPLOAD'] = 'next-launch'
                before = len(Receiver.arrivals)
                fault_at, dead, durable, start, d = crash(target, n, env)
                if mode == 'now':
                    text = uploader_done(d)
                    if len(Receiver.arrivals) != before + 1:
                        raise RuntimeError('%d requests for one crash: %s' % (len(Receiver.arrivals) - before, text))
                    got[mode]['event'].append(ms(Receiver.arrivals[-1] - fault_at))
                    got[mode]['start'].append(ms(start))
                got[mode]['durable'].append(ms(durable - fault_at))
                got[mode]['dead'].append(ms(dead - fault_at))
                shutil.rmtree(d, ignore_errors=True)
        now, later = got['now'], got['next-launch']
        added = statistics.median(now['dead']) / statistics.median(later['dead']) - 1
        rows.append([n, stats(now['event']), '%.2f / %.2f' % (statistics.median(now['start']), max(now['start'])),
                     stats(now['durable']), stats(later['durable']), stats(now['dead']), stats(later['dead']),
                     '%+.0f%%' % (100 * added)])
    table(['threads', 'event (now)', 'start (now)', 'durable (now)', 'durable (next-launch)', 'dead (now)',
           'dead (next-launch)', 'dead: now / next-launch'], rows)
    if machine:
        rows_machine = machine_wide(machine[0], machine[1], dsn, rounds, counts)
        print()
        if rows_machine is None:
            print('machine-wide: not measured (root sets kernel.core_pattern)')
        else:
            print('machine-wide (`system enable --dsn`, a process without postmortem crashing as a user): ms from '
                  'the fault to the event, median / worst of %d; beside it, the app\'s own (event (now), above)' % rounds)
            in_app = {r[0]: r[1] for r in rows}
            table(['threads', 'event (machine-wide)', 'event (in the app)'],
                  [[n, m, in_app.get(n, '-')] for n, m in rows_machine])
    if len(sys.argv) > 4:
        install_cost(sys.argv[4], dsn, rounds * 10)
    print('load average after: %.2f %.2f %.2f' % os.getloadavg())
    server.shutdown()


if __name__ == '__main__':
    main()
