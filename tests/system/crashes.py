"""What the system tests share to crash real programs under the system reporter.

crash(argv, env, user, core_limit, cwd)  run argv until it dies: its pid and status
test_user(name)                          a system user of the test's, made if missing
as_user(user)                            a preexec_fn that becomes user (no groups)
Searchable()                             the directories above the build tree searchable
                                         by others while the test runs, put back after
mkdir(path, uid, mode), owner_mode(path)
set_pauses(sysdir, text)                 the handler's test pauses (system/handler.c,
                                         <sysdir>/test-pause), None to remove them
wait_dumping(pid)                        until the kernel dumping pid waits on the handler
"""
import os
import pwd
import resource
import stat
import subprocess
import time


def as_user(user):
    def become():
        os.setgroups([])
        os.setgid(user.pw_gid)
        os.setuid(user.pw_uid)
    return become


def crash(argv, env=None, user=None, core_limit=0, cwd='/'):
    """Run argv until it dies; its pid and status.  The kernel has run the handler by then."""
    def pre():
        resource.setrlimit(resource.RLIMIT_CORE, (core_limit, core_limit))
        if user:
            as_user(user)()
    p = subprocess.Popen(argv, env=env or {}, preexec_fn=pre, cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    return p.pid, p.wait(timeout=300)


def owner_mode(path):
    st = os.lstat(path)
    return st.st_uid, stat.S_IMODE(st.st_mode)


def test_user(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(['useradd', '--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name], check=True)
        return pwd.getpwnam(name)


def mkdir(path, uid=0, mode=0o755):
    os.mkdir(path)
    os.chown(path, uid, uid and pwd.getpwuid(uid).pw_gid)
    os.chmod(path, mode)
    return path


def set_pauses(sysdir, text):
    path = os.path.join(sysdir, 'test-pause')
    if text is None:
        if os.path.exists(path):
            os.unlink(path)
        return
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o600)


class Searchable:
    """The directories above the build tree that others may not search (a
    checkout in a private mkdtemp directory): opened to search for the test,
    whose user runs the build's programs, and put back however it ends."""

    def __init__(self, build):
        self.build = build

    def __enter__(self):
        self.closed = []
        d = os.path.dirname(os.path.abspath(self.build))
        while True:
            mode = stat.S_IMODE(os.stat(d).st_mode)
            # Group too: the user's programs run with root's group (setuid alone).
            if mode & (stat.S_IXGRP | stat.S_IXOTH) != stat.S_IXGRP | stat.S_IXOTH:
                self.closed.append((d, mode))
            if d == '/':
                break
            d = os.path.dirname(d)
        for d, mode in self.closed:
            os.chmod(d, mode | stat.S_IXGRP | stat.S_IXOTH)
        return self

    def __exit__(self, *exc):
        for d, mode in self.closed:
            os.chmod(d, mode)


def wait_dumping(pid):
    """Until the kernel, dumping pid, waits on the handler's pipe: the notes are written by then."""
    for _ in range(400):
        try:
            with open('/proc/%d/wchan' % pid) as f:
                w = f.read()
        except OSError:
            return False
        if 'pipe' in w or 'dump' in w:
            return True
        time.sleep(0.025)
    return False
