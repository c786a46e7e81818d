#!/usr/bin/env python3
"""The system reporter's reports, and core files converted, against gdb on
the same cores.

Kernel crashes under `postmortem system enable` (set and put back by the
test, kernel_settings.py) whose previous pattern was a file (core.%p in a
directory of the test's, RLIMIT_CORE unlimited): each crash leaves the
handler's report and the kernel's core of the same crash.  A static binary,
17 threads at different depths (one blocking every signal), a raw clone()
thread that overflows its stack: every thread of the core is in the report,
each with gdb's frames (`thread apply all bt` on that core, past main,
through bench/gdb_frames.py): the ELF symbol of each physical frame, in
order.  The kernel's core converted (`postmortem convert`) gives the same
frames as the handler's report.

Core files: gcore's of the 17 threads running (a snapshot) and stopped by
gdb at their SIGSEGV (a crash), converted and held to gdb's frames;
`--exe` and `--sysroot` for an executable that moved since; a FIFO where
the executable was and cores cut short (a report, or one line: never a
hang or a crash); `explain` and `symbolicate` of a core.

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS, PM_BREAKPAD_BIN.
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from handler_copy import RootCopies, enable_args  # noqa: E402
from kernel_settings import KernelSettings  # noqa: E402
from reports import frames_differ, gdb_threads, read_back, twin, written  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
HERE = os.path.join(BUILD, 'tests')
STATIC = os.path.join(HERE, 'sys_crash_static')
THREADS = os.path.join(HERE, 'sys_threads17')
OVERFLOW = os.path.join(HERE, 'sys_clone_overflow')


def convert(core, *args):
    """The report `postmortem convert` makes of a core (its JSON), or None; and what it said."""
    p = subprocess.run([CLI, 'convert', core, '--to', 'json'] + list(args), capture_output=True, text=True)
    return (json.loads(p.stdout) if p.returncode == 0 else None), p.stderr.strip()


def same_as_gdb(what, report, exe, core, threads):
    check(report and len(report['threads']) == threads and all(t.get('frames') for t in report['threads']),
          '%s: %d threads in the report, each with its frames (%s)' %
          (what, threads, report and [len(t.get('frames', [])) for t in report['threads']]))
    if not report:
        return
    bad = frames_differ(report, gdb_threads(exe, core))
    check(not bad, '%s: every thread\'s frames are gdb\'s on the same core%s' %
          (what, ''.join('\n    ' + b for b in bad)))


def kernel_crashes(work, settings, copies):
    sysdir, cores = os.path.join(work, 'sys'), os.path.join(work, 'cores')
    os.mkdir(cores)
    settings.set(os.path.join(cores, 'core.%p'))
    p = subprocess.run([CLI, 'system', 'enable'] + enable_args(copies, sysdir), capture_output=True, text=True)
    check(p.returncode == 0, 'enable over a file pattern: %s' % (p.stdout.strip() or p.stderr.strip()))
    runs = []
    try:
        for name, exe, n in (('a static binary', STATIC, 1), ('17 threads, one blocking every signal', THREADS, 17),
                             ('a raw clone() thread overflowing its stack', OVERFLOW, 2)):
            reports = os.path.join(work, os.path.basename(exe))
            unlimited = lambda: resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2)  # noqa: E731
            proc = subprocess.Popen([exe], env={'POSTMORTEM_DIR': reports}, preexec_fn=unlimited, cwd=work,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            proc.wait(timeout=300)
            runs.append((name, exe, n, proc, reports))
    finally:
        subprocess.run([CLI, 'system', 'disable', '--state-dir', sysdir], capture_output=True)
        settings.restore()
    for name, exe, n, proc, reports in runs:
        found = list(written(os.path.join(reports, 'pending')).values())
        core = os.path.join(cores, 'core.%d' % proc.pid)
        if not check(proc.returncode == -11 and len(found) == 1 and os.path.exists(core),
                     '%s: died of SIGSEGV, one report and the kernel\'s core (%s, %s)' % (name, found, core)):
            continue
        report = twin(found[0])
        check(report['exception'].get('signal') == 11 and report['threads'][0].get('crashed'),
              '%s: the crashed thread first, SIGSEGV' % name)
        same_as_gdb(name, report, exe, core, n)
        bad = read_back(CLI, found[0])
        check(not bad, '%s: read back whole%s' % (name, ''.join('\n    ' + b for b in bad)))
        converted, said = convert(core)
        check(converted and [[f.get('symbol') for f in t['frames']] for t in converted['threads']] ==
              [[f.get('symbol') for f in t['frames']] for t in report['threads']],
              '%s: the core converted gives the handler\'s frames %s' % (name, said))
        if exe == STATIC:
            moved(work, core, report)


def moved(work, core, report):
    """The static binary's core, its executable moved: its code is read from --exe."""
    gone = os.path.join(work, 'gone')
    os.mkdir(gone)
    exe = os.path.join(gone, 'sys_crash_static')
    shutil.copy(STATIC, exe)
    frames = [f.get('symbol') for f in report['threads'][0]['frames']]
    with tempfile.TemporaryDirectory(prefix='pm-root-', dir=work) as root:
        # The core names the executable by its path: under a sysroot, or given as --exe.
        os.makedirs(root + os.path.dirname(STATIC))
        shutil.copy(STATIC, root + STATIC)
        for args in (['--exe', exe], ['--sysroot', root]):
            got, said = convert(core, *args)
            check(got and [f.get('symbol') for f in got['threads'][0]['frames']] == frames and
                  got['header'].get('process_path') == STATIC and got['images'][0]['path'] == STATIC,
                  'convert %s: the executable read there, the report names it where the core does %s' %
                  (' '.join(args), said))
    p = subprocess.run([CLI, 'convert', os.path.join(os.environ['PM_SYSTEM_TESTS'], 'checks.py'), '--exe', exe],
                       capture_output=True, text=True)
    check(p.returncode == 2 and 'not an ELF core' in p.stderr, '--exe with a report that is no core: %s' %
          p.stderr.strip())
    hostile(work, core)


def hostile(work, core):
    """A core whose executable's path names a FIFO here, and cores cut short: a report or one line, never a
    hang or a crash."""
    with tempfile.TemporaryDirectory(prefix='pm-fifo-', dir=work) as root:
        os.makedirs(root + os.path.dirname(STATIC))
        os.mkfifo(root + STATIC)
        try:
            p = subprocess.run([CLI, 'convert', core, '--sysroot', root], capture_output=True, text=True, timeout=60)
            check(p.returncode == 0 and 'Thread 0 Crashed' in p.stdout,
                  'its executable a FIFO under --sysroot: the report, without the file %s' % p.stderr.strip())
        except subprocess.TimeoutExpired:
            check(False, 'its executable a FIFO under --sysroot: convert hung')
    data = open(core, 'rb').read()
    for keep in (64, 4096, len(data) // 2, len(data) - 1):
        cut = os.path.join(work, 'cut.core')
        with open(cut, 'wb') as f:
            f.write(data[:keep])
        p = subprocess.run([CLI, 'convert', cut], capture_output=True, text=True, timeout=60)
        check(p.returncode in (0, 1) and (p.returncode == 0 or p.stderr.count('\n') == 1),
              'a core cut to %d of %d bytes: status %d, %s' % (keep, len(data), p.returncode,
                                                             p.stderr.strip() or 'a report'))


def gcores(work):
    """gcore's cores: of the 17 threads running (a snapshot), and stopped by gdb at their SIGSEGV."""
    p = subprocess.Popen([THREADS, 'hold'], stdout=subprocess.PIPE, text=True)
    base = os.path.join(work, 'running')
    try:
        check(p.stdout.readline().strip() == 'ready', 'threads17 holds its 17 threads')
        subprocess.run(['gcore', '-o', base, str(p.pid)], capture_output=True, timeout=300)
    finally:
        p.kill()
        p.wait()
    core = '%s.%d' % (base, p.pid)
    report, said = convert(core)
    check(report and report.get('kind') == 'snapshot' and 'signal' not in report['exception'],
          'a gcore of a running process is a snapshot, not a crash %s' % said)
    same_as_gdb('gcore of 17 running threads', report, THREADS, core, 17)

    stopped = os.path.join(work, 'stopped.core')
    subprocess.run(['gdb', '-nx', '-batch', '-ex', 'run', '-ex', 'gcore ' + stopped, THREADS],
                   capture_output=True, timeout=300)
    report, said = convert(stopped)
    check(report and report['exception'].get('signal') == 11 and report['threads'][0].get('crashed'),
          'a gcore of a process gdb stopped at its SIGSEGV is that crash %s' % said)
    same_as_gdb('gcore at a SIGSEGV', report, THREADS, stopped, 17)
    for cmd in (['explain', '--no-debuginfod'], ['symbolicate', '--no-debuginfod']):
        p = subprocess.run([CLI, cmd[0], stopped] + cmd[1:], capture_output=True, text=True)
        check(p.returncode == 0 and 'main' in p.stdout, '%s of a core: %s' % (cmd[0], (p.stdout or p.stderr)[:200]))


def main():
    with tempfile.TemporaryDirectory(prefix='pm-sys-', dir='/tmp') as work:
        os.chmod(work, 0o755)
        with KernelSettings() as settings, RootCopies(BUILD) as copies:
            kernel_crashes(work, settings, copies)
        gcores(work)
    finish()


if __name__ == '__main__':
    main()
