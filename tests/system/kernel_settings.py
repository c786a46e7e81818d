"""The kernel's core settings a system test changes, always put back.

`KernelSettings` saves kernel.core_pattern, kernel.core_pipe_limit and
fs.suid_dumpable, and restores them when the `with` block ends, however it
ends.  A guard process (detached, so that nothing waits for it) holds the
saved values too and restores them the moment the test's process dies, even
by SIGKILL: the machine runs other crash tests right after.  Tests that use
it run alone (`is_parallel : false` in tests/meson.build).
"""
import os
import signal
import sys

FILES = {'pattern': '/proc/sys/kernel/core_pattern', 'pipe_limit': '/proc/sys/kernel/core_pipe_limit',
         'suid_dumpable': '/proc/sys/fs/suid_dumpable'}


def read(name):
    with open(FILES[name], 'rb') as f:
        return f.read().rstrip(b'\n')


def write(name, value):
    with open(FILES[name], 'wb') as f:
        f.write(value if isinstance(value, bytes) else value.encode())


def _restore(saved):
    for name in ('pattern', 'pipe_limit', 'suid_dumpable'):
        if read(name) != saved[name]:
            write(name, saved[name])


def _guard(saved, rfd):
    """In a detached grandchild: wait for the test's end (EOF), then restore."""
    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while os.read(rfd, 1):
        pass
    _restore(saved)
    os._exit(0)


class KernelSettings:
    def __enter__(self):
        if os.geteuid() != 0:
            sys.exit('the system reporter tests need root (they set kernel.core_pattern)')
        self.saved = {name: read(name) for name in FILES}
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
        _restore(self.saved)

    def __exit__(self, *exc):
        self.restore()
        os.close(self.wfd)
        for name in FILES:
            if read(name) != self.saved[name]:
                sys.exit('%s is %r, not %r as before the test' % (FILES[name], read(name), self.saved[name]))
        return False
