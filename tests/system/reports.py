"""The system tests' reading of what the system reporter wrote, and of cores.

written(pending)           the reports of a pending/ directory, by id
read_back(cli, path)       a report's three files read by the project's readers
                           (`postmortem convert`), its .crash by the Apple parsers'
                           rules against its twin (tests/ecosystem/apple_parsers.py),
                           its .dmp by Breakpad's minidump_stackwalk: what failed
gdb_threads(exe, core)     gdb's backtrace of every thread of a core (bench/gdb_frames.py),
                           past main and the entry point: its physical frames by LWP
frames_differ(report, g)   the threads whose frames differ from gdb's: the ELF symbol
                           each frame is in, in order (aliases agree by their address)
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, 'tests', 'ecosystem'))
import apple_parsers  # noqa: E402

GDB_FRAMES = os.path.join(SOURCE, 'bench', 'gdb_frames.py')
STACKWALK = os.path.join(os.environ.get('PM_BREAKPAD_BIN', ''), 'minidump_stackwalk')
PHYSICAL = ('NORMAL', 'SIGTRAMP')


def written(pending):
    """{id: path without extension} of the .crash files in pending/."""
    return {os.path.basename(p)[:-6]: p[:-6] for p in glob.glob(os.path.join(pending, '*.crash'))}


def twin(base):
    with open(base + '.json', encoding='utf-8') as f:
        return json.load(f)


def stackwalk_threads(dmp):
    """The threads minidump_stackwalk finds in a minidump (-m: "thread|frame|module|..."), or an error."""
    p = subprocess.run([STACKWALK, '-m', dmp], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return 'minidump_stackwalk failed: %s' % p.stderr.strip()[-300:]
    return {int(l.split('|', 1)[0]) for l in p.stdout.splitlines() if l[:1].isdigit()}


def read_back(cli, base):
    """What fails when each of base's .crash, .json and .dmp is read back (empty: nothing)."""
    bad, doc = [], twin(base)
    threads = len(doc.get('threads', []))
    for ext in ('crash', 'json', 'dmp'):
        p = subprocess.run([cli, 'convert', base + '.' + ext, '--to', 'json'], capture_output=True, text=True)
        got = json.loads(p.stdout) if p.returncode == 0 else {}
        if p.returncode != 0 or len(got.get('threads', [])) != threads:
            bad.append('convert of the .%s: status %d, %d threads of %d %s' %
                       (ext, p.returncode, len(got.get('threads', [])), threads, p.stderr.strip()))
    errors, _ = apple_parsers.check(base + '.crash', base + '.json')
    bad += errors
    walked = stackwalk_threads(base + '.dmp')
    if isinstance(walked, str) or len(walked) != threads:
        bad.append('minidump_stackwalk: %s' % (walked if isinstance(walked, str) else
                                               '%d threads of %d' % (len(walked), threads)))
    return bad


def gdb_threads(exe, core, extra=()):
    """{lwp: [{name, sym, start, pc}]}: gdb's physical frames of each thread of the core."""
    with tempfile.TemporaryDirectory(prefix='pm-gdb-') as d:
        out = os.path.join(d, 'frames.json')
        cmd = ['gdb', '-nx', '-batch', '-ex', 'set backtrace past-main on', '-ex', 'set backtrace past-entry on']
        for e in extra:
            cmd += ['-ex', e]
        cmd += ['-ex', 'source ' + GDB_FRAMES, exe, core]
        subprocess.run(cmd, env=dict(os.environ, PM_GDB_FRAMES=out), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=600)
        if not os.path.exists(out):
            return {}
        with open(out, encoding='utf-8') as f:
            return {t['lwp']: [x for x in t['frames'] if x['type'] in PHYSICAL] for t in json.load(f)}


def frames_differ(report, gdb):
    """One line per thread whose frames are not gdb's (by ELF symbol, in order), and per thread either lacks."""
    bad = []
    mine = {t['id']: t.get('frames', []) for t in report['threads']}
    for lwp in sorted(set(mine) | set(gdb)):
        if lwp not in mine or lwp not in gdb:
            bad.append('thread %d: only in %s' % (lwp, 'gdb' if lwp in gdb else 'the report'))
            continue
        g, p = gdb[lwp], mine[lwp]
        same = len(g) == len(p) and all(
            x['sym'] == y.get('symbol') or (x['start'] is not None and x['start'] == y['address'] - y.get('offset', 0))
            for x, y in zip(g, p))
        if not same:
            bad.append('thread %d: gdb %s, the report %s' % (lwp, [x['sym'] or x['name'] for x in g],
                                                              [y.get('symbol') for y in p]))
    return bad
