#!/usr/bin/env python3
"""Issue 32: a crash to its report with the system reporter, beside what a
machine would otherwise run on the same crash.

Each run crashes core_target.c (THREADS threads 30 frames deep, MIB MiB
resident, no postmortem in it) under a kernel.core_pattern set here and put
back whatever happens (tests/system/kernel_settings.py), and times from the
fault (the target prints CLOCK_MONOTONIC just before it) to:

  postmortem        `postmortem system enable`: the handler has read the core
                    from the pipe and landed the report (.crash, .json, .dmp,
                    each durable).  The kernel reaps the process once the
                    handler is done (core_pipe_limit > 0): the time is the
                    fault to the reaping.  Its log line says how long it read
                    and how long the report's child took, and the peak RSS of
                    both.  Again with the reports on /dev/shm, where fsync
                    costs nothing: the disk's share.
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

Runs alternate (postmortem, core file + gdb + eu-stack, systemd-coredump) so
that noise on the machine hits each alike; medians of REPEATS runs, ratios
of the medians in one run.  Needs root.

usage: core_handler.py CORE_TARGET POSTMORTEM_CLI [REPEATS]
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
from kernel_settings import KernelSettings  # noqa: E402
from kmsg import Kmsg  # noqa: E402

from benchlib import table  # noqa: E402

CONFIGS = [(t, m) for m in (100, 1024) for t in (1, 17, 257)]
COREDUMP_SOCKET = '/run/systemd/coredump'
JOURNAL_SOCKET = '/run/systemd/journal/socket'
COREDUMP_STORE = '/var/lib/systemd/coredump'
TMPFS = '/dev/shm'
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


def postmortem(target, cli, threads, mib, parent, work, settings, kmsg):
    """The system reporter on one crash, its reports under parent: a dict of its times (ms), frames and peaks."""
    sysdir, reports = os.path.join(work, 'sys'), tempfile.mkdtemp(prefix='pm-bench-reports-', dir=parent)
    settings.set('core', suid_dumpable=None)
    subprocess.run([cli, 'system', 'enable', '--state-dir', sysdir], check=True, capture_output=True)
    try:
        ms, pid, _ = crash(target, threads, mib, {'POSTMORTEM_DIR': reports})
    finally:
        subprocess.run([cli, 'system', 'disable', '--state-dir', sysdir], check=True, capture_output=True)
        shutil.rmtree(reports, ignore_errors=True)
    line = kmsg.line(pid)
    m = re.search(r'written .*?\((\d+) threads, (\d+) frames\).*read in (\d+) ms, reported in (\d+) ms; '
                  r'peak rss (\d+) KiB, the report\'s (\d+) KiB', line)
    if not m or int(m.group(1)) != threads:
        raise RuntimeError('no report of %d threads: %s' % (threads, line))
    frames, read, report, rss, rss_report = map(int, m.groups()[1:])
    return {'ms': ms, 'frames': frames, 'read': read, 'report': report, 'rss': rss, 'rss_report': rss_report}


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
    return '%.1fx / %.1fx' % (min(other) / min(pm), med(other) / med(pm)) if other else '-'


def main():
    if sys.argv[1:2] == ['--service']:
        return service(sys.argv[2:])
    target, cli = sys.argv[1], sys.argv[2]
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    timing, parts, sizes = [], [], []
    with tempfile.TemporaryDirectory(prefix='pm-bench-core-') as work, KernelSettings() as settings:
        kmsg, sdc = Kmsg(), Coredump(work)
        try:
            for threads, mib in CONFIGS:
                pm, shm, dbg, sd = [], [], [], []
                for _ in range(repeats):
                    pm.append(postmortem(target, cli, threads, mib, None, work, settings, kmsg))
                    dbg.append(debuggers(target, threads, mib, work, settings))
                    if os.path.isdir(TMPFS):
                        shm.append(postmortem(target, cli, threads, mib, TMPFS, work, settings, kmsg))
                    if not sdc.why:
                        sd.append(sdc.run(target, threads, mib, settings))
                pm_ms, shm_ms = [r['ms'] for r in pm], [r['ms'] for r in shm]
                gdb_ms, eu_ms = [r[0] + r[1] for r in dbg], [r[0] + r[4] for r in dbg]
                sd_ms = [r[0] for r in sd]
                timing.append([threads, mib, span(pm_ms), span(shm_ms), span(gdb_ms), span(eu_ms), span(sd_ms),
                               ratio(gdb_ms, pm_ms), ratio(eu_ms, pm_ms), ratio(sd_ms, pm_ms)])
                parts.append([threads, mib, '%.0f' % med(pm_ms), '%.0f' % med([r['read'] for r in pm]),
                              '%.0f' % med([r['report'] for r in pm]), '%.0f' % med([r['report'] for r in shm]),
                              '%.0f' % med([r[0] for r in dbg]), '%.0f' % med([r[1] for r in dbg]),
                              '%.0f' % med([r[4] for r in dbg])])
                sizes.append([threads, mib, pm[0]['frames'], dbg[0][3], dbg[0][6], sd[0][2] if sd else '-',
                              max(r['rss'] for r in pm), max(r['rss_report'] for r in pm),
                              max(r[2] for r in dbg), max(r[5] for r in dbg), max(r[1] for r in sd) if sd else '-'])
                print('.', end='', flush=True, file=sys.stderr)
        finally:
            sdc.close()
    print()
    print('(a) the fault to a backtrace, ms, min / median of %d runs: postmortem\'s report landed (its files durable'
          ' on the disk, and on %s); the kernel\'s core file written then gdb -batch "thread apply all bt" on it,'
          ' or eu-stack --core; systemd-coredump\'s service done (core stored, stack trace logged); ratios: the'
          ' other\'s time / postmortem\'s on the disk, min / median' % (repeats, TMPFS))
    table(['threads', 'MiB', 'postmortem', 'pm tmpfs', 'fault->gdb', 'fault->eu-stack', 'systemd-coredump',
           'gdb/pm', 'eu/pm', 'sd/pm'], timing)
    print()
    print('(b) where the time goes, medians in ms: postmortem in all, the core read from the pipe, the report\'s'
          ' child (capture and landing; on tmpfs too); the kernel\'s core file, gdb and eu-stack alone on it')
    table(['threads', 'MiB', 'postmortem', 'read', 'report', 'report tmpfs', 'core file', 'gdb', 'eu-stack'], parts)
    print()
    print('(c) frames each printed (one run) and peak RSS in KiB (the largest of the runs): the handler, its'
          ' report\'s child, gdb, eu-stack, systemd-coredump\'s service')
    table(['threads', 'MiB', 'frames pm', 'frames gdb', 'frames eu', 'frames sd', 'rss handler', 'rss report',
           'rss gdb', 'rss eu', 'rss sd'], sizes)
    if sdc.why:
        print('\nsystemd-coredump not measured: %s' % sdc.why)


if __name__ == '__main__':
    main()
