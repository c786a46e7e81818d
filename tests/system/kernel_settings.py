"""What a system test changes of the machine, always put back.

`KernelSettings` saves kernel.core_pattern, kernel.core_pipe_limit and
fs.suid_dumpable, the sysctl drop-in `postmortem system enable` writes (and
any other file the test names), and whether the analysis identity (the
system user postmortem-core, which enable makes) exists, and restores them
when the `with` block ends, however it ends.  A guard process (detached, so
that nothing waits for it) holds the saved values too and restores them the
moment the test's process dies, even by SIGKILL: the machine runs other
crash tests right after, and a reboot would apply the drop-in.  What neither
survives (the test and its guard killed together, as a stopped session or a
killed cgroup does, or a reboot) the journal does: the saved values are
written to JOURNAL before anything changes, and the next run (`make test`
starts with `python3 tests/system/kernel_settings.py`, every KernelSettings
too) puts them back when the test that wrote it is gone.  Tests that use it
run alone (`is_parallel : false` in tests/meson.build).
"""
import base64
import json
import os
import pwd
import signal
import subprocess
import sys
import time

FILES = {'pattern': '/proc/sys/kernel/core_pattern', 'pipe_limit': '/proc/sys/kernel/core_pipe_limit',
         'suid_dumpable': '/proc/sys/fs/suid_dumpable'}
DROPIN = '/etc/sysctl.d/99-zz-postmortem.conf'
ANALYSIS_USER = 'postmortem-core'
JOURNAL = '/var/lib/postmortem-tests/kernel-settings.json'


def read(name):
    with open(FILES[name], 'rb') as f:
        return f.read().rstrip(b'\n')


def write(name, value):
    with open(FILES[name], 'wb') as f:
        f.write(value if isinstance(value, bytes) else value.encode())


def file_bytes(path):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except FileNotFoundError:
        return None


def user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def remove_user(name):
    """userdel, again while a process of the user's is still ending; its group with it."""
    for _ in range(20):
        if not user_exists(name) or subprocess.run(['userdel', name], stderr=subprocess.DEVNULL).returncode == 0:
            break
        time.sleep(0.5)
    subprocess.run(['groupdel', name], stderr=subprocess.DEVNULL)


def _restore(saved):
    for name in ('pattern', 'pipe_limit', 'suid_dumpable'):
        if read(name) != saved[name]:
            write(name, saved[name])
    for path, content in saved['files'].items():
        if file_bytes(path) == content:
            continue
        if content is None:
            os.unlink(path)
        else:
            with open(path, 'wb') as f:
                f.write(content)
    if not saved['user'] and user_exists(ANALYSIS_USER):
        remove_user(ANALYSIS_USER)


def _process_start(pid):
    """The process's start time in clock ticks (None: gone), so a recycled pid is not the writer."""
    try:
        with open('/proc/%d/stat' % pid, 'rb') as f:
            return int(f.read().rsplit(b')', 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def _encode(value):
    return None if value is None else base64.b64encode(value).decode()


def _decode(value):
    return None if value is None else base64.b64decode(value)


def _write_journal(saved):
    os.makedirs(os.path.dirname(JOURNAL), mode=0o700, exist_ok=True)
    record = {'pid': os.getpid(), 'start': _process_start(os.getpid()), 'user': saved['user'],
              'settings': {name: _encode(saved[name]) for name in FILES},
              'files': {path: _encode(content) for path, content in saved['files'].items()}}
    tmp = JOURNAL + '.new'
    with open(tmp, 'w') as f:
        json.dump(record, f)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, JOURNAL)


def _read_journal():
    try:
        with open(JOURNAL) as f:
            record = json.load(f)
    except FileNotFoundError:
        return None
    saved = {name: _decode(record['settings'][name]) for name in FILES}
    saved['files'] = {path: _decode(content) for path, content in record['files'].items()}
    saved['user'] = record['user']
    return record['pid'], record['start'], saved


def restore_stale():
    """Put back what a test that is gone left changed; exit if that test still runs."""
    found = _read_journal()
    if found is None:
        return False
    pid, start, saved = found
    if start is not None and _process_start(pid) == start:
        sys.exit('process %d is still changing the machine\'s crash settings (%s)' % (pid, JOURNAL))
    _restore(saved)
    os.unlink(JOURNAL)
    return True


def _guard(saved, rfd):
    """In a detached grandchild: wait for the test's end (EOF), then restore."""
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while os.read(rfd, 1):
        pass
    _restore(saved)
    _forget_journal(saved['owner'])
    os._exit(0)


def _forget_journal(owner):
    """The journal removed if it is still the owner's (the next test may have written its own)."""
    found = _read_journal()
    if found is not None and found[0] == owner:
        try:
            os.unlink(JOURNAL)
        except FileNotFoundError:
            pass  # the test and its guard, woken by the same end, both forget it: one of them first


class KernelSettings:
    """files: more paths to put back as they were (None: not there)."""

    def __init__(self, files=()):
        self.files = (DROPIN,) + tuple(files)

    def __enter__(self):
        if os.geteuid() != 0:
            sys.exit('the system reporter tests need root (they set kernel.core_pattern)')
        if restore_stale():
            print('# put back the crash settings a killed test had left changed', flush=True)
        self.saved = {name: read(name) for name in FILES}
        self.saved['files'] = {path: file_bytes(path) for path in self.files}
        self.saved['user'] = user_exists(ANALYSIS_USER)
        self.saved['owner'] = os.getpid()
        _write_journal(self.saved)
        rfd, self.wfd = os.pipe()
        os.set_inheritable(self.wfd, False)
        if os.fork() == 0:
            os.close(self.wfd)
            if os.fork() == 0:
                _guard(self.saved, rfd)
            os._exit(0)
        os.wait()
        os.close(rfd)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit('killed'))
        return self

    def set(self, pattern, pipe_limit='64', suid_dumpable=None):
        if pipe_limit is not None:
            write('pipe_limit', pipe_limit)
        if suid_dumpable is not None:
            write('suid_dumpable', suid_dumpable)
        write('pattern', pattern)

    def restore(self):
        """The kernel's three settings as they were (the files and the user wait for the end)."""
        for name in ('pattern', 'pipe_limit', 'suid_dumpable'):
            if read(name) != self.saved[name]:
                write(name, self.saved[name])

    def __exit__(self, *exc):
        _restore(self.saved)
        os.close(self.wfd)
        _forget_journal(self.saved['owner'])
        for name in FILES:
            if read(name) != self.saved[name]:
                sys.exit('%s is %r, not %r as before the test' % (FILES[name], read(name), self.saved[name]))
        for path, content in self.saved['files'].items():
            if file_bytes(path) != content:
                sys.exit('%s is not as it was before the test' % path)
        if user_exists(ANALYSIS_USER) != self.saved['user']:
            sys.exit('the user %s %s' % (ANALYSIS_USER, 'is left behind' if not self.saved['user'] else 'is gone'))
        return False


if __name__ == '__main__':
    # `make test` first: the crash tests that run before the system tests need the machine as it was.
    if os.geteuid() == 0 and restore_stale():
        print('put back the crash settings a killed system test had left changed (%s)' % JOURNAL)
    # A machine whose own system reporter is on reports every crash from outside the process too:
    # the tests that expect none (postmortem run's closing line) would see its reports.
    if b'postmortem-core-handler' in read('pattern'):
        print('warning: kernel.core_pattern is postmortem\'s system reporter (%s): tests that expect no report '
              'from outside the process will see its reports; `sudo postmortem system disable` first'
              % read('pattern').decode(errors='replace'))
