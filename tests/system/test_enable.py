#!/usr/bin/env python3
"""`postmortem system enable | disable | status` as a newcomer and a local
user meet them (issues 39 and 40).

- A handler a user could replace is refused, and nothing changes (the
  kernel's settings, the drop-in, the analysis user, the state directory):
  a copy of the build in a tree a test user owns, a root's build below a
  directory that user owns, a directory its group may write, a handler every
  user may write.  A root's copy in a sticky directory every user may write
  (/tmp's rule) is taken.  A state directory below a directory its group may
  write, a symbolic link or a user's directory is refused too.
- `--handler PATH` is held to the same rule (a user's copy refused), and
  must name a file called postmortem-core-handler by an absolute path.
- Enabled with a root's copy of the handler (`--handler`, handler_copy.py:
  whoever owns the checkout, at whatever path) and a --state-dir whose
  parents do not exist (a machine without /var/local/lib): the parents made root's 0755,
  the state 0600, the analysis identity made (a system user and group
  postmortem-core, no home, no shell) and recorded, and the sysctl drop-in
  written.  The drop-in is applied as a boot applies it — by procps' `sysctl
  -p` on a copy of it, and by systemd-sysctl over every sysctl.d directory,
  only our three settings (the kernel's values put back first, and after) —
  and gives our pattern; `status` says what the next boot applies as procps'
  `sysctl --system` reads it, also when a later file overrides ours or a file
  of ours' name in a later directory is hidden by ours.
- `enable --dsn` on an enabled machine keeps the DSN and the environment in
  the state (root's, 0600), never prints the key, and a refused DSN changes
  nothing; `--no-dsn` clears them.
- `disable` puts the three settings back, removes the drop-in and the state,
  and keeps the user.

Everything it changes is put back however it ends (kernel_settings.py), the
test user removed.  A few seconds.

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS.
"""
import grp
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from handler_copy import SPECIFIERS, RootCopies, enable_args  # noqa: E402
from kernel_settings import (ANALYSIS_USER, DROPIN, KernelSettings, file_bytes, read,  # noqa: E402
                             remove_user, user_exists)

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
HANDLER = os.path.realpath(os.path.join(BUILD, 'system', 'postmortem-core-handler'))
COPY = []  # enable's --handler of the root's copy (handler_copy.py), once made
USER = 'pmenabletest'
RUN_DIR = '/run/sysctl.d'
OVERRIDE = RUN_DIR + '/99-zzz-pmtest.conf'   # sorts after ours: its pattern is the next boot's
SHADOW = RUN_DIR + '/' + os.path.basename(DROPIN)  # ours' name in a later directory: /etc's hides it
KEYS = ('kernel.core_pattern', 'kernel.core_pipe_limit', 'fs.suid_dumpable')
SYSTEMD_SYSCTL = '/usr/lib/systemd/systemd-sysctl'
DSN_KEY = '0123456789abcdef0123456789abcdef'
DSN = 'https://%s@o1.ingest.example.com/42' % DSN_KEY


def system(cli, *args):
    p = subprocess.run([cli, 'system'] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def kernel():
    return tuple(read(n) for n in ('pattern', 'pipe_limit', 'suid_dumpable'))


def machine(sysdir):
    """What enable may change: the kernel's settings, the drop-in, the analysis user, the state directory."""
    return kernel(), file_bytes(DROPIN), user_exists(ANALYSIS_USER), os.path.lexists(sysdir)


def owner_mode(path):
    st = os.lstat(path)
    return st.st_uid, stat.S_IMODE(st.st_mode)


def chown_tree(root, uid):
    gid = pwd.getpwuid(uid).pw_gid if uid else 0
    for d, _, names in os.walk(root):
        for p in [d] + [os.path.join(d, n) for n in names]:
            os.chown(p, uid, gid)


def build_copy(root, uid=0):
    """postmortem and its handler laid out under root as a build tree has them, uid's; the copy's CLI."""
    for sub, src in (('tools', CLI), ('system', HANDLER)):
        os.makedirs(os.path.join(root, sub))
        shutil.copy2(src, os.path.join(root, sub))
    chown_tree(root, uid)
    return os.path.join(root, 'tools', 'postmortem')


def test_user():
    if not user_exists(USER):
        subprocess.run(['useradd', '--system', '--no-create-home', '--shell', '/usr/sbin/nologin', USER], check=True)
    return pwd.getpwnam(USER)


def refused_handlers(work, user):
    sysdir = os.path.join(work, 's')
    cases = []
    own = os.path.join(work, 'u')
    os.mkdir(own)
    cases.append(('a build tree the user owns', build_copy(os.path.join(own, 'b'), user.pw_uid),
                  'is uid %d (%s)\'s, not root\'s' % (user.pw_uid, USER)))
    below = os.path.join(work, 'w')
    os.mkdir(below)
    os.chown(below, user.pw_uid, user.pw_gid)
    cases.append(('root\'s build tree below a directory the user owns', build_copy(os.path.join(below, 'b')),
                  '%s is uid %d (%s)\'s' % (below, user.pw_uid, USER)))
    group = os.path.join(work, 'g')
    os.mkdir(group)
    os.chmod(group, 0o775)
    cases.append(('a directory its group may write', build_copy(os.path.join(group, 'b')),
                  '%s may be written by group root (mode 0775)' % group))
    open_file = os.path.join(work, 'f')
    cli = build_copy(open_file)
    os.chmod(os.path.join(open_file, 'system', 'postmortem-core-handler'), 0o757)
    cases.append(('a handler every user may write', cli, 'may be written by every user (mode 0757)'))
    cases.append(('--handler naming the user\'s copy', CLI, 'is uid %d (%s)\'s, not root\'s' % (user.pw_uid, USER)))
    for what, cli, why in cases:
        before = machine(sysdir)
        asked = ['--handler', os.path.join(own, 'b', 'system', 'postmortem-core-handler')] if cli == CLI else []
        rc, out = system(cli, 'enable', '--state-dir', sysdir, *asked)
        check(rc == 1 and 'refused the core handler' in out and why in out and 'meson install' in out,
              'enable refuses %s, says why and how to install it: %s' % (what, out.strip()))
        check(machine(sysdir) == before, '%s: nothing changed (kernel, drop-in, user, state directory)' % what)
    for asked, why in (('postmortem-core-handler', 'an absolute path'), ('/bin/true', 'named postmortem-core-handler')):
        before = machine(sysdir)
        rc, out = system(CLI, 'enable', '--state-dir', sysdir, '--handler', asked)
        check(rc == 2 and why in out and machine(sysdir) == before, 'enable --handler %s: bad usage, nothing changed: %s'
              % (asked, out.strip()))
    sticky = os.path.join(work, 'k')
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    cli = build_copy(os.path.join(sticky, 'b'))
    rc, out = system(cli, 'enable', '--state-dir', sysdir)
    check(rc == 0 and read('pattern').startswith(('|' + os.path.join(sticky, 'b')).encode()),
          'enable takes root\'s tree in a sticky directory every user may write: %s' % out.strip())
    rc, out = system(cli, 'disable', '--state-dir', sysdir)
    check(rc == 0, 'and disable puts it back: %s' % out.strip())


def refused_state_dirs(work, user):
    group = os.path.join(work, 'gs')
    os.mkdir(group)
    os.chmod(group, 0o775)
    real = os.path.join(work, 'real')
    os.mkdir(real)
    link = os.path.join(work, 'ln')
    os.symlink(real, link)
    users = os.path.join(work, 'us')
    os.mkdir(users)
    os.chown(users, user.pw_uid, user.pw_gid)
    for what, sysdir, why in (('below a directory its group may write', os.path.join(group, 's'),
                               '%s may be written by group root' % group),
                              ('through a symbolic link', os.path.join(link, 's'), '%s is a symbolic link' % link),
                              ('below a user\'s directory', os.path.join(users, 's'), '%s is uid %d' % (users, user.pw_uid))):
        before = machine(sysdir)
        rc, out = system(CLI, 'enable', '--state-dir', sysdir)
        check(rc == 1 and why in out, 'enable refuses a state directory %s: %s' % (what, out.strip()))
        check(machine(sysdir) == before and not os.listdir(real), '%s: nothing changed, nothing made' % what)


def procps_next_boot():
    """The last value of each of our settings in `sysctl --system --dry-run` (procps' order of the files)."""
    out = subprocess.run(['sysctl', '--system', '--dry-run'], capture_output=True, text=True).stdout
    last = {}
    for line in out.splitlines():
        key, sep, value = line.partition(' = ')
        if sep and key in KEYS:
            last[key] = value
    return last


def boot_applies(settings, enabled):
    """The kernel's values put back, then our three applied by systemd-sysctl from every sysctl.d directory."""
    settings.restore()
    subprocess.run([SYSTEMD_SYSCTL] + ['--prefix=' + k for k in KEYS], check=True)
    applied = kernel()
    settings.set(enabled[0], enabled[1], enabled[2])
    return applied


def next_boot(settings, sysdir, enabled):
    rc, out = system(CLI, 'status', '--state-dir', sysdir)
    lines = ['next boot: %s = %s (%s)' % (k, v.decode(), DROPIN) for k, v in zip(KEYS, enabled)]
    check(rc == 0 and all(line in out.splitlines() for line in lines) and 'next boot: postmortem\'s: yes' in out,
          'status: the next boot applies our three from the drop-in:\n' + out)
    procps = procps_next_boot()
    check(procps == dict(zip(KEYS, (v.decode() for v in enabled))),
          'procps\' sysctl --system reads the same three last: %s' % procps)

    copy = os.path.join(os.path.dirname(sysdir), 'copy.conf')
    shutil.copy(DROPIN, copy)
    settings.restore()
    subprocess.run(['sysctl', '-q', '-p', copy], check=True)
    check(kernel() == enabled, 'sysctl -p on a copy of the drop-in sets our three: %s' % (kernel(),))
    settings.set(*enabled)
    applied = boot_applies(settings, enabled)
    check(applied == enabled, 'systemd-sysctl over every sysctl.d directory (as at boot) sets our three: %s' %
          (applied,))

    os.makedirs(RUN_DIR, exist_ok=True)
    with open(OVERRIDE, 'w') as f:
        f.write('# a later file\nkernel/core_pattern = core\n')
    rc, out = system(CLI, 'status', '--state-dir', sysdir)
    check('next boot: kernel.core_pattern = core (%s)' % OVERRIDE in out and
          'next boot: postmortem\'s: no (the handler is in force only until a reboot)' in out,
          'status: a later file (a \'/\' key) overrides our pattern at the next boot, and status says so')
    check(boot_applies(settings, enabled)[0] == b'core', 'and systemd-sysctl agrees')
    os.unlink(OVERRIDE)

    with open(SHADOW, 'w') as f:
        f.write('kernel.core_pattern = hidden\n')
    rc, out = system(CLI, 'status', '--state-dir', sysdir)
    check(lines[0] in out.splitlines(), 'status: a file of our name in /run is hidden by /etc\'s')
    check(boot_applies(settings, enabled) == enabled, 'and systemd-sysctl agrees')
    os.unlink(SHADOW)


def delivery(sysdir):
    state = os.path.join(sysdir, 'state')
    rc, out = system(CLI, 'enable', *COPY, '--dsn', DSN, '--environment', 'staging')
    text = open(state).read()
    check(rc == 0 and 'already enabled' in out and 'https://***@o1.ingest.example.com/42' in out and
          DSN_KEY not in out, 'enable --dsn on an enabled machine brings it up to date, key unsaid: %s' % out.strip())
    check('dsn %s\n' % DSN.encode().hex() in text and 'environment %s\n' % b'staging'.hex() in text and
          'upload_private 0\n' in text and owner_mode(state) == (0, 0o600),
          'the state keeps the DSN and the environment in hex, root\'s 0600')
    rc, out = system(CLI, 'status', '--state-dir', sysdir)
    check('delivery: to Sentry, DSN https://***@o1.ingest.example.com/42, environment staging' in out and
          DSN_KEY not in out, 'status shows the DSN without its key')
    rc, out = system(CLI, 'enable', *COPY)
    check(rc == 0 and open(state).read() == text, 'enable without --dsn keeps the delivery')
    rc, out = system(CLI, 'enable', *COPY, '--dsn', 'https://%s@/42' % DSN_KEY)
    check(rc == 2 and 'refused' in out and DSN_KEY not in out and open(state).read() == text,
          'a bad DSN is refused, unsaid, and nothing changes: %s' % out.strip())
    rc, out = system(CLI, 'enable', *COPY, '--dsn', DSN, '--upload-private')
    check(rc == 0 and 'upload_private 1\n' in open(state).read() and 'private spool\'s reports too' in out,
          '--upload-private is kept')
    rc, out = system(CLI, 'enable', *COPY, '--no-dsn')
    text = open(state).read()
    check(rc == 0 and 'dsn ' not in text and 'delivery: none' in system(CLI, 'status', '--state-dir', sysdir)[1],
          '--no-dsn clears the delivery')


def enabled_copy(work, settings, copies):
    sysdir = os.path.join(work, 'v', 'l', 'pm')
    COPY[:] = enable_args(copies, sysdir)
    ours = '|%s -d %s %s' % (copies.handler, sysdir, SPECIFIERS)
    settings.set('core', pipe_limit='0', suid_dumpable='0')
    before = kernel()
    rc, out = system(CLI, 'enable', *COPY)
    enabled = (ours.encode(), b'64', b'2')
    check(rc == 0 and kernel() == enabled, 'enable --handler (a root\'s copy) sets the three: %s' % out.strip())
    check([owner_mode(d) for d in (os.path.join(work, 'v'), os.path.dirname(sysdir), sysdir)] == [(0, 0o755)] * 3,
          'the state directory and the parents it lacked are made, root\'s 0755')
    pw = pwd.getpwnam(ANALYSIS_USER) if user_exists(ANALYSIS_USER) else None
    check(pw and pw.pw_uid < 1000 and pw.pw_uid != 0 and grp.getgrgid(pw.pw_gid).gr_name == ANALYSIS_USER and
          pw.pw_shell == '/usr/sbin/nologin' and pw.pw_dir == '/nonexistent' and not os.path.exists('/nonexistent'),
          'the analysis identity: a system user and its own group %s, no home, no shell (%s)' % (ANALYSIS_USER, pw))
    state = os.path.join(sysdir, 'state')
    check(owner_mode(state) == (0, 0o600) and pw and
          'analysis_ids %d:%d\n' % (pw.pw_uid, pw.pw_gid) in open(state).read(),
          'the state is root\'s 0600 and records its ids')
    lines = ['%s = %s' % (k, v.decode()) for k, v in zip(KEYS, enabled)]
    check(owner_mode(DROPIN) == (0, 0o644) and [line for line in open(DROPIN).read().splitlines()
                                                  if not line.startswith('#')] == lines,
          'the drop-in %s is root\'s 0644 with the three' % DROPIN)
    rc, out = system(CLI, 'status', '--state-dir', sysdir)
    check(rc == 0 and 'analysis identity: uid %d, gid %d (%s)' % (pw.pw_uid, pw.pw_gid, ANALYSIS_USER) in out,
          'status shows the analysis identity')
    next_boot(settings, sysdir, enabled)
    delivery(sysdir)
    rc, out = system(CLI, 'disable', '--state-dir', sysdir)
    check(rc == 0 and kernel() == before and file_bytes(DROPIN) is None and not os.path.exists(state),
          'disable puts the three back and removes the drop-in and the state: %s' % out.strip())
    check(user_exists(ANALYSIS_USER) and 'the user %s is kept' % ANALYSIS_USER in out,
          'disable keeps the analysis identity, and says so')
    rc, out = system(CLI, 'status', '--state-dir', sysdir)
    check('next boot: postmortem\'s: no' in out, 'status: the next boot is not postmortem\'s any more')


def main():
    made_run_dir = not os.path.isdir(RUN_DIR)
    user = test_user()
    try:
        # A short name: the pattern holds the state directory's path, in at most 127 bytes.
        with tempfile.TemporaryDirectory(prefix='pe', dir='/tmp') as work, \
                KernelSettings(files=(OVERRIDE, SHADOW)) as settings, RootCopies(BUILD) as copies:
            os.chmod(work, 0o755)
            refused_handlers(work, user)
            refused_state_dirs(work, user)
            enabled_copy(work, settings, copies)
    finally:
        remove_user(USER)
        if made_run_dir and os.path.isdir(RUN_DIR) and not os.listdir(RUN_DIR):
            os.rmdir(RUN_DIR)
    finish()


if __name__ == '__main__':
    main()
