#!/usr/bin/env python3
"""What a local user can make the system reporter do, bounded
(docs/system-reporter.md, "Bounds", "The previous handler", "One crash, one
report"; issue 39).  Everything the user does here, it does as an
unprivileged user the test makes (and removes).

1. The core is read only as far as the report needs: an endless core (64
   TiB mapped, a page touched in each GiB: through a pipe the kernel writes
   70 TB) is reported, its stream read to its notes' end and no further,
   with no previous handler.  With a previous pipe handler the rest is
   teed to it up to the stream's byte cap (the test lowers it to 256 MiB,
   <sysdir>/test-pause's max-bytes, to reach it in seconds): it gets
   exactly that many bytes, and the line says the cap was met.
2. No user holds the machine's slots: 70 of the user's crashes at once,
   each a process of 256 threads 500 frames deep (a report that takes the
   analysis a while), then root's own crash: root's is reported, the
   kernel skipped no core ("over core_pipe_limit"), every crash of the user
   has its line, at most PM_SLOTS_PER_UID (4) of them were reported at
   once, and the crashes past them are counted and said by the user's next
   report.
3. The spools are capped before anything is written: 150 crashes of an
   execute-only (0111) binary of 200 threads (its reports are root's: the
   private spool) leave the private spool within its cap (64 MiB, 100
   reports; a report under way in each of the uid's 4 slots may pass it),
   and the crashes past it say so.
4. The previous pipe handler is bounded, and pinned: a stand-in that reads
   the core, then sleeps (and starts a sleeper in its group) past its
   deadline (lowered to 4 s: test-pause's previous) finds the crashed
   process still there, held by the kernel while it runs (not reaped
   before the deadline), and is killed at it with its process group.
5. "Reported in-process already" is decided by the process's pid and start
   against its own pm_install's reports: the user's linked program, its
   executable named to forge the line "Process: x [N]" of another process
   N, crashes first, and the user plants a .crash naming N and a JSON twin
   with N's pid and start in the same directory; N (no postmortem in it),
   and a set-user-ID copy of it, still get their reports.

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS.
"""
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from crashes import as_user, crash, mkdir, set_pauses  # noqa: E402
from handler_copy import enable_args  # noqa: E402
from reporter_on import ReporterOn  # noqa: E402
from reports import twin, written  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
STATIC = os.path.join(BUILD, 'tests', 'sys_crash_static')
ENDLESS = os.path.join(BUILD, 'tests', 'sys_endless')
DEEP = os.path.join(BUILD, 'tests', 'sys_deep')
MANY = os.path.join(BUILD, 'tests', 'sys_threads_many')
LINKED = os.path.join(BUILD, 'sample_crashes', 'crash_null_deref')
USER = 'pmsysbound'
SLOTS = 4
SPOOL_BYTES, SPOOL_REPORTS = 64 << 20, 100
STORM = 70
STARTED = []  # every process of the user's the test starts and may leave waiting: killed by pid at the end


def enable(copies, sysdir, previous, settings):
    settings.set(previous)
    p = subprocess.run([CLI, 'system', 'enable'] + enable_args(copies, sysdir), capture_output=True, text=True)
    check(p.returncode == 0, 'enable over %s: %s' % (previous, (p.stdout or p.stderr).strip().splitlines()[0]))


def disable(sysdir):
    subprocess.run([CLI, 'system', 'disable', '--state-dir', sysdir], capture_output=True)


def script(path, text):
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


def endless(work, copies, sysdir, user, settings, kmsg):
    home = mkdir(os.path.join(work, 'endless'), user.pw_uid, 0o700)
    enable(copies, sysdir, 'core', settings)
    t0 = time.monotonic()
    pid, st = crash([ENDLESS], {'POSTMORTEM_DIR': home}, user)
    took = time.monotonic() - t0
    line = kmsg.line(pid)
    m = re.search(r'core (\d+) bytes \(to its notes\' end, of (\d+)', line)
    check(st == -11 and m and int(m.group(1)) < 1 << 20 and int(m.group(2)) > 64 << 40 and 'written' in line,
          'an endless core (%.1f s from its start to its end), no previous handler: its notes alone read, the '
          'report written: %s' % (took, line))
    disable(sysdir)

    rec = mkdir(os.path.join(work, 'counted'))
    counter = script(os.path.join(work, 'count.sh'), '#!/bin/sh\nexec wc -c > %s/$1\n' % rec)
    enable(copies, sysdir, '|%s %%P' % counter, settings)
    set_pauses(sysdir, 'max-bytes %d\n' % (256 << 20))
    pid, st = crash([ENDLESS], {'POSTMORTEM_DIR': home}, user)
    line = kmsg.line(pid)
    set_pauses(sysdir, None)
    got = open(os.path.join(rec, str(pid))).read().strip() if os.path.exists(os.path.join(rec, str(pid))) else ''
    check(st == -11 and 'reached its byte limit after %d bytes' % (256 << 20) in line and got == str(256 << 20)
          and 'written' in line, 'an endless core with a previous pipe handler: teed to the stream\'s byte cap, which '
          'it got whole (%s bytes): %s' % (got, line))
    disable(sysdir)


def threads_of(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            return int(re.search(r'^Threads:\s+(\d+)', f.read(), re.M).group(1))
    except (OSError, AttributeError):
        return 0


def storm(work, copies, sysdir, user, settings, kmsg):
    home = mkdir(os.path.join(work, 'storm'), user.pw_uid, 0o700)
    enable(copies, sysdir, 'core', settings)
    go_r, go_w = os.pipe()
    procs = [subprocess.Popen([DEEP, '256', '500'], stdin=go_r, env={'POSTMORTEM_DIR': home},
                              preexec_fn=as_user(user), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(STORM)]
    STARTED.extend(procs)
    os.close(go_r)
    ready = False
    for _ in range(600):
        if all(threads_of(p.pid) == 257 for p in procs):
            ready = True
            break
        time.sleep(0.1)
    check(ready, 'the user\'s %d processes of 256 threads 500 frames deep are ready' % STORM)
    os.close(go_w)  # every one of them crashes now
    time.sleep(1)
    root_dir = os.path.join(work, 'root-reports')
    rpid, rst = crash([STATIC], {'POSTMORTEM_DIR': root_dir})
    rline = kmsg.line(rpid)
    statuses = [p.wait(timeout=600) for p in procs]
    lines = [kmsg.line(p.pid) for p in procs]
    # At the instant they crash at once, the kernel skips what is past its 64 handlers; never root's.
    skipped = [int(m.group(1)) for l in kmsg.lines for m in [re.search(r'(\d+)\(\S*\): over core_pipe_limit', l)] if m]
    check(rst == -11 and 'written' in rline and rpid not in skipped,
          'root\'s crash right after the user\'s storm of %d is reported (%d of the storm\'s skipped by the kernel '
          'as they came at once): %s' % (STORM, len(skipped), rline))
    over = [l for l in lines if 'reports under way already' in l]
    made = [l for l in lines if 'written' in l]
    handed = [p.pid for p in procs if p.pid not in skipped]
    check(all(s == -11 for s in statuses) and all(kmsg.line(pid) for pid in handed) and
          len(over) + len(made) == len(handed) and over,
          'the storm: every crash the kernel handed over has its line, %d reported, %d past the uid\'s %d slots'
          % (len(made), len(over), SLOTS))
    spans = []
    for l in made:
        m = re.search(r'read in (\d+) ms, reported in (\d+) ms', l)
        spans.append(int(m.group(2)) if m else -1)
    print('note the storm: the reports took %s ms' % sorted(spans))
    # The user's next report says how many were not made since its last one; all of them, counted once.
    # (A handler of the storm that has logged may hold its slot a moment more: that crash is counted too.)
    for _ in range(10):
        pid, _ = crash([STATIC], {'POSTMORTEM_DIR': home}, user)
        lines.append(kmsg.line(pid))
        if 'written' in lines[-1]:
            break
        time.sleep(0.5)
    over = [l for l in lines if 'reports under way already' in l]
    said = [int(n) for l in lines
            for n in re.findall(r'; (\d+) crashes of uid %d not reported since its last report' % user.pw_uid, l)]
    check('written' in lines[-1] and sum(said) == len(over),
          'the crashes past the slots are counted and said by the uid\'s next reports: %s of %d' % (said, len(over)))
    disable(sysdir)


def spool_cap(work, copies, sysdir, user, settings, kmsg):
    home = mkdir(os.path.join(work, 'capped'), user.pw_uid, 0o755)
    prog = os.path.join(home, 'many')
    shutil.copy(MANY, prog)
    os.chown(prog, user.pw_uid, user.pw_gid)
    os.chmod(prog, 0o111)
    enable(copies, sysdir, 'core', settings)
    private = os.path.join(sysdir, 'private', str(user.pw_uid), 'pending')

    def one(_):
        return crash([prog, '200'], {}, user, cwd=home)
    runs = []
    with concurrent.futures.ThreadPoolExecutor(SLOTS) as ex:
        runs = list(ex.map(one, range(150)))
    lines = [kmsg.line(pid) for pid, _ in runs]
    size = sum(os.stat(f).st_blocks * 512 for f in glob.glob(os.path.join(private, '*')))
    reports = len(glob.glob(os.path.join(private, '*.crash')))
    biggest = max((os.stat(b + '.crash').st_size + os.stat(b + '.json').st_size + os.stat(b + '.dmp').st_size
                   for b in written(private).values()), default=0)
    capped = [l for l in lines if 'at its cap' in l]
    print('note the private spool: %d reports, %d KiB (a report: %d KiB at most)' % (reports, size >> 10, biggest >> 10))
    check(all(st == -11 for _, st in runs) and reports and
          size <= SPOOL_BYTES + SLOTS * biggest and reports <= SPOOL_REPORTS + SLOTS,
          '150 crashes of a 0111 binary of 200 threads: the private spool stays within its cap (%d reports, %d KiB)'
          % (reports, size >> 10))
    check(capped and all('not written' in l for l in capped) and
          all('written' in l or 'at its cap' in l or 'under way already' in l for l in lines),
          'the crashes past the cap are said, nothing written for them (%d): %s' % (len(capped), capped[:1]))
    disable(sysdir)
    shutil.rmtree(os.path.join(sysdir, 'private'))


def slow_previous(work, copies, sysdir, user, settings, kmsg):
    rec = mkdir(os.path.join(work, 'slow'))
    stand_in = script(os.path.join(work, 'slow.sh'), '''#!/bin/sh
# A previous handler that reads the core, then lingers past its deadline with a sleeper of its group.
cat > /dev/null
echo $$ > {rec}/$1.pgid
cut -d' ' -f22 /proc/$1/stat > {rec}/$1.start
sleep 2
cut -d' ' -f22 /proc/$1/stat > {rec}/$1.later
sleep 600 &
sleep 600
'''.format(rec=rec))
    enable(copies, sysdir, '|%s %%P' % stand_in, settings)
    set_pauses(sysdir, 'previous 4000\n')
    home = mkdir(os.path.join(work, 'slow-home'), user.pw_uid, 0o700)
    t0 = time.monotonic()
    pid, st = crash([STATIC], {'POSTMORTEM_DIR': home}, user)
    held = time.monotonic() - t0
    line = kmsg.line(pid)
    set_pauses(sysdir, None)
    disable(sysdir)
    read_rec = lambda n: open(os.path.join(rec, '%d.%s' % (pid, n))).read().strip() \
        if os.path.exists(os.path.join(rec, '%d.%s' % (pid, n))) else None  # noqa: E731
    start, later, pgid = read_rec('start'), read_rec('later'), read_rec('pgid')
    check(st == -11 and 'previous handler killed at its deadline (4.0 s), with its process group' in line and
          'written' in line, 'a previous handler past its deadline: killed, with its group: %s' % line)
    check(start and start == later and held >= 4,
          'the process stayed held while it ran: its /proc the same process 2 s in (start %s, %s), and it was reaped '
          'only after the deadline (%.1f s)' % (start, later, held))
    left = [p for p in group(int(pgid))] if pgid else None
    check(left == [], 'nothing of its process group %s is left running (%s)' % (pgid, left))


def group(pgid):
    """The live processes of process group pgid (a zombie init has not reaped yet is not one)."""
    live = []
    for d in os.listdir('/proc'):
        try:
            with open('/proc/%s/stat' % d) as f:
                fields = f.read().rsplit(')', 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != 'Z':
            live.append(int(d))
    return live


def start_ticks(pid):
    with open('/proc/%d/stat' % pid) as f:
        return int(f.read().rsplit(')', 1)[1].split()[19])


def forged(work, copies, sysdir, user, settings, kmsg):
    reports = mkdir(os.path.join(work, 'forged'), user.pw_uid, 0o700)
    pending = os.path.join(reports, 'pending')
    enable(copies, sysdir, 'core', settings)
    suid = os.path.join(work, 'suid_deep')
    shutil.copy(DEEP, suid)
    os.chmod(suid, 0o4755)
    victims = []
    for what, exe in (('a process of the user\'s', DEEP), ('a set-user-ID process', suid)):
        r, w = os.pipe()
        p = subprocess.Popen([exe, '1', '1'], stdin=r, env={'POSTMORTEM_DIR': reports}, preexec_fn=as_user(user),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        STARTED.append(p)
        os.close(r)
        victims.append((what, p, w))
    for _ in range(100):
        if all(threads_of(p.pid) == 2 for _, p, _ in victims):
            break
        time.sleep(0.05)
    for what, p, _ in victims:
        # The forger: its executable named to write "Process: x [N]" into its own report.
        name = os.path.join(reports, 'x\nProcess: x [%d]' % p.pid)
        shutil.copy(LINKED, name)
        os.chown(name, user.pw_uid, user.pw_gid)
        fpid, fst = crash([name], {'POSTMORTEM_DIR': reports, 'LD_LIBRARY_PATH': BUILD}, user)
        fline = kmsg.line(fpid)
        check('reported in-process already' in fline, '%s: the forger reported itself (%s): %s' % (what, fst, fline))
        # And what the user may write in its own directory: a .crash naming N, a twin of N's pid and start.
        fake = str(uuid.uuid4()).upper()
        with open(os.path.join(pending, fake + '.crash'), 'w') as f:
            f.write('Process:               x [%d]\n' % p.pid)
        with open(os.path.join(pending, fake + '.json'), 'w') as f:
            json.dump({'schema': 'postmortem', 'schema_version': 1,
                       'header': {'pid': p.pid, 'start_ticks': start_ticks(p.pid)}}, f)
        for ext in ('.crash', '.json'):
            os.chown(os.path.join(pending, fake + ext), user.pw_uid, user.pw_gid)
    for what, p, w in victims:
        os.close(w)
        p.wait(timeout=300)
        line = kmsg.line(p.pid)
        places = [pending] + [os.path.join(sysdir, d, str(user.pw_uid), 'pending') for d in ('private',)]
        mine = [b for d in places if os.path.isdir(d) for b in written(d).values()
                if twin(b)['header'].get('pid') == p.pid and 'Report Source' in open(b + '.crash').read()]
        check(len(mine) == 1 and 'written' in line and 'reported in-process already' not in line,
              '%s N, after a forger named for it and a forged report of its pid and start in the same directory: '
              'its report written (%d): %s' % (what, len(mine), line))
    disable(sysdir)


def main():
    with ReporterOn(BUILD, USER) as on:
        try:
            for step in (endless, storm, spool_cap, slow_previous, forged):
                step(on.work, on.copies, on.sysdir, on.user, on.settings, on.kmsg)
        finally:
            # Before the user is removed: userdel refuses a user with processes.
            for p in STARTED:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    finish()


if __name__ == '__main__':
    main()
