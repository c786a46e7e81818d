#!/usr/bin/env python3
"""Storm control in the system reporter (docs/store.md, "Storm control";
docs/system-reporter.md, "Storm control"; issue 41): a crash loop of one
user's program cannot fill a disk, and loses no count.  The analysis, as
the crashed process's user and inside its sandbox, applies the store's rule
before it writes: of a crash group's reports in the directory the first
three and the latest three stay, the ones between are counted in the
group's record (pending/.groups) and removed.  Everything the user does
here, it does as an unprivileged user the test makes (and removes); the
program is a static binary (no postmortem in it).

1. 30 crashes into the user's POSTMORTEM_DIR: 6 report sets stay, the
   handler's lines say what storm control did, and `postmortem list
   --group --json` (run as the user) counts all 30.
2. The same into the per-user spool (no POSTMORTEM_DIR): bounded there too.
3. The process's own POSTMORTEM_STORM_KEEP=1,1: 2 sets stay of 8.

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS.
"""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from crashes import as_user, crash, mkdir  # noqa: E402
from reporter_on import ReporterOn  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
STATIC = os.path.join(BUILD, 'tests', 'sys_crash_static')
USER = 'pmsysstorm'


def sets(reports):
    return len(glob.glob(os.path.join(reports, 'pending', '*.json')))


def groups(reports, user):
    p = subprocess.run([CLI, 'list', '--group', '--json', '--dir', reports], preexec_fn=as_user(user),
                       capture_output=True, text=True, env={'PATH': '/usr/bin:/bin'})
    try:
        return json.loads(p.stdout)
    except ValueError:
        return p.stderr.strip()


def loop(reports, env, user, kmsg, n):
    lines = []
    for _ in range(n):
        pid, st = crash([STATIC], env, user)
        lines.append(kmsg.line(pid) if st == -11 else 'status %d' % st)
    return lines


def storms(on):
    user, work, sysdir, kmsg = on.user, on.work, on.sysdir, on.kmsg
    home = mkdir(os.path.join(work, 'home'), user.pw_uid, 0o700)
    lines = loop(home, {'POSTMORTEM_DIR': home}, user, kmsg, 30)
    g = groups(home, user)
    check(sets(home) == 6 and isinstance(g, list) and len(g) == 1 and g[0]['count'] == 30,
          '30 crashes of one site into the user\'s directory: %d report sets stay, one group '
          'counting %s' % (sets(home), g[0]['count'] if isinstance(g, list) and g else g))
    said = [l for l in lines if 'storm control: 1 earlier report of crash group' in l]
    check(all('written' in l for l in lines) and len(said) == 24,
          'each crash past the first six says storm control counted one earlier report (%d): %s'
          % (len(said), said[-1] if said else lines[-1]))
    spool = os.path.join(sysdir, 'users', str(user.pw_uid))
    loop(spool, {}, user, kmsg, 10)
    g = groups(spool, user)
    check(sets(spool) == 6 and isinstance(g, list) and g and g[0]['count'] == 10,
          '10 crashes into the per-user spool: %d report sets stay of %s' %
          (sets(spool), g[0]['count'] if isinstance(g, list) and g else g))
    own = mkdir(os.path.join(work, 'own'), user.pw_uid, 0o700)
    loop(own, {'POSTMORTEM_DIR': own, 'POSTMORTEM_STORM_KEEP': '1,1'}, user, kmsg, 8)
    g = groups(own, user)
    check(sets(own) == 2 and isinstance(g, list) and g and g[0]['count'] == 8,
          'its own POSTMORTEM_STORM_KEEP=1,1: %d report sets stay of %s' %
          (sets(own), g[0]['count'] if isinstance(g, list) and g else g))


def main():
    with ReporterOn(BUILD, USER) as on:
        on.enable()
        storms(on)
    finish()


if __name__ == '__main__':
    main()
