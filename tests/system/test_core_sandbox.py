#!/usr/bin/env python3
"""The report's analysis sandboxed, and the crashed process pinned
(docs/system-reporter.md, "What runs as whom").

3. The child that finds a user's report's place works as the user with
   the analysis identity's real and saved ids: the user cannot stop it to
   hold the kernel's slot.  The analysis child, caught while it runs (the
   handler's pause, <sysdir>/test-pause, once it is sealed): for a user's report its real
   and saved ids are the analysis identity's, its effective ones the
   user's, for a report root keeps (an execute-only binary: the private
   spool) the identity's alone; no capability, no_new_privs, a seccomp
   filter; its descriptors are /dev/null, the process's memory, the
   directory it writes, /usr/lib/debug and the mapped files (not the core's
   pipe, not the kernel's log, nothing of the state directory); its root is
   the empty directory; the crashing user cannot stop it.  The report is
   written all the same.
4. A crashed process killed during its dump, its pid given to another
   process (clone3's set_tid) while the handler waits: the handler
   describes nothing (no report), by the kernel's pidfd (%F), and again
   with a pattern without %F (a kernel before 6.16), by the start time.

The test makes its user and removes it, and puts the kernel settings
back however it ends (kernel_settings.py: the analysis identity enable makes too).

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS.
"""
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from crashes import as_user, mkdir, set_pauses, wait_dumping  # noqa: E402
from kernel_settings import ANALYSIS_USER, read  # noqa: E402
from reports import twin, written  # noqa: E402
from reporter_on import ReporterOn  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
STATIC = os.path.join(BUILD, 'tests', 'sys_crash_static')
THREADS = os.path.join(BUILD, 'tests', 'sys_threads17')
PID_AT = os.path.join(BUILD, 'tests', 'sys_pid_at')
USER = 'pmsysbox'


def status_of(pid):
    with open('/proc/%d/status' % pid) as f:
        return dict(l.split(':', 1) for l in f.read().splitlines() if ':' in l)


def handler_child(comm='pm-analysis'):
    """The handler's child of that name once it is filtered (the analysis sealed, the
    destination's filter on): its pid, or None."""
    for _ in range(800):
        for d in os.listdir('/proc'):
            try:
                with open('/proc/%s/comm' % d) as f:
                    if d.isdigit() and f.read().strip() == comm and \
                            status_of(int(d)).get('Seccomp', '').strip() == '2':
                        return int(d)
            except OSError:
                pass
        time.sleep(0.025)
    return None


def cannot_stop(pid, user):
    """Whether user's kill -STOP of pid fails as not permitted (if it did stop it, it goes on)."""
    stop = subprocess.run(['kill', '-STOP', str(pid)], preexec_fn=as_user(user), capture_output=True, text=True)
    if stop.returncode == 0:
        os.kill(pid, signal.SIGCONT)
    return stop.returncode != 0 and 'not permitted' in stop.stderr, stop.stderr.strip()


def descriptors(pid):
    out = {}
    for n in os.listdir('/proc/%d/fd' % pid):
        try:
            out[int(n)] = os.readlink('/proc/%d/fd/%s' % (pid, n))
        except OSError:
            pass
    return out


def caught(what, argv, env, user, sysdir, ids, pending, kmsg):
    """Crash argv as user and look at its analysis while it runs; ids: its Uid:/Gid: lines' values."""
    p = subprocess.Popen(argv, env=env, preexec_fn=as_user(user), cwd='/', stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    dest = handler_child('pm-destination')
    st = status_of(dest) if dest else {}
    ok, said = cannot_stop(dest, user) if dest else (False, 'not caught')
    check(st.get('Uid', '').split() == ids[0] and st.get('NoNewPrivs', '').strip() == '1' and ok,
          '%s: the child that finds its place works as the user, its real and saved ids another\'s: the user '
          'cannot stop it (%s; %s)' % (what, st.get('Uid', '').strip(), said))
    child = handler_child()
    if not check(child is not None, '%s: its analysis child is caught while it runs' % what):
        p.wait(timeout=300)
        return
    st = status_of(child)
    uids, gids = st['Uid'].split(), st['Gid'].split()
    check((uids, gids) == ids, '%s: its real, effective, saved and file system ids (%s; %s)' % (what, uids, gids))
    check(st['Groups'].split() == ([] if ids[0][1] == ids[0][0] else [str(user.pw_gid)]) or
          st['Groups'].split() == [], '%s: its groups (%s)' % (what, st['Groups'].strip()))
    check(st['NoNewPrivs'].strip() == '1' and st['Seccomp'].strip() == '2' and
          all(int(st[k], 16) == 0 for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')),
          '%s: no_new_privs, a seccomp filter, no capability' % what)
    fds = descriptors(child)
    null = [fds.get(i) for i in range(3)]
    files = [t for n, t in fds.items() if n > 2]
    # pending/.groups: storm control's records, where a report goes straight into a pending/ (the user's).
    allowed = ('/proc/%d/mem' % p.pid, pending, os.path.join(pending, '.groups'), '/usr/lib/debug')
    stray = [t for t in files if not (t in allowed or t.startswith('/') and not t.startswith(sysdir) and
                                     not t.startswith('/dev/') and os.path.isfile(t))]
    check(null == ['/dev/null'] * 3 and not stray and '/proc/%d/mem' % p.pid in files and pending in files,
          '%s: its descriptors are /dev/null, the memory, where it writes (and its storm records), /usr/lib/debug '
          'and mapped files '
          '(%s; not these: %s)' % (what, null, stray))
    check(not any(t.startswith(('pipe:', 'socket:', '/dev/kmsg')) for t in files),
          '%s: not the core\'s pipe, a socket or the kernel\'s log' % what)
    check(os.readlink('/proc/%d/root' % child) == os.path.join(sysdir, 'empty'),
          '%s: its root is %s' % (what, os.readlink('/proc/%d/root' % child)))
    ok, said = cannot_stop(child, user)
    check(ok, '%s: its user cannot stop it (%s)' % (what, said))
    status = p.wait(timeout=300)
    line = kmsg.line(p.pid)
    check(status == -11 and 'written' in line and len(written(pending)) >= 1,
          '%s: the report is written: %s' % (what, line))


def sandboxed(work, sysdir, user, analyst, kmsg):
    set_pauses(sysdir, 'destination 1000\nanalysis 1500\n')
    home = mkdir(os.path.join(work, 'home'), user.pw_uid)
    pending = os.path.join(home, '.local', 'state', 'postmortem', 'pending')
    caught('a user\'s crash', [THREADS], {'HOME': home}, user, sysdir,
           ([str(analyst.pw_uid), str(user.pw_uid)] * 2, [str(analyst.pw_gid), str(user.pw_gid)] * 2), pending, kmsg)
    prog = os.path.join(home, 'prog')
    shutil.copy(STATIC, prog)
    os.chmod(prog, 0o111)
    private = os.path.join(sysdir, 'private', str(user.pw_uid), 'pending')
    staging = os.path.join(sysdir, 'staging')
    p = subprocess.Popen([prog], env={}, preexec_fn=as_user(user), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    child = handler_child()
    st = status_of(child) if child else {}
    fds = descriptors(child) if child else {}
    check(st and st['Uid'].split() == [str(analyst.pw_uid)] * 4 and st['Gid'].split() == [str(analyst.pw_gid)] * 4
          and st['Groups'].strip() == '' and st['Seccomp'].strip() == '2',
          'a report root keeps: the analysis runs as the identity alone (%s; %s)' % (st.get('Uid'), st.get('Gid')))
    check(any(t.startswith(staging + '/') for t in fds.values()) and not any(t == private for t in fds.values()),
          'a report root keeps: the analysis writes into a staging directory, never the private spool (%s)' %
          sorted(fds.values()))
    p.wait(timeout=300)
    check(len(written(private)) == 1 and os.listdir(staging) == [],
          'a report root keeps: root took it into the private spool, and the staging directory is gone: %s' %
          kmsg.line(p.pid))
    set_pauses(sysdir, None)


def recycled(what, sysdir, user, reports, kmsg, expect):
    """A crash killed during its dump, its pid given to a sleeper of root's before the handler reads /proc."""
    set_pauses(sysdir, 'proc 1500\n')
    p = subprocess.Popen([STATIC], env={'POSTMORTEM_DIR': reports}, preexec_fn=as_user(user),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dumping = wait_dumping(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=300)
    sleeper = subprocess.Popen([PID_AT, str(p.pid), '/bin/sleep', '30'], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    taken = False
    for _ in range(200):
        try:
            with open('/proc/%d/comm' % p.pid) as f:
                taken = f.read().strip() == 'sleep'
        except OSError:
            pass
        if taken:
            break
        time.sleep(0.01)
    said = kmsg.said(p.pid)
    set_pauses(sysdir, None)
    try:
        os.kill(p.pid, signal.SIGKILL)
    except OSError:
        pass
    sleeper.wait()
    spools = [os.path.join(sysdir, d, str(user.pw_uid), 'pending') for d in ('users', 'private')] + \
             [os.path.join(reports, 'pending')]
    found = [r for d in spools if os.path.isdir(d) for r in written(d).values() if twin(r)['header'].get('pid') == p.pid]
    check(dumping and taken, '%s: the crashed process killed during its dump, its pid %d taken by another' %
          (what, p.pid))
    check(any(expect in l for l in said) and not found and any('report: no report' in l for l in said),
          '%s: nothing described, no report (%s): %s' % (what, found, said))


def pinned(work, sysdir, user, kmsg):
    reports = mkdir(os.path.join(work, 'pinned'), user.pw_uid, 0o700)
    recycled('with the kernel\'s pidfd', sysdir, user, reports, kmsg, 'gone, by its pidfd')
    ours = read('pattern')
    check(ours.endswith(b' %F'), 'the pattern asks for the pidfd: %s' % ours.decode())
    with open('/proc/sys/kernel/core_pattern', 'wb') as f:
        f.write(ours[:-3])
    try:
        recycled('without a pidfd', sysdir, user, reports, kmsg, 'another process\'s now, by its start')
    finally:
        with open('/proc/sys/kernel/core_pattern', 'wb') as f:
            f.write(ours)


def main():
    with ReporterOn(BUILD, USER) as on:
        on.settings.set('core')
        on.enable()
        analyst = pwd.getpwnam(ANALYSIS_USER)  # the identity enable made and recorded
        sandboxed(on.work, on.sysdir, on.user, analyst, on.kmsg)
        pinned(on.work, on.sysdir, on.user, on.kmsg)
    finish()


if __name__ == '__main__':
    main()
