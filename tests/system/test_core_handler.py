#!/usr/bin/env python3
"""postmortem-core-handler under real kernel crashes: the facts it reads,
the credentials it writes with, where it decides reports go, what it
refuses, the previous handler it keeps working, that it always drains the
core, and its memory, which does not grow with the core.

The test enables the system reporter itself (`postmortem system enable
--state-dir`, as root), with kernel.core_pattern saved and put back whatever
happens (kernel_settings.py), and crashes real programs as root and as a
test user it creates (and removes), for whom the directories above the
build tree are made searchable while it runs (a checkout in a private
temporary directory), and put back.  Each crash's outcome is read from the
handler's line in the kernel's log (/dev/kmsg) and from the file system:
the report written where the process's pm_install would have put it, as
its user (owner, mode), one per crash (a storm of 20 included), none where
it is refused or the disk is full (a small tmpfs the test mounts), each read
back by the project's readers, the Apple parsers' rules and Breakpad's
minidump_stackwalk (reports.py).

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS, PM_BREAKPAD_BIN.
"""
import concurrent.futures
import glob
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from crashes import Searchable, crash, mkdir, owner_mode, test_user  # noqa: E402
from handler_copy import RootCopies, enable_args  # noqa: E402
from kernel_settings import KernelSettings, read  # noqa: E402
from kmsg import Kmsg  # noqa: E402
from reports import read_back, twin, written  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
STATIC = os.path.join(BUILD, 'tests', 'sys_crash_static')
THREADS = os.path.join(BUILD, 'tests', 'sys_threads17')
LINKED = os.path.join(BUILD, 'sample_crashes', 'crash_null_deref')
SHOW = os.path.join(BUILD, 'tests', 'core_show')
SPARSE = os.path.join(BUILD, 'tests', 'sys_sparse')
USER = 'pmsystest'
COPIES = None  # the handler's root's copy (handler_copy.py)


def one_report(pending, pid, uid, what):
    """The one report of pid in pending/: its three files uid's, 0600, read back whole; its base path."""
    found = written(pending) if os.path.isdir(pending) else {}
    mine = [b for b in found.values() if twin(b)['header'].get('pid') == pid]
    if not check(len(mine) == 1, '%s: one report of pid %d in %s (%d there)' % (what, pid, pending, len(found))):
        return None
    base = mine[0]
    modes = [owner_mode(base + ext) for ext in ('.crash', '.json', '.dmp')]
    check(modes == [(uid, 0o600)] * 3, '%s: its .crash, .json and .dmp are uid %d\'s, 0600 (%s)' % (what, uid, modes))
    bad = read_back(CLI, base)
    check(not bad, '%s: read back by postmortem, the Apple parsers\' rules and minidump_stackwalk%s' %
          (what, ''.join('\n    ' + b for b in bad)))
    doc = twin(base)
    check(any(e.get('key') == 'Report Source' and 'system reporter' in e.get('value', '')
              for e in doc['header'].get('extra', [])), '%s: it says the system reporter wrote it' % what)
    return base


def enable(sysdir, previous, settings):
    settings.set(previous)
    before = {n: read(n) for n in ('pattern', 'pipe_limit', 'suid_dumpable')}
    p = subprocess.run([CLI, 'system', 'enable'] + enable_args(COPIES, sysdir), capture_output=True, text=True)
    check(p.returncode == 0 and read('pattern').startswith(('|' + COPIES.handler).encode()),
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
    check(st == -11 and m and m.group(3) == '1' and 'uid 0 signal 11' in line and 'written' in line and
          'previous handler exited 0' in line, 'a root crash: the handler\'s line: %s' % line)
    check(owner_mode(os.path.join(work, 'root-reports', 'pending')) == (0, 0o700),
          'root\'s reports directory made as pm_install makes it (pending/ 0700)')
    one_report(os.path.join(work, 'root-reports', 'pending'), pid, 0, 'a root crash')
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
    base = one_report(os.path.join(home, 'reports', 'pending'), pid, user.pw_uid, 'a user\'s crash')
    if base:
        h = twin(base)['header']
        check(h.get('identifier') == 'sys_crash_static' and h.get('version') == '???',
              'no POSTMORTEM_APP_ID or _VERSION: pm_install\'s defaults (%s, %s)' % (h.get('identifier'),
                                                                                     h.get('version')))
    # Its own home, and its app's id and version.
    pid, _ = crash([STATIC], {'HOME': home, 'POSTMORTEM_APP_ID': 'com.example.static',
                              'POSTMORTEM_APP_VERSION': '1.2 (34)'}, user)
    check(owner_mode(os.path.join(home, '.local', 'state', 'postmortem', 'pending'))[0] == user.pw_uid,
          'no POSTMORTEM_DIR: ~/.local/state/postmortem, the user\'s: %s' % kmsg.line(pid))
    base = one_report(os.path.join(home, '.local', 'state', 'postmortem', 'pending'), pid, user.pw_uid,
                      'a user\'s crash with a home')
    if base:
        h = twin(base)['header']
        check(h.get('identifier') == 'com.example.static' and h.get('version') == '1.2 (34)',
              'POSTMORTEM_APP_ID and _VERSION of its environment, as pm_install takes them (%s, %s)' %
              (h.get('identifier'), h.get('version')))
    # No home: the per-user spool.
    pid, _ = crash([STATIC], {}, user)
    spool = os.path.join(sysdir, 'users', str(user.pw_uid))
    line = kmsg.line(pid)
    check(os.path.isdir(os.path.join(spool, 'pending')) and owner_mode(spool) == (user.pw_uid, 0o700) and
          owner_mode(os.path.join(spool, 'pending'))[0] == user.pw_uid and 'per-user spool' in line,
          'no home: %s, the user\'s: %s' % (spool, line))
    one_report(os.path.join(spool, 'pending'), pid, user.pw_uid, 'no home')
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
    one_report(os.path.join(private, 'pending'), pid, 0, 'a set-user-ID program')
    # An app with postmortem linked: its own report, and nothing added.
    app = os.path.join(home, 'app')
    pid, _ = crash([LINKED], {'POSTMORTEM_DIR': app}, user)
    line = kmsg.line(pid)
    reports = glob.glob(os.path.join(app, 'pending', '*.crash'))
    check(len(reports) == 1 and 'reported in-process already' in line and 'nothing added' in line and
          'Report Source:' not in open(reports[0]).read(),
          'an app with postmortem linked: one report (%d), its own, the handler adds nothing: %s' %
          (len(reports), line))
    full_disk(work, user, kmsg)
    memory_bound(kmsg, work)
    disable(sysdir, before)


def full_disk(work, user, kmsg):
    """A reports directory on a full disk: nothing written, nothing left half-written, and said."""
    small = mkdir(os.path.join(work, 'small'))
    subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=128k,mode=0755', 'pm-full-disk', small], check=True)
    try:
        reports = mkdir(os.path.join(small, 'reports'), user.pw_uid, 0o700)
        pending = mkdir(os.path.join(reports, 'pending'), user.pw_uid, 0o700)
        try:
            with open(os.path.join(small, 'fill'), 'wb') as f:
                while True:
                    f.write(b'x' * 4096)
                    f.flush()
        except OSError:
            pass
        pid, st = crash([THREADS], {'POSTMORTEM_DIR': reports}, user)
        line = kmsg.line(pid)
        # (.groups/, storm control's records, is the store's own, made before the report: not a piece of it.)
        pieces = [n for n in os.listdir(pending) if n != '.groups']
        check(st == -11 and 'not written: no room for the files' in line and pieces == [],
              'a full disk: no report and no piece of one in pending/ (%s): %s' % (pieces, line))
    finally:
        if subprocess.run(['umount', small]).returncode != 0:
            subprocess.run(['umount', '-l', small])


def memory_bound(kmsg, work):
    """A storm of 20 crashes of one uid at once, each handled (a report made in each of its 4 slots, the
    rest counted); memory that does not grow with the core."""
    storm = os.path.join(work, 'storm')
    with concurrent.futures.ThreadPoolExecutor(20) as ex:
        runs = list(ex.map(lambda _: crash([THREADS, 'big', '8'], {'POSTMORTEM_DIR': storm}), range(20)))
    lines = [kmsg.line(pid) for pid, _ in runs]
    made = [pid for (pid, _), l in zip(runs, lines) if ' 17 threads' in l and 'written' in l]
    over = [l for l in lines if 'reports under way already' in l]
    check(all(st == -11 for _, st in runs) and made and len(made) + len(over) == 20,
          'a storm of 20 crashes: every handler finished, %d wrote, %d found the uid\'s 4 slots taken (%d lines)'
          % (len(made), len(over), sum(bool(l) for l in lines)))
    pids = sorted(twin(b)['header'].get('pid') for b in written(os.path.join(storm, 'pending')).values())
    check(pids == sorted(made), 'a storm of 20 crashes: one report of each it wrote (%d reports)' % len(pids))
    peak = re.compile(r'peak rss (\d+) KiB, the report\'s (\d+) KiB')
    rss = [max(map(int, m.groups())) for m in (peak.search(l) for l in lines) if m]
    # (A storm's handler that has logged may hold its slot a moment more.)
    for _ in range(10):
        pid, _ = crash([THREADS, 'big', '400'], {'POSTMORTEM_DIR': storm})
        line = kmsg.line(pid)
        if 'under way already' not in line:
            break
        time.sleep(0.5)
    big = re.search(r'core (\d+) bytes', line)
    big_rss = peak.search(line)
    check(len(rss) == 20 and big and big_rss and int(big.group(1)) > 400 << 20 and
          max(map(int, big_rss.groups())) < max(rss) + 4096,
          'a core of %s bytes needs no more memory than the storm\'s, the report\'s child included (%s KiB '
          'against %s KiB at most)' % (big and big.group(1), big_rss and big_rss.groups(), max(rss) if rss else None))


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


def gdb_words(core, exe):
    """What gdb reads in a core: the crashed thread's pc and sp, and the word of each touched page."""
    cmd = ['gdb', '-batch', '-nx', '-ex', 'info registers rip rsp']
    for i in range(8):
        cmd += ['-ex', 'x/1gx %#x' % (0x200000000000 + i * (256 << 20))]
    return subprocess.run(cmd + [exe, core], capture_output=True, text=True, timeout=300).stdout


def sparse_previous(work, settings, user, kmsg):
    """A previous file pattern's core is written sparse, as the kernel writes its own: the same
    process (2 GiB mapped, 8 pages touched) dumped by the kernel itself and through the handler."""
    cores = mkdir(os.path.join(work, 'sparse'), 0, 0o1777)
    settings.set(os.path.join(cores, 'kernel.%p'))
    kpid, _ = crash([SPARSE], {}, user, core_limit=resource.RLIM_INFINITY)
    sysdir = os.path.join(work, 'sys')
    before = enable(sysdir, os.path.join(cores, 'chained.%p'), settings)
    pid, st = crash([SPARSE], {}, user, core_limit=resource.RLIM_INFINITY)
    line = kmsg.line(pid)
    disable(sysdir, before)
    kernel, chained = os.path.join(cores, 'kernel.%d' % kpid), os.path.join(cores, 'chained.%d' % pid)
    if not check(os.path.exists(kernel) and os.path.exists(chained),
                 'the kernel\'s core and the chained one are both there (%s): %s' % (os.listdir(cores), line)):
        return
    k, c = os.stat(kernel), os.stat(chained)
    print('note sparse core of %d bytes: the kernel\'s takes %d KiB, the chained %d KiB'
          % (c.st_size, k.st_blocks // 2, c.st_blocks // 2))
    check(c.st_size == k.st_size and c.st_size > 2 << 30,
          'the chained core is as long as the kernel\'s (%d, %d bytes)' % (c.st_size, k.st_size))
    check(c.st_blocks <= k.st_blocks + 128,
          'the chained core takes no more disk than the kernel\'s: %d KiB, the kernel\'s %d KiB'
          % (c.st_blocks // 2, k.st_blocks // 2))
    # The two processes ran apart (their stacks and pids differ): the same code and the same words.
    seen = lambda out: (re.findall(r'^rip .*(<.*>)$', out, re.M), re.findall(r'^(0x2000[0-9a-f]+):\s+(0x[0-9a-f]+)$', out, re.M))  # noqa: E731
    mine, theirs = seen(gdb_words(chained, SPARSE)), seen(gdb_words(kernel, SPARSE))
    check(len(mine[0]) == 1 and len(mine[1]) == 8 and mine == theirs and
          all(int(w, 16) == 0x5350415253450000 + i for i, (_, w) in enumerate(mine[1])),
          'gdb reads the chained core as it reads the kernel\'s: %s, kernel\'s %s' % (mine, theirs))


def unread_previous(work, settings, kmsg):
    """A previous handler that reads nothing: the core is read no further than the report needs."""
    sysdir = os.path.join(work, 'sys')
    before = enable(sysdir, '|/bin/true', settings)
    pid, st = crash([THREADS, 'big', '64'], {'POSTMORTEM_DIR': os.path.join(work, 'drain')})
    line = kmsg.line(pid)
    m = re.search(r'core (\d+) bytes crc32 [0-9a-f]{8} \((?:cut: its segments end at|to its notes\' end, of) (\d+)', line)
    check(st == -11 and m and int(m.group(1)) < 1 << 20 and int(m.group(2)) > 64 << 20 and 'written' in line and
          'after it stopped reading the core' in line, 'a previous handler that reads nothing: the core read no further '
          'than its notes and what it took, the report written: %s' % line)
    disable(sysdir, before)


def main():
    global COPIES
    user = test_user(USER)
    try:
        with tempfile.TemporaryDirectory(prefix='pm-sys-', dir='/tmp') as work, RootCopies(BUILD) as COPIES:
            os.chmod(work, 0o755)
            kmsg = Kmsg()
            with Searchable(BUILD), KernelSettings() as settings:
                piped_previous(work, settings, user, kmsg)
                file_previous(work, settings, user, kmsg)
                sparse_previous(work, settings, user, kmsg)
                unread_previous(work, settings, kmsg)
    finally:
        subprocess.run(['userdel', USER], stderr=subprocess.DEVNULL)
    finish()


if __name__ == '__main__':
    main()
