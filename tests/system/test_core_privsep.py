#!/usr/bin/env python3
"""Root never opens what a user chose (docs/system-reporter.md, "What runs
as whom"): the handler reads a crashed process's mapped files through
/proc/<pid>/map_files, the very inodes mapped, never by the paths the core
names.

1. An execute-only binary (chmod 0111: the kernel marks it not dumpable by
   its user, so its report is root's, in the private spool) loads a library
   and maps two files from a directory of its user's; while it is dumped,
   that directory is swapped for a link to a root-only directory holding
   another copy of the library (the same code, its crashing frame named
   otherwise), a character device and a FIFO under the same names.  Nothing
   of root's is opened (inotify on each: a watch the test shows it sees),
   and the report names the frame as the user's library does, read from
   that library's own file (the frame is a static function: only the
   file's .symtab names it).
2. A process in another mount namespace maps its own files at paths that on
   the host are that root-only library, a device and a FIFO: the host's
   files are never opened, and its report (in the per-user spool) is
   symbolized from the container's library.

The swap comes while the handler is held (its pause, <sysdir>/test-pause)
and once the kernel has written the notes (the crashed process waits on
the pipe).  The test makes its users and removes them, and puts the kernel
settings back however it ends (kernel_settings.py: the analysis identity enable makes too).

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS.
"""
import ctypes
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from crashes import as_user, mkdir, owner_mode, set_pauses, wait_dumping  # noqa: E402
from reports import twin, written  # noqa: E402
from reporter_on import ReporterOn  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
DLSWAP = os.path.join(BUILD, 'tests', 'sys_dlswap')
USER_LIB = os.path.join(BUILD, 'tests', 'libswap_user.so')
ROOT_LIB = os.path.join(BUILD, 'tests', 'libswap_root.so')
USER = 'pmsyspriv'
NAMES = ('libpmswap.so', 'libdev.so', 'libfifo.so')
IN_ACCESS, IN_CLOSE_NOWRITE, IN_OPEN = 0x1, 0x10, 0x20


class Watch:
    """inotify on files: whatever opens or reads them, whoever does."""

    def __init__(self, paths):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        self.names = {}
        for p in paths:
            wd = self.libc.inotify_add_watch(self.fd, p.encode(), IN_OPEN | IN_ACCESS | IN_CLOSE_NOWRITE)
            if wd < 0:
                raise OSError(ctypes.get_errno(), 'inotify_add_watch ' + p)
            self.names[wd] = p

    def events(self):
        got = []
        while True:
            try:
                buf = os.read(self.fd, 65536)
            except BlockingIOError:
                return got
            at = 0
            while at + 16 <= len(buf):
                wd, mask, _, n = struct.unpack_from('iIII', buf, at)
                got.append((self.names.get(wd, '?'), mask))
                at += 16 + n

    def close(self):
        os.close(self.fd)


def roots_files(d):
    """The root-only copies of NAMES in d: the other library, a character device (/dev/null's numbers), a FIFO."""
    shutil.copy(ROOT_LIB, os.path.join(d, NAMES[0]))
    os.chmod(os.path.join(d, NAMES[0]), 0o600)
    os.mknod(os.path.join(d, NAMES[1]), 0o600 | 0o020000, os.makedev(1, 3))
    os.mkfifo(os.path.join(d, NAMES[2]), 0o600)
    return [os.path.join(d, n) for n in NAMES]


def users_files(d, uid, gid):
    shutil.copy(USER_LIB, os.path.join(d, NAMES[0]))
    for n in NAMES[1:]:
        with open(os.path.join(d, n), 'wb') as f:
            f.write(b'\0' * 4096)
    for n in NAMES:
        os.chown(os.path.join(d, n), uid, gid)
        os.chmod(os.path.join(d, n), 0o644)
    return [os.path.join(d, n) for n in NAMES]


def frames_of(base):
    """Its frames' symbols (gcc's clones, .constprop.0, by their function's name) and its JSON twin."""
    doc = twin(base)
    return [(f.get('symbol') or '').split('.')[0] for t in doc['threads'] for f in t.get('frames', [])], doc


def watched_untouched(watch, files, what):
    ev = watch.events()
    check(not ev, '%s: nothing of root\'s opened or read (%s)' % (what, ev or 'no inotify event'))
    # The watch sees an open: it could have seen the handler's.
    os.close(os.open(files[0], os.O_RDONLY))
    check(any(p == files[0] and m & IN_OPEN for p, m in watch.events()), '%s: (the watch sees an open)' % what)


def swapped_library(work, sysdir, user, kmsg):
    home = mkdir(os.path.join(work, 'home'), user.pw_uid)
    libs = mkdir(os.path.join(home, 'libs'), user.pw_uid)
    mine = users_files(libs, user.pw_uid, user.pw_gid)
    rootonly = mkdir(os.path.join(work, 'rootonly'), 0, 0o700)
    theirs = roots_files(rootonly)
    prog = os.path.join(home, 'prog')
    shutil.copy(DLSWAP, prog)
    os.chown(prog, user.pw_uid, user.pw_gid)
    os.chmod(prog, 0o111)
    watch = Watch(theirs + [rootonly])
    set_pauses(sysdir, 'proc 1500\n')
    p = subprocess.Popen([prog] + mine, env={}, preexec_fn=as_user(user), cwd=home,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dumping = wait_dumping(p.pid)
    # The swap: the user's directory goes, a link to root's comes in its place.
    os.rename(libs, libs + '.real')
    os.symlink(rootonly, libs)
    st = p.wait(timeout=300)
    set_pauses(sysdir, None)
    line = kmsg.line(p.pid)
    os.unlink(libs)
    os.rename(libs + '.real', libs)
    check(dumping and st == -11, 'an execute-only binary crashed in its library, and was swapped under while it '
          'was dumped (status %s, %s)' % (st, p.stderr.read().decode().strip()))
    private = os.path.join(sysdir, 'private', str(user.pw_uid), 'pending')
    reports = list(written(private).values()) if os.path.isdir(private) else []
    check(len(reports) == 1 and 'private spool' in line and 'written' in line and '65534' not in line,
          'its report in the private spool, made by the analysis identity: %s' % line)
    watched_untouched(watch, theirs, 'the library directory swapped for a link to root\'s')
    watch.close()
    if reports:
        frames, doc = frames_of(reports[0])
        paths = [i.get('path') for i in doc['images']]
        check('swap_user_frame' in frames and 'swap_root_frame' not in frames and mine[0] in paths,
              'the report\'s frames are the user\'s library\'s, read from its own file, named where the core '
              'named it (%s; %s)' % (frames, mine[0] in paths))
        check([owner_mode(reports[0] + e) for e in ('.crash', '.json', '.dmp')] == [(0, 0o600)] * 3,
              'its files are root\'s, 0600')


def container(work, sysdir, user, kmsg):
    ctr = mkdir(os.path.join(work, 'ctr'))
    theirs = roots_files(ctr)
    src = mkdir(os.path.join(work, 'src'))
    users_files(src, user.pw_uid, user.pw_gid)
    shutil.copy(DLSWAP, os.path.join(src, 'prog'))
    watch = Watch(theirs + [ctr])
    # In its own mount namespace: ctr is a tmpfs holding the user's files under root's names.
    script = ('mount -t tmpfs -o mode=0755 pm-ctr {c} && cp -p {s}/* {c}/ && exec setpriv --reuid={u} '
              '--regid={g} --clear-groups {c}/prog {files}').format(
                  c=ctr, s=src, u=user.pw_uid, g=user.pw_gid, files=' '.join(os.path.join(ctr, n) for n in NAMES))
    p = subprocess.Popen(['unshare', '-m', '--propagation', 'private', 'sh', '-c', script], env={},
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    st = p.wait(timeout=300)
    line = kmsg.line(p.pid)
    spool = os.path.join(sysdir, 'users', str(user.pw_uid), 'pending')
    reports = list(written(spool).values()) if os.path.isdir(spool) else []
    check(st == -11 and len(reports) == 1 and 'another mount namespace' in line,
          'a process in another mount namespace: its report in the per-user spool (status %s, %s): %s' %
          (st, p.stderr.read().decode().strip(), line))
    watched_untouched(watch, theirs, 'a container\'s paths that name root\'s files on the host')
    watch.close()
    if reports:
        frames, doc = frames_of(reports[0])
        check('swap_user_frame' in frames and 'swap_root_frame' not in frames and
              os.path.join(ctr, NAMES[0]) in [i.get('path') for i in doc['images']],
              'its frames are read from the container\'s library, named by its path there (%s)' % frames)
        check(owner_mode(reports[0] + '.crash') == (user.pw_uid, 0o600), 'its files are the user\'s, 0600')


def main():
    with ReporterOn(BUILD, USER) as on:
        on.settings.set('core')
        on.enable()
        swapped_library(on.work, on.sysdir, on.user, on.kmsg)
        container(on.work, on.sysdir, on.user, on.kmsg)
    finish()


if __name__ == '__main__':
    main()
