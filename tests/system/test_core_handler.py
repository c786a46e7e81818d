#!/usr/bin/env python3
"""postmortem-core-handler under real kernel crashes: the facts it reads,
the credentials it writes with, where it decides reports go, what it
refuses, the previous handler it keeps working, that it always drains the
core, and its memory, which does not grow with the core.

The test enables the system reporter itself (`postmortem system enable
--state-dir`, as root), with kernel.core_pattern saved and put back whatever
happens (kernel_settings.py), and crashes real programs as root and as a
test user it creates (and removes).  Each crash's outcome is read from the
handler's line in the kernel's log (/dev/kmsg) and from the file system.
No report is written yet (the engine's part, docs/system-reporter.md): the
reports directory is made, with its owner and mode, and the line says "not yet".

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS.
"""
import concurrent.futures
import glob
import os
import pwd
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from kernel_settings import KernelSettings, read  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
STATIC = os.path.join(BUILD, 'tests', 'sys_crash_static')
THREADS = os.path.join(BUILD, 'tests', 'sys_threads17')
LINKED = os.path.join(BUILD, 'sample_crashes', 'crash_null_deref')
SHOW = os.path.join(BUILD, 'tests', 'core_show')
USER = 'pmsystest'


class Kmsg:
    """The kernel's log from now on."""
    def __init__(self):
        self.fd = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)
        self.lines = []

    def line(self, pid):
        """The handler's line for the crash of pid."""
        for _ in range(100):
            while True:
                try:
                    rec = os.read(self.fd, 8192).decode(errors='replace')
                except BlockingIOError:
                    break
                except OSError:  # overwritten records: go on
                    continue
                self.lines.append(rec.split(';', 1)[-1].strip())
            for l in self.lines:
                if l.startswith('postmortem-core[') and ': pid %d (' % pid in l:
                    return l
            time.sleep(0.1)
        return ''


def crash(argv, env=None, user=None, core_limit=0, cwd='/'):
    """Run argv until it dies; its pid and status.  The kernel has run the handler by then."""
    def pre():
        resource.setrlimit(resource.RLIMIT_CORE, (core_limit, core_limit))
        if user:
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
    p = subprocess.Popen(argv, env=env or {}, preexec_fn=pre, cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    return p.pid, p.wait(timeout=300)


def owner_mode(path):
    st = os.lstat(path)
    return st.st_uid, stat.S_IMODE(st.st_mode)


def test_user():
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(['useradd', '--system', '--no-create-home', '--shell', '/usr/sbin/nologin', USER], check=True)
        return pwd.getpwnam(USER)


def mkdir(path, uid=0, mode=0o755):
    os.mkdir(path)
    os.chown(path, uid, uid and pwd.getpwuid(uid).pw_gid)
    os.chmod(path, mode)
    return path


def enable(sysdir, previous, settings):
    settings.set(previous)
    before = {n: read(n) for n in ('pattern', 'pipe_limit', 'suid_dumpable')}
    p = subprocess.run([CLI, 'system', 'enable', '--state-dir', sysdir], capture_output=True, text=True)
    check(p.returncode == 0 and read('pattern').startswith(b'|') and b'postmortem-core-handler' in read('pattern'),
          'enable points kernel.core_pattern at the handler: %s' % (p.stdout.strip() or p.stderr.strip()))
    return before


def disable(sysdir, before):
    p = subprocess.run([CLI, 'system', 'disable', '--state-dir', sysdir], capture_output=True, text=True)
    after = {n: read(n) for n in before}
    check(p.returncode == 0 and after == before and not os.path.exists(os.path.join(sysdir, 'state')),
          'disable puts back %s byte for byte' % before)


def piped_previous(work, settings, user, kmsg):
    """A previous pipe handler: it still gets its arguments and the whole core."""
    sysdir, rec = os.path.join(work, 'sys'), mkdir(os.path.join(work, 'rec'))
    script = os.path.join(work, 'record.sh')
    with open(script, 'w') as f:
        f.write('#!/bin/sh\necho "$@" > %s/$1.args\nexec /bin/cat > %s/$1.core\n' % (rec, rec))
    os.chmod(script, 0o755)
    before = enable(sysdir, '|%s %%p %%s %%e  x%%%%' % script, settings)
    status = subprocess.run([CLI, 'system', 'status', '--state-dir', sysdir], capture_output=True, text=True).stdout
    check('postmortem\'s: yes' in status and 'replaced: |%s %%p %%s %%e  x%%%%' % script in status,
          'status says the pattern is postmortem\'s and what it replaced')
    p = subprocess.run([CLI, 'system', 'status'], capture_output=True, text=True, preexec_fn=lambda: os.setuid(user.pw_uid))
    check(p.returncode == 1 and 'needs root' in p.stderr, 'status as a user: %s' % p.stderr.strip())

    home = mkdir(os.path.join(work, 'u'), user.pw_uid)
    # As root, into its POSTMORTEM_DIR: made root's, 0700; the previous handler fed byte for byte.
    pid, st = crash([STATIC], {'POSTMORTEM_DIR': os.path.join(work, 'root-reports')})
    line = kmsg.line(pid)
    m = re.search(r'core (\d+) bytes crc32 ([0-9a-f]{8}), (\d+) threads', line)
    check(st == -11 and m and m.group(3) == '1' and 'uid 0 signal 11' in line and 'not yet' in line and
          'previous handler exited 0' in line, 'a root crash: the handler\'s line: %s' % line)
    check(owner_mode(os.path.join(work, 'root-reports', 'pending')) == (0, 0o700),
          'root\'s reports directory made as pm_install makes it (pending/ 0700)')
    args = open(os.path.join(rec, '%d.args' % pid)).read().split() if os.path.exists(os.path.join(rec, '%d.args' % pid)) else []
    check(args == [str(pid), '11', 'sys_crash_stati', 'x%'], 'the previous handler got its arguments: %s' % args)
    got = open(os.path.join(rec, '%d.core' % pid), 'rb').read() if os.path.exists(os.path.join(rec, '%d.core' % pid)) else b''
    check(m and len(got) == int(m.group(1)) and '%08x' % zlib.crc32(got) == m.group(2),
          'the previous handler got the whole core, byte for byte (%d bytes)' % len(got))
    shown = subprocess.run([SHOW, os.path.join(rec, '%d.core' % pid)], capture_output=True, text=True).stdout
    check('threads 1' in shown and 'pid %d' % pid in shown, 'and it is a core of that crash')

    # As the user, into its POSTMORTEM_DIR: made with its credentials.
    pid, _ = crash([STATIC], {'POSTMORTEM_DIR': os.path.join(home, 'reports')}, user)
    line = kmsg.line(pid)
    check(owner_mode(os.path.join(home, 'reports')) == (user.pw_uid, 0o700) and
          owner_mode(os.path.join(home, 'reports', 'pending')) == (user.pw_uid, 0o700) and
          'uid %d' % user.pw_uid in line, 'a user\'s crash: its POSTMORTEM_DIR made as the user, 0700: %s' % line)
    # Its own home.
    pid, _ = crash([STATIC], {'HOME': home}, user)
    check(owner_mode(os.path.join(home, '.local', 'state', 'postmortem', 'pending'))[0] == user.pw_uid,
          'no POSTMORTEM_DIR: ~/.local/state/postmortem, the user\'s: %s' % kmsg.line(pid))
    # No home: the per-user spool.
    pid, _ = crash([STATIC], {}, user)
    spool = os.path.join(sysdir, 'users', str(user.pw_uid))
    line = kmsg.line(pid)
    check(os.path.isdir(os.path.join(spool, 'pending')) and owner_mode(spool) == (user.pw_uid, 0o700) and
          owner_mode(os.path.join(spool, 'pending'))[0] == user.pw_uid and 'per-user spool' in line,
          'no home: %s, the user\'s: %s' % (spool, line))
    # A directory only root may write: nothing written there.
    rootonly = mkdir(os.path.join(work, 'rootonly'), 0, 0o700)
    pid, _ = crash([STATIC], {'POSTMORTEM_DIR': os.path.join(rootonly, 'reports')}, user)
    line = kmsg.line(pid)
    check(os.listdir(rootonly) == [] and 'refused' in line, 'POSTMORTEM_DIR in a root-only directory: nothing '
          'written there, and the line says so: %s' % line)
    # Links planted at the reports path and at pending/.
    rootdir = mkdir(os.path.join(work, 'rootdir'))
    os.symlink(rootdir, os.path.join(home, 'link'))
    os.lchown(os.path.join(home, 'link'), user.pw_uid, user.pw_gid)
    pid, _ = crash([STATIC], {'POSTMORTEM_DIR': os.path.join(home, 'link')}, user)
    line = kmsg.line(pid)
    check(os.listdir(rootdir) == [] and 'refused' in line, 'a link to root\'s directory as the reports '
          'directory: nothing written: %s' % line)
    r2 = mkdir(os.path.join(home, 'r2'), user.pw_uid, 0o700)
    os.symlink(rootdir, os.path.join(r2, 'pending'))
    os.lchown(os.path.join(r2, 'pending'), user.pw_uid, user.pw_gid)
    pid, _ = crash([STATIC], {'POSTMORTEM_DIR': r2}, user)
    line = kmsg.line(pid)
    check(os.listdir(rootdir) == [] and 'refused %s' % r2 in line,
          'a link planted as pending/: not followed: %s' % line)
    # A set-user-ID program: the private spool, never the user's directory.
    suid = os.path.join(work, 'suid_prog')
    shutil.copy(STATIC, suid)
    os.chmod(suid, 0o4755)
    pid, _ = crash([suid], {'POSTMORTEM_DIR': os.path.join(home, 'suid-reports')}, user)
    line = kmsg.line(pid)
    private = os.path.join(sysdir, 'private', str(user.pw_uid))
    check(not os.path.exists(os.path.join(home, 'suid-reports')) and owner_mode(os.path.join(private, 'pending')) ==
          (0, 0o700) and owner_mode(os.path.join(sysdir, 'private')) == (0, 0o700) and 'private spool' in line,
          'a set-user-ID program: the private spool, root\'s alone: %s' % line)
    # An app with postmortem linked: its own report, and nothing added.
    app = os.path.join(home, 'app')
    pid, _ = crash([LINKED], {'POSTMORTEM_DIR': app}, user)
    line = kmsg.line(pid)
    reports = glob.glob(os.path.join(app, 'pending', '*.crash'))
    check(len(reports) == 1 and 'reported in-process already' in line and 'nothing added' in line,
          'an app with postmortem linked: one report (%d), the handler adds nothing: %s' % (len(reports), line))
    memory_bound(kmsg, work)
    disable(sysdir, before)


def memory_bound(kmsg, work):
    """A storm of 20 crashes at once, each handled; memory that does not grow with the core."""
    storm = os.path.join(work, 'storm')
    with concurrent.futures.ThreadPoolExecutor(20) as ex:
        runs = list(ex.map(lambda _: crash([THREADS, 'big', '8'], {'POSTMORTEM_DIR': storm}), range(20)))
    lines = [kmsg.line(pid) for pid, _ in runs]
    check(all(st == -11 for _, st in runs) and all(' 17 threads' in l for l in lines),
          'a storm of 20 crashes: every handler finished (%d lines)' % sum(bool(l) for l in lines))
    rss = [int(m.group(1)) for m in (re.search(r'peak rss (\d+) KiB', l) for l in lines) if m]
    pid, _ = crash([THREADS, 'big', '400'], {'POSTMORTEM_DIR': storm})
    line = kmsg.line(pid)
    big = re.search(r'core (\d+) bytes.*peak rss (\d+) KiB', line)
    check(len(rss) == 20 and big and int(big.group(1)) > 400 << 20 and int(big.group(2)) < max(rss) + 4096,
          'a core of %s bytes needs no more memory than the storm\'s (%s KiB against %s KiB at most)' %
          (big and big.group(1), big and big.group(2), max(rss) if rss else None))


def file_previous(work, settings, user, kmsg):
    """A previous file pattern: the core file still written where and as the kernel would have."""
    sysdir = os.path.join(work, 'sys')
    cores = mkdir(os.path.join(work, 'cores'), 0, 0o1777)
    before = enable(sysdir, os.path.join(cores, 'core.%p'), settings)
    pid, _ = crash([STATIC], {}, user, core_limit=resource.RLIM_INFINITY)
    line = kmsg.line(pid)
    m = re.search(r'core (\d+) bytes crc32 ([0-9a-f]{8})', line)
    path = os.path.join(cores, 'core.%d' % pid)
    data = open(path, 'rb').read() if os.path.exists(path) else b''
    check(m and owner_mode(path) == (user.pw_uid, 0o600) and len(data) == int(m.group(1)) and
          '%08x' % zlib.crc32(data) == m.group(2), 'core.%%p written as the user, 0600, the whole core: %s' % line)
    pid, _ = crash([STATIC], {}, user, core_limit=0)
    check(not os.path.exists(os.path.join(cores, 'core.%d' % pid)) and 'RLIMIT_CORE is 0' in kmsg.line(pid),
          'RLIMIT_CORE 0: no core file, as the kernel would have written none')
    disable(sysdir, before)


def unread_previous(work, settings, kmsg):
    """A previous handler that reads nothing: the core is still read to its end."""
    sysdir = os.path.join(work, 'sys')
    before = enable(sysdir, '|/bin/true', settings)
    pid, st = crash([THREADS, 'big', '64'], {'POSTMORTEM_DIR': os.path.join(work, 'drain')})
    line = kmsg.line(pid)
    m = re.search(r'core (\d+) bytes crc32', line)
    check(st == -11 and m and int(m.group(1)) > 64 << 20 and 'cut' not in line and
          'after it stopped reading the core' in line, 'a previous handler that reads nothing: the core still read '
          'whole: %s' % line)
    disable(sysdir, before)


def main():
    user = test_user()
    try:
        with tempfile.TemporaryDirectory(prefix='pm-sys-') as work:
            os.chmod(work, 0o755)
            kmsg = Kmsg()
            with KernelSettings() as settings:
                piped_previous(work, settings, user, kmsg)
                file_previous(work, settings, user, kmsg)
                unread_previous(work, settings, kmsg)
    finally:
        subprocess.run(['userdel', USER], stderr=subprocess.DEVNULL)
    finish()


if __name__ == '__main__':
    main()
