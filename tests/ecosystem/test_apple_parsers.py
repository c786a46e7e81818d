#!/usr/bin/env python3
"""Every kind of .crash postmortem writes, read by Sentry's and LLDB's rules.

Crashes real programs (a fault in a worker thread, abort, a stack overflow), a
watchdog hang and a snapshot, converts every shared Apple sample, and runs
apple_parsers.py on each .crash against its JSON twin.  One of them names
itself (its file, its threads) with a newline and a forged header line: its
.crash keeps one `Process:` line, and the names come back whole from it.  Also proves the check
can fail: the layout written before debug ids (the full build id in <…>) must
be rejected, as both tools reject it.

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SHARED.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import apple_parsers  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
SHARED = os.environ['PM_SHARED']
CLI = os.path.join(BUILD, 'tools', 'postmortem')

# (kind, program and arguments, the exit status it must end with: negative = that signal)
RUNS = [
    ('crash', ['sample_crashes/crash_two_threads_crash'], -11),
    ('crash', ['sample_crashes/crash_abort'], -6),
    ('crash', ['tests/crash_words', 'context'], -11),  # crash message, Annotations, Breadcrumbs
    ('crash', ['sample_crashes/crash_stack_overflow_thread'], -11),
    ('crash', ['sample_crashes/crash_many_threads'], -11),
    ('hang', ['sample_crashes/crash_hang', 'keep'], 0),
    ('snapshot', ['tests/crash_snapshot'], 0),
    # An uncaught C++ exception (its message and Last Exception Backtrace), under the preload library.
    ('crash', ['tests/crash_cxx_throw'], -6),
]
PRELOADED = {'tests/crash_cxx_throw'}


def capture(kind, argv, status, top):
    """Run one program with its own reports directory; the one report it leaves."""
    d = tempfile.mkdtemp(prefix=kind + '-', dir=top)
    env = dict(os.environ, POSTMORTEM_DIR=d)
    if argv[0] in PRELOADED:
        env['LD_PRELOAD'] = os.path.join(BUILD, 'reporter', 'libpostmortem-preload.so')
    p = subprocess.run([os.path.join(BUILD, argv[0])] + argv[1:], env=env, timeout=120,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if p.returncode != status:
        sys.exit('%s ended with %d, expected %d' % (argv[0], p.returncode, status))
    crashes = glob.glob(os.path.join(d, 'pending', '*.crash'))
    if len(crashes) != 1:
        sys.exit('%s left %d reports in %s' % (argv[0], len(crashes), d))
    return crashes[0], crashes[0][:-len('.crash')] + '.json'


def hostile_names(top):
    """A process whose file name is "evil\\nProcess: x [1]" and whose threads' names hold a
    newline too: one Process: line, and postmortem's reader gives every name back whole."""
    d = tempfile.mkdtemp(prefix='names-', dir=top)
    exe = os.path.join(d, 'evil\nProcess: x [1]')
    shutil.copy(os.path.join(BUILD, 'tests', 'crash_names'), exe)
    # The copy's $ORIGIN-relative RUNPATH no longer finds the library.
    env = dict(os.environ, POSTMORTEM_DIR=os.path.join(d, 'reports'), LD_LIBRARY_PATH=BUILD)
    p = subprocess.Popen([exe], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    status = p.wait(timeout=120)
    crashes = glob.glob(os.path.join(d, 'reports', 'pending', '*.crash'))
    if status != -11 or len(crashes) != 1:
        sys.exit('crash_names ended with %d and left %d reports' % (status, len(crashes)))
    with open(crashes[0], encoding='utf-8', errors='surrogateescape') as f:
        lines = [line for line in f.read().split('\n') if line.startswith('Process:')]
    read = subprocess.run([CLI, 'convert', '--to', 'json', crashes[0]], capture_output=True, text=True)
    doc = json.loads(read.stdout) if read.returncode == 0 else {}
    header = doc.get('header', {})
    names = [t.get('name') for t in doc.get('threads', [])]
    errors = []
    if len(lines) != 1 or not lines[0].endswith(' [%d]' % p.pid):
        errors.append('the .crash has %d Process: lines: %r' % (len(lines), lines))
    if header.get('process_name') != 'evil\nProcess: x [1]' or header.get('pid') != p.pid:
        errors.append('postmortem reads the process back as %r [%r]' % (header.get('process_name'), header.get('pid')))
    if names != ['m\nProcess: x [1', 'w\nThread 0 Cr']:
        errors.append('postmortem reads the threads\' names back as %r' % names)
    return errors, (crashes[0], crashes[0][:-len('.crash')] + '.json')


def convert(sample, top):
    base = os.path.join(top, os.path.basename(sample))
    for to in ('crash', 'json'):
        subprocess.run([CLI, 'convert', sample, '--to', to, '-o', base + '.' + to], check=True)
    return base + '.crash', base + '.json'


def old_layout(crash, json_path, top):
    """The same report with the full build id where the debug id now is."""
    import json
    with open(json_path) as f:
        images = json.load(f)['images']
    with open(crash) as f:
        text = f.read()
    for im in images:
        if im.get('debug_id') and len(im['code_id']) > 32:
            text = text.replace('<%s>' % im['debug_id'].replace('-', ''), '<%s>' % im['code_id'])
    path = os.path.join(top, 'old-layout.crash')
    with open(path, 'w') as f:
        f.write(text)
    return path


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix='pm-apple-parsers-') as top:
        pairs = [(kind, capture(kind, argv, status, top)) for kind, argv, status in RUNS]
        errors, pair = hostile_names(top)
        pairs.append(('names', pair))
        if errors:
            failed += 1
            print('FAIL names     a newline in the process\'s and its threads\' names:\n    ' + '\n    '.join(errors))
        else:
            print('ok   names     a newline in the process\'s and its threads\' names: one Process: line, '
                  'each name read back whole')
        samples = sorted(glob.glob(os.path.join(SHARED, 'samples', 'apple', '*.txt')) +
                         glob.glob(os.path.join(SHARED, 'samples', 'apple', '*.ips')) +
                         glob.glob(os.path.join(SHARED, 'samples', 'apple', '*.crash')))
        pairs += [('converted', convert(s, top)) for s in samples]
        for kind, (crash, json_path) in pairs:
            errors, want = apple_parsers.check(crash, json_path)
            frames = sum(len(t['frames']) for t in want['threads'])
            if errors or (kind != 'converted' and (not want['threads'] or not frames or not want['images'])):
                failed += 1
                print('FAIL %-9s %s' % (kind, crash))
                for e in errors or ['nothing to compare: no threads, frames or images']:
                    print('    ' + e)
            else:
                print('ok   %-9s %s: %d threads, %d frames, %d images, crashed thread %s'
                      % (kind, os.path.basename(crash), len(want['threads']), frames, len(want['images']),
                         want['crashed']))
        crash, json_path = pairs[0][1]
        errors, _ = apple_parsers.check(old_layout(crash, json_path, top), json_path)
        rejected = [e for e in errors if 'rejects it' in e]
        if len(rejected) != 2:
            failed += 1
            print('FAIL the layout with full build ids is not rejected by both: %s' % errors)
        else:
            print('ok   the layout with full build ids is rejected:\n    ' + '\n    '.join(rejected))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
