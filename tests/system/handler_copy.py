"""The build's programs the kernel runs as root (the core handler, a probe
handler), copied into a short directory of root's, whatever the checkout.

The kernel takes at most 127 bytes of kernel.core_pattern, which holds the
handler's path (and the state directory's): a checkout at a longer path
than /work/main would not fit.  And `postmortem system enable` refuses a
handler any user could replace: `sudo make test` from a user's checkout
would be refused.  So the tests enable a root's copy (`enable --handler`,
the same rule as any handler) in a fresh directory of root's, 0755, under
the first of /run, /tmp, /var/tmp the kernel may execute from (Debian
mounts /run noexec), removed when the `with` block ends, with the
uploader beside it, where the handler looks for it (machine-wide
delivery).  The copies link no library of the build tree (checked with
ldd).

    with RootCopies(BUILD) as copies:
        enable_args(copies, sysdir)   ['--state-dir', sysdir, '--handler', copies.handler],
                                      the pattern checked to fit the kernel
        copies.program('tests/core_show')   another program copied beside it
"""
import os
import shutil
import subprocess
import tempfile

SPECIFIERS = '%P %p %I %i %u %g %s %t %d %c %h %e %E %F'
PATTERN_MAX = 127
HANDLER = 'postmortem-core-handler'
UPLOADER = 'postmortem-uploader'


def executable_dir():
    for d in ('/run', '/tmp', '/var/tmp'):
        if os.path.isdir(d) and not os.statvfs(d).f_flag & os.ST_NOEXEC:
            return d
    raise RuntimeError('no directory of /run, /tmp, /var/tmp the kernel may execute from')


class RootCopies:
    def __init__(self, build):
        self.build = os.path.realpath(build)

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix='pm-', dir=executable_dir())
        os.chmod(self.dir, 0o755)
        self.handler = self.program(os.path.join('system', HANDLER))
        self.uploader = self.program(os.path.join('delivery', 'uploader', UPLOADER))
        return self

    def program(self, rel):
        dst = os.path.join(self.dir, os.path.basename(rel))
        shutil.copy(os.path.join(self.build, rel), dst)
        os.chown(dst, 0, 0)
        os.chmod(dst, 0o755)
        libs = subprocess.run(['ldd', dst], capture_output=True, text=True).stdout
        if self.build in libs:
            raise RuntimeError('%s links a library of the build tree:\n%s' % (rel, libs))
        return dst

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)
        return False


def pattern(copies, sysdir):
    return '|%s -d %s %s' % (copies.handler, sysdir, SPECIFIERS)


def enable_args(copies, sysdir):
    """enable's arguments for the copy and sysdir; refuses (an exception) a pattern the kernel would not take."""
    p = pattern(copies, sysdir)
    if len(p) > PATTERN_MAX:
        raise RuntimeError('the pattern is %d bytes, more than the kernel\'s %d: %s' % (len(p), PATTERN_MAX, p))
    return ['--state-dir', sysdir, '--handler', copies.handler]
