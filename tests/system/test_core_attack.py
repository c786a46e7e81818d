#!/usr/bin/env python3
"""A local user against the system reporter: what they can make the
machine's crash handling do to other users' crashes (docs/system-reporter.md,
"Bounds").

The kernel hands at most kernel.core_pipe_limit crashes to pipe handlers
at once and skips the core of any past that ("over core_pipe_limit,
skipping core dump"): it counts a crash from the start of its dump to the
dump's end, not to its handler's.  A process of 1 TiB mapped with one page
touched (tests/system/programs/unwritten.c) keeps the kernel walking its
mapping for minutes, writing nothing, after its handler has closed the
core's pipe; and with a previous handler to serve (the pattern `core`,
Debian's, with the user's own RLIMIT_CORE unlimited) every crash past the
uid's report slots used to be served for 10 s.  So one user's storm of
such crashes held every one of the kernel's places, and root's crash a
moment later was skipped: no report, no core.

Now: a crash past its uid's slots serves the previous handler only in one
of the machine's 16 places for that (PM_SLOTLESS_AT_ONCE), and a dump
that goes on after the handler is done with it is ended (SIGKILL, through
the pidfd of the process pinned) PM_DUMP_END_MS after the core's pipe was
closed.  The test lowers core_pipe_limit to 40 (enable keeps a value that
is not 0) so that 50 crashes of the user would fill it, then crashes a
program as root: its report is written and the kernel skipped no core of
root's.  A user's storm now holds at most 36 of the kernel's places: its
uid's 4 slots, its 16 waiters for them (up to 5 s each), the machine's 16
places past them.

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS.
"""
import os
import re
import resource
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from crashes import as_user, crash, mkdir  # noqa: E402
from reporter_on import ReporterOn  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
STATIC = os.path.join(BUILD, 'tests', 'sys_crash_static')
UNWRITTEN = os.path.join(BUILD, 'tests', 'sys_unwritten')
USER = 'pmsysattack'
PIPE_LIMIT, STORM = 40, 50


def skipped(kmsg):
    return [int(m.group(1)) for l in kmsg.lines for m in [re.search(r'(\d+)\(\S*\): over core_pipe_limit', l)] if m]


def storm(work, user, kmsg, core_limit, pace, what):
    """STORM crashes of the user's, pace seconds apart, then root's: root's is reported, not skipped.
    The user's processes, their statuses and their lines."""
    home = mkdir(os.path.join(work, 'home-%d' % core_limit), user.pw_uid, 0o700)

    def pre():
        resource.setrlimit(resource.RLIMIT_CORE, (core_limit, core_limit))
        as_user(user)()
    procs = []
    try:
        for _ in range(STORM):
            procs.append(subprocess.Popen([UNWRITTEN], env={}, cwd=home, preexec_fn=pre, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
            time.sleep(pace)
        time.sleep(3)
        rpid, rst = crash([STATIC], {'POSTMORTEM_DIR': os.path.join(work, 'root-reports')})
        rline = kmsg.line(rpid)
        check(rst == -11 and 'written' in rline and rpid not in skipped(kmsg),
              '%s: root\'s crash 3 s after a user\'s %d crashes that the kernel walks for minutes is reported, not '
              'skipped (the kernel skipped %d of the user\'s): %s' % (what, STORM, len(skipped(kmsg)),
                                                                     rline or 'no line'))
        if core_limit:
            time.sleep(10)  # the crashes past the slots that serve the previous handler: to its end
    finally:
        # What is left of the user's (the crashes in its uid's report slots, whose cores never come) goes now.
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
        statuses = [p.wait(timeout=120) for p in procs]
    gone = skipped(kmsg)
    return [(s, ' | '.join(kmsg.said(p.pid))) for p, s in zip(procs, statuses) if p.pid not in gone]


def held_kernel(work, user, kmsg):
    ENDED = 'ms after the handler was done: ended (SIGKILL)'
    # No previous handler served (its RLIMIT_CORE 0): each report made, its dump goes on.
    got = storm(work, user, kmsg, 0, 0.2, 'no previous handler')
    ended = [(s, l) for s, l in got if ENDED in l]
    check(len(ended) >= STORM // 2 and all(s == -9 for s, _ in ended),
          'dumps that went on after their reports were ended (SIGKILL, %d of %d): %s' %
          (len(ended), len(got), (ended or got or [(0, 'no line')])[0][1]))
    # The previous pattern `core` served (its RLIMIT_CORE unlimited): past the slots, in a few places only.
    got = storm(work, user, kmsg, resource.RLIM_INFINITY, 0.02, 'the previous pattern core')
    unserved = [l for _, l in got if 'previous pattern not served' in l]
    ended = [(s, l) for s, l in got if ENDED in l]
    check(unserved and ended and all(s == -9 for s, _ in ended),
          'the previous pattern core: %d crashes past the slots did not serve it, %d of those that did were ended '
          'after it (SIGKILL): %s' % (len(unserved), len(ended), (ended or [(0, 'no line')])[0][1]))


def main():
    with ReporterOn(BUILD, USER) as on:
        on.settings.set('core', pipe_limit=str(PIPE_LIMIT))
        on.enable()
        held_kernel(on.work, on.user, on.kmsg)
    finish()


if __name__ == '__main__':
    main()
