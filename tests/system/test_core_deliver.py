#!/usr/bin/env python3
"""Machine-wide delivery (docs/system-reporter.md, "Delivery"; issue 40): with
a DSN given to `postmortem system enable`, every report the core handler
writes reaches a Sentry-compatible receiver (receiver.py, on loopback) with
nobody launching anything, sent by an uploader the handler started as the
crashing user.  Everything the user does here, it does as an unprivileged
user the test makes (and removes); the crashing program is a static binary
(no postmortem in it).

1. Delivered: the crash's event arrives; the socket that sent it was the
   user's (its uid in /proc/net/tcp), the uploader's log in the user's
   directory says so, and nothing stays pending.
2. The process's own POSTMORTEM_DSN wins: its event goes to its receiver,
   none to the machine's.
3. Receiver down: the report stays pending ("kept 1"); the next crash's
   uploader delivers both; down again, then `postmortem upload` run by the
   user delivers the one left.  Every report arrives exactly once.
4. 20 crashes at once: every one reported (4 at a time in the uid's
   slots, 16 waiting for one: docs/system-reporter.md, "Bounds") and
   delivered exactly once, by fewer uploaders than reports, never more than
   two alive at once (the one holding the directory's lock and one ending);
   then 20 crashes two at a time: 20 events.
5. A bad DSN in the process's environment: one clear line in the upload
   log, the report kept.
6. The private spool (an execute-only binary: its memory is not its
   user's): not sent without --upload-private (the log line says root
   keeps it); with it, written into the spool the analysis identity owns
   and sent by an uploader running as that identity.
7. The uploader missing, then not executable: the crash is reported on
   disk as before, and the line says why nothing was sent.

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS.
"""
import glob
import os
import pwd
import re
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from crashes import as_user, crash, mkdir  # noqa: E402
from receiver import Receiver  # noqa: E402
from reporter_on import ReporterOn  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
STATIC = os.path.join(BUILD, 'tests', 'sys_crash_static')
USER = 'pmsysdeliver'
UPLOADER_COMM = 'postmortem-uplo'  # the kernel's 15 bytes of postmortem-uploader


def report_id(line):
    m = re.search(r'written ([0-9A-F-]{36})\.crash', line)
    return m.group(1) if m else None


def event_id(rid):
    return rid.lower().replace('-', '') if rid else None


def upload_log(d):
    try:
        with open(os.path.join(d, 'upload.log')) as f:
            return f.read()
    except FileNotFoundError:
        return ''


def uploaders_of(uid):
    """pids of the uploaders alive now that run as uid."""
    found = []
    for p in os.listdir('/proc'):
        if not p.isdigit():
            continue
        try:
            with open('/proc/%s/comm' % p) as f:
                comm = f.read().strip()
            if comm == UPLOADER_COMM and os.stat('/proc/' + p).st_uid == uid:
                found.append(int(p))
        except OSError:
            pass
    return found


def settled(d, uid, ends, timeout=60):
    """Until d's upload log has `ends` end: lines and no uploader of uid is alive; the log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = upload_log(d)
        if text.count(']: end:') >= ends and not uploaders_of(uid):
            return text
        time.sleep(0.05)
    return upload_log(d)


def pending_reports(d):
    return sorted(os.path.basename(p)[:-6] for p in glob.glob(os.path.join(d, 'pending', '*.crash')))


def delivered(work, user, kmsg, rx):
    home = mkdir(os.path.join(work, 'home'), user.pw_uid, 0o700)
    before = len(rx.events)
    pid, st = crash([STATIC], {'POSTMORTEM_DIR': home}, user)
    line = kmsg.line(pid)
    rid = report_id(line)
    arrived = rx.wait(before + 1)
    log = settled(home, user.pw_uid, 1)
    got = rx.events[before:]
    check(st == -11 and rid and arrived and got == [(event_id(rid), user.pw_uid)],
          'a static binary crashing as uid %d under `enable --dsn`: its event (%s) arrived, sent by a socket of '
          'uid %s: %s' % (user.pw_uid, event_id(rid), got[0][1] if got else None, line))
    check('uploader ' in line and 'started as uid %d, to the machine\'s DSN' % user.pw_uid in line,
          'the handler\'s line says it started the uploader as the user')
    check('start: the crash of pid' in log and 'end: sent 1, kept 0' in log and pending_reports(home) == [],
          'the uploader\'s log in the user\'s directory says it sent it, and nothing stays pending: %s'
          % log.strip().replace('\n', ' | '))
    st_log = os.stat(os.path.join(home, 'upload.log'))
    check(st_log.st_uid == user.pw_uid, 'upload.log is the user\'s (uid %d)' % st_log.st_uid)


def own_dsn_wins(work, user, kmsg, rx):
    own = Receiver().start()
    home = mkdir(os.path.join(work, 'own'), user.pw_uid, 0o700)
    machine_before = len(rx.events)
    pid, st = crash([STATIC], {'POSTMORTEM_DIR': home, 'POSTMORTEM_DSN': own.dsn('own')}, user)
    line = kmsg.line(pid)
    arrived = own.wait(1)
    settled(home, user.pw_uid, 1)
    check(st == -11 and arrived and own.events == [(event_id(report_id(line)), user.pw_uid)] and
          len(rx.events) == machine_before and 'to its own destination' in line,
          'the process\'s own POSTMORTEM_DSN wins: its event went to its receiver (%d), none to the machine\'s: %s'
          % (len(own.events), line))
    own.stop()


def receiver_down(work, user, kmsg, rx):
    home = mkdir(os.path.join(work, 'down'), user.pw_uid, 0o700)
    env = {'POSTMORTEM_DIR': home}
    before = len(rx.events)
    rx.stop()
    pid, st = crash([STATIC], env, user)
    first = report_id(kmsg.line(pid))
    log = settled(home, user.pw_uid, 1)
    check(st == -11 and first and 'end: sent 0, kept 1' in log and pending_reports(home) == [first],
          'receiver down: the report stays pending (%s)' % log.strip().splitlines()[-1:])
    rx.start(rx.port)
    pid, st = crash([STATIC], env, user)
    second = report_id(kmsg.line(pid))
    rx.wait(before + 2)
    settled(home, user.pw_uid, 2)
    got = sorted(e for e, _ in rx.events[before:])
    check(got == sorted([event_id(first), event_id(second)]) and pending_reports(home) == [],
          'up again: the next crash\'s uploader delivered both, once each (%d events)' % len(got))
    rx.stop()
    pid, st = crash([STATIC], env, user)
    third = report_id(kmsg.line(pid))
    settled(home, user.pw_uid, 3)
    rx.start(rx.port)
    p = subprocess.run([CLI, 'upload', '--dir', home, '--dsn', rx.dsn()], preexec_fn=as_user(user),
                       capture_output=True, text=True, env={'PATH': '/usr/bin:/bin'})
    rx.wait(before + 3)
    ids = [e for e, _ in rx.events[before:]]
    check(p.returncode == 0 and ids.count(event_id(third)) == 1 and len(ids) == 3 and len(set(ids)) == 3 and
          pending_reports(home) == [],
          'down again, then `postmortem upload` as the user: the one left delivered; every report exactly once '
          '(%s)' % p.stdout.strip())


def storm_at_once(work, user, kmsg, rx):
    home = mkdir(os.path.join(work, 'storm'), user.pw_uid, 0o700)
    before = len(rx.events)
    alive, stop = [0], threading.Event()

    def watch():
        while not stop.is_set():
            alive[0] = max(alive[0], len(uploaders_of(user.pw_uid)))
            time.sleep(0.002)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()

    # All 20 wait at a gate, as the user, until its last writer goes: then they crash at once.  The
    # gate is a shell's read before its exec (the same process): Popen waits for what preexec_fn does.
    gate_r, gate_w = os.pipe()

    def pre():
        as_user(user)()
    # One crash site: storm control would count most of them without keeping their files.
    env = {'POSTMORTEM_DIR': home, 'POSTMORTEM_STORM_KEEP': '20,20'}
    procs = [subprocess.Popen(['/bin/sh', '-c', 'read _; exec "$0"', STATIC], env=env, stdin=gate_r, preexec_fn=pre)
             for _ in range(20)]
    os.close(gate_w)
    os.close(gate_r)
    for p in procs:
        p.wait()
    lines = [kmsg.line(p.pid) for p in procs]
    ids = [report_id(l) for l in lines if report_id(l)]
    over = sum('no report: uid %d has' % user.pw_uid in l for l in lines)
    rx.wait(before + len(ids))
    log = settled(home, user.pw_uid, 1)
    stop.set()
    watcher.join()
    got = [e for e, _ in rx.events[before:]]
    started = len(re.findall(r'postmortem-uploader\[\d+\]: start', log))
    waited = sum('ms for a slot' in l for l in lines)
    check(len(ids) == 20 and over == 0 and waited and sorted(got) == sorted(event_id(i) for i in ids) and
          len(set(got)) == len(got),
          '20 crashes at once: %d reports written (%d waited for a slot, %d counted past them), each delivered '
          'exactly once (%d events)' % (len(ids), waited, over, len(got)))
    check(1 <= started <= len(ids) and alive[0] <= 2,
          '... by %d uploaders for %d reports, at most %d alive at once' % (started, len(ids), alive[0]))
    print('note 20 crashes at once: %d reports, %d uploaders, at most %d alive at once' % (len(ids), started, alive[0]))

    shutil.rmtree(home)
    home = mkdir(os.path.join(work, 'waves'), user.pw_uid, 0o700)
    before = len(rx.events)
    ids = []
    for _ in range(10):
        wave = [subprocess.Popen([STATIC], env=dict(env, POSTMORTEM_DIR=home), preexec_fn=pre) for _ in range(2)]
        for p in wave:
            p.wait()
        ids += [report_id(kmsg.line(p.pid)) for p in wave]
    rx.wait(before + 20)
    log = settled(home, user.pw_uid, 1)
    got = [e for e, _ in rx.events[before:]]
    started = len(re.findall(r'postmortem-uploader\[\d+\]: start', log))
    check(None not in ids and sorted(got) == sorted(event_id(i) for i in ids) and len(got) == 20 and
          pending_reports(home) == [],
          '20 crashes, two at a time: 20 reports, 20 events, each once, by %d uploaders' % started)


def bad_dsn(work, user, kmsg, rx):
    home = mkdir(os.path.join(work, 'bad'), user.pw_uid, 0o700)
    pid, st = crash([STATIC], {'POSTMORTEM_DIR': home, 'POSTMORTEM_DSN': 'https://no-key.example/abc'}, user)
    rid = report_id(kmsg.line(pid))
    log = settled(home, user.pw_uid, 1)
    check(st == -11 and 'the DSN is not {scheme}://{key}@{host}[:port]/{project id}' in log and
          'the reports stay pending' in log and pending_reports(home) == [rid],
          'a bad DSN in its environment: one clear line in the upload log, the report kept: %s'
          % [l for l in log.splitlines() if 'DSN' in l][:1])


def private_spool(on, rx):
    work, sysdir, user, kmsg = on.work, on.sysdir, on.user, on.kmsg
    prog = os.path.join(work, 'exec_only')
    shutil.copy(STATIC, prog)
    os.chmod(prog, 0o111)
    home = mkdir(os.path.join(work, 'priv'), user.pw_uid, 0o700)
    env = {'POSTMORTEM_DIR': home}
    before = len(rx.events)
    pid, st = crash([prog], env, user)
    line = kmsg.line(pid)
    private = os.path.join(sysdir, 'private', str(user.pw_uid), 'pending')
    rid = report_id(line)
    # A crash that is sent, after it: once its event is in, the first one's would have been too.
    pid2, _ = crash([STATIC], env, user)
    rx.wait(before + 1)
    settled(home, user.pw_uid, 1)
    got = [e for e, _ in rx.events[before:]]
    check(st == -11 and rid and os.path.exists(os.path.join(private, rid + '.crash')) and
          'not sent: root keeps it' in line and event_id(rid) not in got and
          got == [event_id(report_id(kmsg.line(pid2)))],
          'the private spool without --upload-private: kept by root, not sent: %s' % line)

    on.enable('--dsn', rx.dsn(), '--upload-private')
    core = pwd.getpwnam('postmortem-core')
    spool = os.path.join(sysdir, 'private-upload', str(user.pw_uid))
    before = len(rx.events)
    pid, st = crash([prog], env, user)
    line = kmsg.line(pid)
    rid = report_id(line)
    rx.wait(before + 1)
    log = settled(spool, core.pw_uid, 1)
    got = rx.events[before:]
    check(st == -11 and rid and got == [(event_id(rid), core.pw_uid)] and
          not os.path.exists(os.path.join(private, rid + '.crash')),
          'with --upload-private: sent by a socket of the analysis identity (uid %d), not kept in root\'s spool: %s'
          % (core.pw_uid, line))
    owner = os.stat(spool).st_uid
    check(owner == core.pw_uid and 'end: sent 1, kept 0' in log and pending_reports(spool) == [],
          '... from %s, the identity\'s own (uid %d), whose upload log says so' % (spool, owner))


def no_uploader(work, copies, user, kmsg):
    home = mkdir(os.path.join(work, 'none'), user.pw_uid, 0o700)
    kept = copies.uploader + '.kept'
    os.rename(copies.uploader, kept)
    try:
        for what, how in (('missing', None), ('not executable', 0o644)):
            if how is not None:
                shutil.copy(kept, copies.uploader)
                os.chmod(copies.uploader, how)
            pid, st = crash([STATIC], {'POSTMORTEM_DIR': home}, user)
            line = kmsg.line(pid)
            rid = report_id(line)
            check(st == -11 and rid and rid in pending_reports(home) and 'not sent now: no uploader beside the handler'
                  in line, 'the uploader %s: the report is on disk as before, and the line says so: %s' % (what, line))
    finally:
        os.replace(kept, copies.uploader)


def main():
    rx = Receiver()
    try:
        with ReporterOn(BUILD, USER) as on:
            # Listening only now: KernelSettings' guard, a fork of this process, would hold its socket.
            rx.start()
            try:
                on.enable('--dsn', rx.dsn())
                for step in (delivered, own_dsn_wins, receiver_down, storm_at_once, bad_dsn):
                    t0 = time.monotonic()
                    step(on.work, on.user, on.kmsg, rx)
                    print('note %s: %.1f s' % (step.__name__, time.monotonic() - t0))
                private_spool(on, rx)
                no_uploader(on.work, on.copies, on.user, on.kmsg)
            finally:
                for p in uploaders_of(on.user.pw_uid):
                    os.kill(p, 9)
    finally:
        rx.stop()
    finish()


if __name__ == '__main__':
    main()
