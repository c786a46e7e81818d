#!/usr/bin/env python3
"""Issue 41: crash groups (docs/benchmarks.md, "Crash groups").

`postmortem list --group` over 10,000 reports (100 crash groups of a real
report), its time and peak memory beside `postmortem list` on the same
directory (and `list` of another build, --before, when given: the list of
before this change), and beside `coredumpctl list` where systemd-coredump
is installed; then the signature computed per report, in µs, on reports of
several sizes.

    group_cost.py GENERATOR POSTMORTEM CRASH_TARGET SOURCE_ROOT [--before POSTMORTEM]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

REPORTS = 10000
GROUPS = 100
ROUNDS = 5


def run(argv):
    """(wall s, lines of output) of one run of argv."""
    t0 = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=benchlib.clean_env(),
                          check=False)
    t1 = time.perf_counter()
    if proc.returncode != 0:
        raise RuntimeError('%s exited %d' % (' '.join(argv), proc.returncode))
    return t1 - t0, proc.stdout.count(b'\n')


def measured(argv):
    """(min s, median s, output lines) over ROUNDS runs after one that warms the page cache."""
    times, lines = [], 0
    for _ in range(ROUNDS + 1):
        t, lines = run(argv)
        times.append(t)
    lo, med = benchlib.summary(times[1:])
    return lo, med, lines


def peak_rss_mib(argv):
    """Peak RSS of one run, from the kernel's accounting of that child alone."""
    pid = os.posix_spawn(argv[0], argv, benchlib.clean_env(),
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, '/dev/null', os.O_WRONLY, 0),
                                       (os.POSIX_SPAWN_OPEN, 2, '/dev/null', os.O_WRONLY, 0)])
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_maxrss / 1024.0


def coredumpctl_row():
    path = shutil.which('coredumpctl')
    if not path:
        return None, 'coredumpctl: not measured: systemd-coredump is not installed on this machine'
    try:
        lo, med, lines = measured([path, 'list', '--no-pager'])
    except (RuntimeError, OSError) as e:
        return None, 'coredumpctl: not measured: %s (no journal of core dumps here)' % e
    return (lo, med, peak_rss_mib([path, 'list', '--no-pager']), lines), None


def main():
    args = sys.argv[1:]
    before = None
    if '--before' in args:
        i = args.index('--before')
        before = args[i + 1]
        del args[i:i + 2]
    generator, postmortem, crash_target, _source_root = args[:4]

    crash = benchlib.Crash([crash_target, '1', 'crash'])
    work = tempfile.mkdtemp(prefix='pm-bench-groups-')
    try:
        subprocess.run([generator, 'write', crash.json_path, work, str(REPORTS), str(GROUPS)], check=True)
        size = sum(os.path.getsize(os.path.join(work, 'pending', f)) for f in os.listdir(os.path.join(work, 'pending')))
        print('%d reports (%d crash groups), %.1f MiB in pending/, warm page cache; min and median of %d runs'
              % (REPORTS, GROUPS, size / 1048576.0, ROUNDS))
        rows = [('postmortem list', [postmortem, 'list', '--dir', work]),
                ('postmortem list --group', [postmortem, 'list', '--group', '--dir', work]),
                ('postmortem list --group --json', [postmortem, 'list', '--group', '--json', '--dir', work])]
        if before:
            rows.insert(0, ('postmortem list (before)', [before, 'list', '--dir', work]))
        results = {}
        print('%-32s %10s %10s %10s %7s' % ('', 'min ms', 'median ms', 'peak MiB', 'lines'))
        for name, argv in rows:
            lo, med, lines = measured(argv)
            rss = peak_rss_mib(argv)
            results[name] = med
            print('%-32s %10.1f %10.1f %10.1f %7d' % (name, lo * 1e3, med * 1e3, rss, lines))
        row, why = coredumpctl_row()
        if row:
            print('%-32s %10.1f %10.1f %10.1f %7d' % ('coredumpctl list', row[0] * 1e3, row[1] * 1e3, row[2], row[3]))
        else:
            print(why)
        base = results['postmortem list']
        for name in results:
            if name != 'postmortem list':
                print('%s / list: %.2fx' % (name, results[name] / base))

        print('\nthe signature and title of one report, computed from its frames (median and 99th percentile µs)')
        samples = [crash.json_path]
        root = _source_root
        for rel in ['tests/golden/many.json', 'tests/golden/linux_crash.json', 'sample_crashes/reports/watchdog_0x8badf00d.json']:
            samples.append(os.path.join(root, rel))
        shared = os.environ.get('PM_SHARED', os.path.join(root, '..', 'shared'))
        if not os.path.isdir(os.path.join(shared, 'samples')):
            shared = '/work/shared'  # where tests/meson.build looks next
        for rel in ['samples/apple/acrp__XCDYouTubeKit-54.txt', 'samples/apple/pycrashreport__user_mode_crash_report_ios14_symbolicated.ips']:
            p = os.path.join(shared, rel)
            if os.path.exists(p):
                samples.append(p)
        out = subprocess.run([generator, 'time', '20000'] + samples, check=True, stdout=subprocess.PIPE).stdout.decode()
        print('%10s %10s %7s  %s' % ('median µs', 'p99 µs', 'frames', 'report: title'))
        for line in out.splitlines():
            med, p99, frames, name, title = line.split(' ', 4)
            print('%10s %10s %7s  %s: %s' % (med, p99, frames, name, title))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        crash.close()


if __name__ == '__main__':
    main()
