"""The system reporter switched on for a test, and the machine put back.

    with ReporterOn(BUILD, 'pmsysname') as on:
        on.enable('--dsn', dsn)        `system enable` of a root's copy of the handler
        crash([...], env, on.user)     and its uploader (handler_copy.py) into on.sysdir

A user of the test's (made when missing, removed at the end), a work
directory of root's (0755) below /tmp, the build tree searchable by others
(the user runs its programs), the machine's crash settings saved and put
back however the test ends (kernel_settings.py), and the kernel's log read
from now on (on.kmsg).  At the end: the tests' pauses removed, `system
disable`, the user removed.
"""
import contextlib
import os
import subprocess
import tempfile

from checks import check
from crashes import Searchable, set_pauses, test_user
from handler_copy import RootCopies, enable_args
from kernel_settings import KernelSettings
from kmsg import Kmsg


class ReporterOn:
    def __init__(self, build, user_name):
        self.build, self.user_name = build, user_name
        self.cli = os.path.join(build, 'tools', 'postmortem')

    def __enter__(self):
        self.user = test_user(self.user_name)
        with contextlib.ExitStack() as stack:
            # Entered in this order, left in the reverse, however the test ends; the user last.
            stack.callback(subprocess.run, ['userdel', self.user_name], stderr=subprocess.DEVNULL)
            self.work = stack.enter_context(tempfile.TemporaryDirectory(prefix='pm-', dir='/tmp'))
            os.chmod(self.work, 0o755)
            self.sysdir = os.path.join(self.work, 'sys')
            self.copies = stack.enter_context(RootCopies(self.build))
            stack.enter_context(Searchable(self.build))
            self.settings = stack.enter_context(KernelSettings())
            stack.callback(subprocess.run, [self.cli, 'system', 'disable', '--state-dir', self.sysdir],
                           capture_output=True)
            stack.callback(set_pauses, self.sysdir, None)
            self.kmsg = Kmsg()
            self._stack = stack.pop_all()
        return self

    def enable(self, *extra):
        """`system enable` of the copies into sysdir, with extra; checked."""
        p = subprocess.run([self.cli, 'system', 'enable'] + enable_args(self.copies, self.sysdir) + list(extra),
                           capture_output=True, text=True)
        said = (p.stdout.strip() or p.stderr.strip()).splitlines()
        check(p.returncode == 0, 'enable%s: %s' % (''.join(' ' + e for e in extra), said[0] if said else ''))
        return p

    def __exit__(self, *exc):
        return self._stack.__exit__(*exc)
