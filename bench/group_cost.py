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
    """(wall s, CPU s (user + system), peak RSS MiB, lines of output) of one run of argv."""
    out = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, benchlib.clean_env(),
                         file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                       (os.POSIX_SPAWN_OPEN, 2, '/dev/null', os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    t1 = time.perf_counter()
    if status != 0:
        raise RuntimeError('%s exited with status 0x%x' % (' '.join(argv), status))
    out.seek(0)
    lines = out.read().count(b'\n')
    out.close()
    return t1 - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, lines


def measured(commands):
    """Per command (name, argv): (min and median wall s, min and median CPU s, peak RSS MiB,
    lines), over ROUNDS rounds after one that warms the page cache, the commands taking turns
    within each round so that the machine's neighbours weigh on each alike."""
    runs = {name: [] for name, _ in commands}
    for r in range(ROUNDS + 1):
        for name, argv in commands:
            got = run(argv)
            if r > 0:
                runs[name].append(got)
    out = {}
    for name, got in runs.items():
        wall = benchlib.summary([g[0] for g in got])
        cpu = benchlib.summary([g[1] for g in got])
        out[name] = (wall, cpu, max(g[2] for g in got), got[-1][3])
    return out


def coredumpctl_row():
    """coredumpctl list as a command to measure, or why it is not measured."""
    path = shutil.which('coredumpctl')
    if not path:
        return None, 'coredumpctl: not measured: systemd-coredump is not installed on this machine'
    try:
        run([path, 'list', '--no-pager'])
    except (RuntimeError, OSError) as e:
        return None, 'coredumpctl: not measured: %s (no journal of core dumps here)' % e
    return ('coredumpctl list', [path, 'list', '--no-pager']), None


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
        print('%d reports (%d crash groups), %.1f MiB in pending/, warm page cache; ms, min and median of %d runs'
              % (REPORTS, GROUPS, size / 1048576.0, ROUNDS))
        rows = [('postmortem list', [postmortem, 'list', '--dir', work]),
                ('postmortem list --group', [postmortem, 'list', '--group', '--dir', work]),
                ('postmortem list --group --json', [postmortem, 'list', '--group', '--json', '--dir', work])]
        if before:
            rows.insert(0, ('postmortem list (before)', [before, 'list', '--dir', work]))
        row, why = coredumpctl_row()
        if row:
            rows.append(row)
        results = measured(rows)
        print('%-32s %9s %9s %9s %9s %9s %7s' % ('', 'wall min', 'median', 'CPU min', 'median', 'peak MiB',
                                                  'lines'))
        for name, _ in rows:
            wall, cpu, rss, lines = results[name]
            print('%-32s %9.0f %9.0f %9.0f %9.0f %9.1f %7d' % (name, wall[0] * 1e3, wall[1] * 1e3, cpu[0] * 1e3,
                                                                 cpu[1] * 1e3, rss, lines))
        if why:
            print(why)
        base = results['postmortem list']
        for name, _ in rows:
            if name != 'postmortem list':
                print('%s / list: %.2fx CPU (min), %.2fx wall (min)'
                      % (name, results[name][1][0] / base[1][0], results[name][0][0] / base[0][0]))

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
