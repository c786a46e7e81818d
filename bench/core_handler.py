#!/usr/bin/env python3
"""Issues 32 and 39: a crash to its report with the system reporter, beside
what a machine would otherwise run on the same crash, and this handler
beside an earlier one (--before: main's, say) in the same run.

Each run crashes core_target.c (THREADS threads 30 frames deep, MIB MiB
resident, no postmortem in it) under a kernel.core_pattern set here and put
back whatever happens (tests/system/kernel_settings.py), and times from the
fault (the target prints CLOCK_MONOTONIC just before it) to:

  postmortem        `postmortem system enable --handler` of a root's copy of
                    this build's handler (and of --before's): the handler has
                    landed the report (.crash, .json, .dmp, each durable) and
                    let the kernel end the dump: the time of its line in the
                    kernel's log (set against CLOCK_MONOTONIC by a line the
                    benchmark writes there).  The kernel reaps the process
                    once the handler is done (core_pipe_limit > 0), after it
                    has freed the process's memory: the fault to the reaping
                    too.  The line says how long it read and how long the
                    report's child took, and the peak RSS of both.  Without a previous handler
                    (the core read to its notes' end: issue 39), and with one
                    (a pipe handler that reads every byte: `cat > /dev/null`),
                    which gets the whole core as before.
  core file         the kernel's own core file written (core_pattern a path,
                    RLIMIT_CORE unlimited): where gdb and eu-stack start from.
  gdb, eu-stack     `gdb -batch -ex 'thread apply all bt' EXE CORE` and
                    `eu-stack --core CORE --executable EXE` on that file: their
                    own time and peak RSS (wait4), and the fault to their
                    backtrace (the core file's time plus theirs).
  systemd-coredump  Debian's, as the pipe handler the same way (its pattern of
                    /usr/lib/sysctl.d/50-coredump.conf), with its service run
                    by systemd-socket-activate on /run/systemd/coredump (no
                    systemd as PID 1 is needed for it): the fault to the end
                    of the service instance, which has stored the core and
                    logged the crash with its own stack trace to the journal
                    (a stand-in socket when no journald runs, which checks
                    the trace came).  Its binary: $PM_SYSTEMD_COREDUMP, else
                    /lib/systemd/systemd-coredump; without one, its columns
                    say why.
  the endless core  --endless PROGRAM (tests/system/programs/endless.c: 64
                    TiB mapped, a page touched in each GiB, 70 TB through a
                    pipe): the fault to the reaping with no previous handler
                    and with `cat > /dev/null` (the stream's caps: 32 GiB,
                    300 s), and --before's, which reads it to its end, killed
                    (with the process) after ENDLESS_S seconds.

Runs alternate so that noise on the machine hits each alike; medians of
REPEATS runs, ratios of the medians in one run.  Needs root.

usage: core_handler.py CORE_TARGET POSTMORTEM_CLI [REPEATS] [--before HANDLER] [--endless PROGRAM]
"""
import glob
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'tests', 'system'))
from handler_copy import HANDLER, executable_dir  # noqa: E402
from kernel_settings import KernelSettings  # noqa: E402
from kmsg import Kmsg  # noqa: E402

from benchlib import table  # noqa: E402

# THREADSxMIB,... in $PM_BENCH_CONFIGS to run fewer or others.
CONFIGS = [tuple(map(int, c.split('x'))) for c in os.environ.get('PM_BENCH_CONFIGS', '').split(',') if c] or \
    [(t, m) for m in (100, 1024) for t in (1, 17)]
ENDLESS_S = 60
COREDUMP_SOCKET = '/run/systemd/coredump'
JOURNAL_SOCKET = '/run/systemd/journal/socket'
COREDUMP_STORE = '/var/lib/systemd/coredump'
COREDUMP_PATTERN = '|%s %%P %%u %%g %%s %%t 9223372036854775808 %%h %%d'


def unlimited_core():
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def crash(target, threads, mib, env, core_limit=False):
    """Run the target to its end: (ms from the fault to its reaping, its pid, the fault's CLOCK_MONOTONIC ns)."""
    p = subprocess.Popen([target, str(threads), str(mib)], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, preexec_fn=unlimited_core if core_limit else None)
    out = p.stdout.read()
    p.wait(timeout=900)
    reaped = time.monotonic_ns()
    if p.returncode != -11 or not out.strip():
        raise RuntimeError('the target ended with %d' % p.returncode)
    fault = int(out.split()[0])
    return (reaped - fault) / 1e6, p.pid, fault


def timed(argv):
    """(ms, peak RSS KiB, stdout) of argv."""
    t0 = time.monotonic_ns()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, _, ru = os.wait4(p.pid, 0)
    return (time.monotonic_ns() - t0) / 1e6, ru.ru_maxrss, out.decode(errors='replace')


class Handlers:
    """Root's copies of the handlers to compare, each in a directory of its own (its name is the
    pattern's), in a short directory of root's (tests/system/handler_copy.py's rule)."""
    def __init__(self, named):
        self.dir = tempfile.mkdtemp(prefix='pm-', dir=executable_dir())
        os.chmod(self.dir, 0o755)
        self.path = {}
        for name, src in named.items():
            os.mkdir(os.path.join(self.dir, name[0]), 0o755)
            self.path[name] = os.path.join(self.dir, name[0], HANDLER)
            shutil.copy(src, self.path[name])
            os.chmod(self.path[name], 0o755)

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def previous_script(work):
    path = os.path.join(work, 'cat.sh')
    with open(path, 'w') as f:
        f.write('#!/bin/sh\nexec cat > /dev/null\n')
    os.chmod(path, 0o755)
    return '|' + path


def postmortem(cli, handler, argv, previous, work, settings, kmsg, kill_after=None):
    """The system reporter (handler) on one crash of argv, previous the pattern it replaces: a dict of its
    times (ms), frames, bytes read and peaks."""
    sysdir = os.path.join(work, 's')
    settings.set(previous, suid_dumpable=None)
    e = subprocess.run([cli, 'system', 'enable', '--state-dir', sysdir, '--handler', handler], capture_output=True,
                       text=True)
    if e.returncode != 0:
        raise RuntimeError('enable: %s' % e.stderr.strip())
    reports = tempfile.mkdtemp(prefix='pm-bench-reports-')
    try:
        p = subprocess.Popen(argv, env={'POSTMORTEM_DIR': reports}, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        out = p.stdout.readline()
        fault = int(out.split()[0]) if out.strip() else time.monotonic_ns()
        try:
            p.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            p.kill()  # a dumping process dies of it: the kernel's dump ends
            p.wait()
        ms = (time.monotonic_ns() - fault) / 1e6
    finally:
        subprocess.run([cli, 'system', 'disable', '--state-dir', sysdir], check=True, capture_output=True)
        shutil.rmtree(reports, ignore_errors=True)
    line, done = kmsg.line(p.pid), kmsg.stamp(p.pid)
    m = re.search(r'core (\d+) bytes.*?(?:written .*?\((\d+) threads, (\d+) frames\).*?)?read in (\d+) ms, '
                  r'reported in (\d+) ms.*?peak rss (\d+) KiB, the report\'s (\d+) KiB', line)
    if not m or (kill_after is None and not m.group(3)):
        raise RuntimeError('no report: %s' % line)
    read, report, rss, rss_report = map(int, m.groups()[3:])
    return {'ms': (done - fault) / 1e6, 'reaped': ms, 'frames': int(m.group(3) or 0), 'bytes': int(m.group(1)), 'read': read, 'report': report,
            'rss': rss, 'rss_report': rss_report, 'line': line}


def debuggers(target, threads, mib, work, settings):
    """The kernel's core file, then gdb's and eu-stack's backtraces of it."""
    cores = os.path.join(work, 'cores')
    os.makedirs(cores, exist_ok=True)
    settings.set(os.path.join(cores, 'core.%p'), suid_dumpable=None)
    try:
        core_ms, pid, _ = crash(target, threads, mib, {}, core_limit=True)
    finally:
        settings.restore()
    core = os.path.join(cores, 'core.%d' % pid)
    gdb = timed(['gdb', '-nx', '-batch', '-ex', 'thread apply all bt', target, core])
    eu = timed(['eu-stack', '--core=' + core, '--executable=' + target])
    os.unlink(core)
    for name, (_, _, out), thread_re in (('gdb', gdb, r'^Thread \d+ '), ('eu-stack', eu, r'^TID \d+:')):
        if len(re.findall(thread_re, out, re.M)) != threads:
            raise RuntimeError('%s listed %d threads of %d' % (name, len(re.findall(thread_re, out, re.M)), threads))
    return core_ms, gdb[0], gdb[1], len(re.findall(r'^#\d+ ', gdb[2], re.M)), eu[0], eu[1], \
        len(re.findall(r'^#\d+ ', eu[2], re.M))


class Journal:
    """A stand-in for journald's socket: the messages systemd-coredump logs, kept."""
    def __init__(self):
        self.messages, self.made = [], not os.path.exists(JOURNAL_SOCKET)
        self.made_dir = not os.path.isdir(os.path.dirname(JOURNAL_SOCKET))
        if not self.made:
            return
        os.makedirs(os.path.dirname(JOURNAL_SOCKET), exist_ok=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(JOURNAL_SOCKET)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        threading.Thread(target=self.receive, daemon=True).start()

    def receive(self):
        while True:
            try:
                data, anc, _, _ = self.sock.recvmsg(1 << 20, socket.CMSG_SPACE(4))
            except OSError:
                return
            for level, kind, fds in anc:  # a large entry comes as a memfd
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fd = int.from_bytes(fds[:4], sys.byteorder)
                    data = os.pread(fd, 1 << 26, 0)
                    os.close(fd)
            self.messages.append(data.decode(errors='replace'))

    def trace_of(self, pid):
        """The number of frames in systemd-coredump's stack trace of pid, or None."""
        for m in self.messages:
            if 'COREDUMP_PID=%d\n' % pid in m and 'Stack trace of thread' in m:
                return len(re.findall(r'^\s*#\d+ ', m, re.M))
        return None

    def close(self):
        if self.made:
            self.sock.close()
            os.unlink(JOURNAL_SOCKET)
        if self.made_dir:
            os.rmdir(os.path.dirname(JOURNAL_SOCKET))


def service(argv):
    """--service CODEDUMP LOG: systemd-coredump's service instance, its end and peak RSS logged."""
    coredump, log = argv
    pid = os.fork()
    if pid == 0:
        os.environ['LISTEN_PID'] = str(os.getpid())
        os.execv(coredump, [coredump])
    _, status, ru = os.wait4(pid, 0)
    with open(log, 'a') as f:
        f.write('%d %d %d\n' % (time.monotonic_ns(), status, ru.ru_maxrss))


class Coredump:
    """systemd-coredump as the pipe handler, its service behind systemd-socket-activate."""
    def __init__(self, work):
        self.binary = os.environ.get('PM_SYSTEMD_COREDUMP', '/lib/systemd/systemd-coredump')
        self.why = None
        if not os.access(self.binary, os.X_OK):
            self.why = 'no %s (Debian\'s systemd-coredump; its postinst sets kernel.core_pattern for the ' \
                       'machine, so the benchmark takes an unpacked copy: apt-get download systemd-coredump; ' \
                       'dpkg-deb -x it; PM_SYSTEMD_COREDUMP=<dir>/lib/systemd/systemd-coredump)' % self.binary
        elif not shutil.which('systemd-socket-activate'):
            self.why = 'no systemd-socket-activate (systemd) to run its service'
        elif os.path.exists(COREDUMP_SOCKET):
            self.why = '%s exists: a systemd-coredump service runs here already' % COREDUMP_SOCKET
        if self.why:
            return
        self.log = os.path.join(work, 'service.log')
        self.journal = Journal()
        self.activator = subprocess.Popen(['systemd-socket-activate', '--seqpacket', '-a', '-l', COREDUMP_SOCKET,
                                           sys.executable, os.path.abspath(__file__), '--service', self.binary,
                                           self.log], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(COREDUMP_SOCKET):
                break
            time.sleep(0.05)

    def run(self, target, threads, mib, settings):
        ends = len(open(self.log).readlines()) if os.path.exists(self.log) else 0
        settings.set(COREDUMP_PATTERN % self.binary, pipe_limit='16', suid_dumpable=None)
        try:
            _, pid, fault = crash(target, threads, mib, {})
        finally:
            settings.restore()
        for _ in range(1200):
            lines = open(self.log).readlines() if os.path.exists(self.log) else []
            if len(lines) > ends:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError('systemd-coredump\'s service did not end')
        end, status, rss = map(int, lines[ends].split())
        fault_ms = (end - fault) / 1e6
        for f in glob.glob(os.path.join(COREDUMP_STORE, 'core.*.*.*.%d.*' % pid)):
            os.unlink(f)
        frames = self.journal.trace_of(pid) if self.journal.made else -1
        if status != 0 or frames == 0 or frames is None:
            raise RuntimeError('systemd-coredump: status %d, stack trace of %s frames' % (status, frames))
        return fault_ms, rss, frames

    def close(self):
        if self.why:
            return
        self.activator.terminate()
        self.activator.wait()
        if os.path.exists(COREDUMP_SOCKET):
            os.unlink(COREDUMP_SOCKET)
        self.journal.close()


def med(xs):
    return statistics.median(xs)


def span(xs):
    return '%.0f / %.0f' % (min(xs), med(xs)) if xs else '-'


def ratio(other, pm):
    return '%.1fx / %.1fx' % (min(other) / min(pm), med(other) / med(pm)) if other and pm else '-'


def options(argv):
    opts, rest = {}, []
    while argv:
        a = argv.pop(0)
        if a in ('--before', '--endless'):
            opts[a[2:]] = argv.pop(0)
        else:
            rest.append(a)
    return rest, opts


def endless(cli, handlers, program, work, settings, kmsg):
    """The endless core, once each way: (what, seconds from the fault to its end, bytes read)."""
    runs = [('this handler, no previous handler', 'after', 'core', None),
            ('this handler, previous `cat > /dev/null`', 'after', previous_script(work), None)]
    if 'before' in handlers.path:
        runs.append(('--before\'s, no previous handler (killed at %d s)' % ENDLESS_S, 'before', 'core', ENDLESS_S))
    out = []
    for what, which, previous, kill_after in runs:
        r = postmortem(cli, handlers.path[which], [program], previous, work, settings, kmsg, kill_after)
        out.append([what, '%.1f' % (r['reaped'] / 1000), '%.1f' % (r['bytes'] / 1e9), r['rss'], r['rss_report']])
    return out


def main():
    if sys.argv[1:2] == ['--service']:
        return service(sys.argv[2:])
    args, opts = options(sys.argv[1:])
    target, cli = args[0], args[1]
    repeats = int(args[2]) if len(args) > 2 else 3
    build = os.path.dirname(os.path.dirname(os.path.realpath(cli)))
    named = {'after': os.path.join(build, 'system', HANDLER)}
    if 'before' in opts:
        named['before'] = opts['before']
    kinds = [k for k in ('after', 'before') if k in named]
    timing, chained, parts, sizes, ends = [], [], [], [], []
    # Short: the pattern holds the handler's path and the state directory's, in 127 bytes.
    with tempfile.TemporaryDirectory(prefix='pmb-', dir='/tmp') as work, KernelSettings() as settings:
        kmsg, sdc, handlers = Kmsg(), Coredump(work), Handlers(named)
        previous = previous_script(work)
        try:
            for threads, mib in CONFIGS:
                argv = [target, str(threads), str(mib)]
                pm = {k: [] for k in kinds}
                prev = {k: [] for k in kinds}
                dbg, sd = [], []
                for _ in range(repeats):
                    for k in kinds:
                        pm[k].append(postmortem(cli, handlers.path[k], argv, 'core', work, settings, kmsg))
                        prev[k].append(postmortem(cli, handlers.path[k], argv, previous, work, settings, kmsg))
                    dbg.append(debuggers(target, threads, mib, work, settings))
                    if not sdc.why:
                        sd.append(sdc.run(target, threads, mib, settings))
                after = [r['ms'] for r in pm['after']]
                before = [r['ms'] for r in pm['before']] if 'before' in pm else []
                gdb_ms, eu_ms = [r[0] + r[1] for r in dbg], [r[0] + r[4] for r in dbg]
                sd_ms = [r[0] for r in sd]
                timing.append([threads, mib, span(after), span(before), span(gdb_ms), span(eu_ms), span(sd_ms),
                               ratio(before, after), ratio(sd_ms, after), ratio(gdb_ms, after), ratio(eu_ms, after)])
                pa = [r['ms'] for r in prev['after']]
                pb = [r['ms'] for r in prev['before']] if 'before' in prev else []
                chained.append([threads, mib, span(pa), span(pb),
                                '%.2f / %.2f' % (min(pa) / min(pb), med(pa) / med(pb)) if pb else '-'])
                row = [threads, mib]
                for k in kinds:
                    row += ['%.0f' % med([r['ms'] for r in pm[k]]), '%.0f' % med([r['reaped'] for r in pm[k]]),
                            '%.0f' % med([r['read'] for r in pm[k]]),
                            '%.0f' % med([r['report'] for r in pm[k]]), '%.0f' % med([r['bytes'] for r in pm[k]]) ]
                parts.append(row)
                row = [threads, mib, pm['after'][0]['frames'], dbg[0][3], dbg[0][6], sd[0][2] if sd else '-']
                for k in kinds:
                    row += [max(r['rss'] for r in pm[k]), max(r['rss_report'] for r in pm[k])]
                sizes.append(row + [max(r[2] for r in dbg), max(r[5] for r in dbg),
                                    max(r[1] for r in sd) if sd else '-'])
                print('.', end='', flush=True, file=sys.stderr)
            if 'endless' in opts:
                ends = endless(cli, handlers, opts['endless'], work, settings, kmsg)
        finally:
            sdc.close()
            handlers.close()
    print()
    print('(a) the fault to a backtrace, ms, min / median of %d runs, no previous handler: this handler\'s report'
          ' landed (its files durable, its line logged), and --before\'s; the kernel\'s core file written then gdb -batch "thread'
          ' apply all bt" on it, or eu-stack --core; systemd-coredump\'s service done (core stored, stack trace'
          ' logged); ratios: the other\'s time / this handler\'s, min / median' % repeats)
    table(['threads', 'MiB', 'postmortem', 'before', 'fault->gdb', 'fault->eu-stack', 'systemd-coredump',
           'before/pm', 'sd/pm', 'gdb/pm', 'eu/pm'], timing)
    print()
    print('(b) with a previous pipe handler that reads every byte (cat > /dev/null): the fault to the handler\'s'
          ' line, ms, min / median; this handler / --before\'s')
    table(['threads', 'MiB', 'postmortem', 'before', 'pm/before'], chained)
    print()
    print('(c) where the time goes, medians in ms: the fault to the handler\'s line, and to the process reaped;'
          ' the core read from the pipe, the report\'s child (capture and landing), and the bytes read of the core;'
          ' this handler, then --before\'s')
    head = ['threads', 'MiB']
    for k in kinds:
        head += [k, 'reaped', 'read', 'report', 'bytes read']
    table(head, parts)
    print()
    print('(d) frames each printed (one run) and peak RSS in KiB (the largest of the runs): the handler and its'
          ' report\'s child (this one\'s, then --before\'s), gdb, eu-stack, systemd-coredump\'s service')
    head = ['threads', 'MiB', 'frames pm', 'frames gdb', 'frames eu', 'frames sd']
    for k in kinds:
        head += ['rss %s' % k, 'rss %s report' % k]
    table(head + ['rss gdb', 'rss eu', 'rss sd'], sizes)
    if ends:
        print()
        print('(e) the endless core (64 TiB mapped, a page touched in each GiB): seconds from the fault to the'
              ' reaping, GB read, peak RSS of the handler and of its report\'s child in KiB')
        table(['handler', 's', 'GB read', 'rss handler', 'rss report'], ends)
    if sdc.why:
        print('\nsystemd-coredump not measured: %s' % sdc.why)


if __name__ == '__main__':
    main()
