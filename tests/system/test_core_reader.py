#!/usr/bin/env python3
"""The core reader (corefile/) against gdb, on cores of real programs.

Kernel cores: kernel.core_pattern is set by the test to the probe
(core_show --probe DIR %P), which the kernel runs as it would run
postmortem's handler: it reads the stream with the reader, tees it into
DIR/<pid>.core, reads each thread's stack both from what the stream kept and
from /proc/<pid>/mem (the process still held by the kernel: core_pipe_limit
> 0), and writes what it found.  Programs: a static binary, 17 threads at
different depths (one of them blocking every signal), a raw clone() thread
that overflows its stack.  Each teed core is then read as a file, and both
readings are held to gdb's on the same core: the threads, each thread's
registers, the words at each stack pointer.

A gcore of the 17 threads holding 80 MiB (more than the report readers'
64 MiB limit) is read the same way, and `postmortem convert` makes its
report instead of refusing its size.  An aarch64 core (qemu-user's, of a
static program) is read here on x86_64, and `convert` says in one line why
it makes no report of it here (its threads are walked by postmortem built
for aarch64).

Environment (tests/meson.build): PM_BUILD_ROOT, PM_SYSTEM_TESTS.
"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.environ['PM_SYSTEM_TESTS'])
from checks import check, finish  # noqa: E402
from handler_copy import RootCopies  # noqa: E402
from kernel_settings import KernelSettings  # noqa: E402

BUILD = os.environ['PM_BUILD_ROOT']
HERE = os.path.join(BUILD, 'tests')
SHOW = os.path.join(HERE, 'core_show')
REGS = ['rip', 'rsp', 'rbp', 'rbx', 'r12', 'rax', 'rdi']


def parse_show(text):
    """core_show's lines: threads in order, each with its registers; the mem words."""
    threads, regs, mem, facts = [], {}, {}, {}
    for line in text.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == 'thread':
            threads.append({'tid': int(w[1]), 'pc': int(w[3], 16), 'sp': int(w[5], 16), 'signal': int(w[7])})
        elif w[0] == 'reg':
            regs.setdefault(int(w[1]), {})[w[2]] = int(w[3], 16)
        elif w[0] == 'mem':
            mem[int(w[1], 16)] = None if w[2] == 'unreadable' else int(w[2], 16)
        elif w[0] in ('arch', 'pid', 'comm', 'threads', 'fault', 'read', 'kept', 'maps', 'head', 'rss'):
            facts[w[0]] = ' '.join(w[1:])
    return threads, regs, mem, facts


def gdb(exe, core):
    """gdb's threads (by LWP), their registers and the first word at each one's sp."""
    cmd = ['gdb', '-batch', '-nx', '-ex', 'set pagination off', '-ex', 'set width 0',
           '-ex', 'thread apply all info registers ' + ' '.join(REGS),
           '-ex', 'thread apply all x/1gx $sp', exe, core]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300).stdout
    threads, cur = {}, None
    for line in out.splitlines():
        m = re.match(r'^Thread \d+ \(.*?LWP (\d+)\)\)?:', line)
        if m:
            cur = threads.setdefault(int(m.group(1)), {'regs': {}, 'word': None})
            continue
        m = re.match(r'^(\w+)\s+(0x[0-9a-f]+)', line)
        if cur is not None and m and m.group(1) in REGS:
            cur['regs'][m.group(1)] = int(m.group(2), 16)
        m = re.match(r'^(0x[0-9a-f]+)(?: <[^>]*>)?:\s+(0x[0-9a-f]+)', line)
        if cur is not None and m:
            cur['word'] = int(m.group(2), 16)
    return threads


def against_gdb(name, exe, core, threads, regs):
    """Threads, registers and the word at each stack pointer, the reader's and gdb's."""
    g = gdb(exe, core)
    check(sorted(g) == sorted(t['tid'] for t in threads),
          '%s: the same threads as gdb (%d: %s)' % (name, len(g), sorted(g)))
    mem = parse_show(subprocess.run([SHOW, core] + [hex(t['sp']) for t in threads], capture_output=True,
                                    text=True, check=True).stdout)[2]
    bad = []
    for t in threads:
        gt = g.get(t['tid'])
        if not gt:
            continue
        mine = {r: regs[t['tid']][r] for r in REGS if r in regs[t['tid']]}
        if any(gt['regs'].get(r) != v for r, v in mine.items() if r in gt['regs']) or not gt['regs']:
            bad.append('thread %d registers %s, gdb %s' % (t['tid'], mine, gt['regs']))
        if mem.get(t['sp']) != gt['word']:
            bad.append('thread %d word at sp %#x: %s, gdb %s' % (t['tid'], t['sp'], mem.get(t['sp']), gt['word']))
    check(not bad, '%s: every thread\'s %s and the word at its sp as gdb reads them%s' %
          (name, '/'.join(REGS), ('\n    ' + '\n    '.join(bad)) if bad else ''))


def kernel_cores(settings, work, show):
    """show: the probe, a root's copy of core_show the kernel runs (handler_copy.py)."""
    probe = os.path.join(work, 'probe')
    os.mkdir(probe)
    pattern = '|%s --probe %s %%P' % (show, probe)
    if not check(len(pattern) < 128, 'the probe pattern fits the kernel (%d bytes)' % len(pattern)):
        return
    cases = [('static', os.path.join(HERE, 'sys_crash_static'), 1),
             ('threads17', os.path.join(HERE, 'sys_threads17'), 17),
             ('clone_overflow', os.path.join(HERE, 'sys_clone_overflow'), 2)]
    settings.set(pattern)
    try:
        runs = []
        for name, exe, n in cases:
            p = subprocess.run([exe], cwd=work, timeout=120, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            runs.append((name, exe, n, p))
    finally:
        settings.restore()
    for name, exe, n, p in runs:
        check(p.returncode == -11, '%s died of SIGSEGV (%d)' % (name, p.returncode))
        found = glob.glob(os.path.join(probe, '*.txt'))
        txt = [f for f in found if parse_show(open(f).read())[3].get('comm', '').startswith(os.path.basename(exe)[:15])]
        if not check(len(txt) == 1, '%s: the probe ran once (%s)' % (name, found)):
            continue
        text = open(txt[0]).read()
        core = txt[0][:-4] + '.core'
        threads, regs, _, facts = parse_show(text)
        check(int(facts.get('read', -1)) == os.path.getsize(core),
              '%s: the stream was read to its end and teed whole (%s bytes)' % (name, facts.get('read')))
        check(len(threads) == n, '%s: %d threads in the stream (%d)' % (name, n, len(threads)))
        stacks = re.findall(r'^stack (\d+) kept (\w+) live (\w+) same (\w+)$', text, re.M)
        # An overflowed stack pointer lies below its stack: nothing to read there, kept or live.
        overflowed = [('no', 'no', 'no')] if name == 'clone_overflow' else []
        check(len(stacks) == n and [s[1:] for s in stacks] == overflowed + [('yes', 'yes', 'yes')] * (n - len(overflowed)),
              '%s: each thread\'s stack kept from the stream equals /proc/<pid>/mem while the kernel holds it%s'
              % (name, '' if len(stacks) == n else ' (%s)' % stacks))
        as_file = subprocess.run([SHOW, core], capture_output=True, text=True)
        strip = lambda t: [l for l in t.splitlines() if not re.match(r'^(read|kept|stack|head|rss) ', l)]  # noqa: E731
        check(as_file.returncode == 0 and strip(as_file.stdout) == strip(text),
              '%s: the core read as a file gives what the stream gave' % name)
        if name == 'clone_overflow' and threads:
            check(threads[0]['tid'] != int(facts.get('pid', 0)) and threads[0]['signal'] == 11,
                  'clone_overflow: the overflowing clone() thread comes first')
        against_gdb(name, exe, core, threads, regs)


def elf_layout(core):
    """Where a core's notes end and its first segment's bytes begin (its program headers)."""
    with open(core, 'rb') as f:
        eh = f.read(64)
        phoff, = struct.unpack_from('<Q', eh, 32)
        phnum, = struct.unpack_from('<H', eh, 56)
        f.seek(phoff)
        ph = f.read(56 * phnum)
    notes_end, first = 0, None
    for i in range(phnum):
        typ, _, off, _, _, filesz, _, _ = struct.unpack_from('<IIQQQQQQ', ph, 56 * i)
        if typ == 4:
            notes_end = max(notes_end, off + filesz)
        elif typ == 1 and filesz and (first is None or off < first):
            first = off
    return notes_end, first


def run_probed(settings, work, show, mode, cases):
    """Crash each (name, argv) with the probe (show, a root's copy of core_show) in `mode` as
    kernel.core_pattern; what each probe wrote."""
    probe = tempfile.mkdtemp(prefix='p', dir=work)
    os.chmod(probe, 0o755)
    pattern = '|%s %s %s %%P' % (show, mode, probe)
    if not check(len(pattern) < 128, 'the probe pattern fits the kernel (%d bytes)' % len(pattern)):
        return {}
    settings.set(pattern)
    try:
        runs = [(name, subprocess.run(argv, cwd=work, timeout=300, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True)) for name, argv in cases]
    finally:
        settings.restore()
    out = {}
    for name, p in runs:
        check(p.returncode == -11, '%s died of SIGSEGV (%d%s)' % (name, p.returncode, p.stderr.strip()))
        found = [f for f in glob.glob(os.path.join(probe, '*.txt'))
                 if parse_show(open(f).read())[3].get('comm', '').startswith(name[:15])]
        if check(len(found) == 1, '%s: the probe ran once (%s)' % (name, found)):
            out[name] = (open(found[0]).read(), found[0][:-4] + '.core')
    return out


def notes_alone(settings, work, show):
    """The stream read only to its notes' end: not a byte of a segment, every
    stack read through /proc/<pid>/mem alone, the rest then teed whole."""
    exe = os.path.join(HERE, 'sys_threads17')
    got = run_probed(settings, work, show, '--probe-notes', [('sys_threads17', [exe])])
    if 'sys_threads17' not in got:
        return
    text, core = got['sys_threads17']
    threads, regs, _, facts = parse_show(text)
    notes_end, first = elf_layout(core)
    head = int(facts.get('head', -1))
    check(head == notes_end and first is not None and head <= first,
          'notes alone: read %d bytes, where the notes end (%d), before the first segment (%s)'
          % (head, notes_end, first))
    check(int(facts.get('read', -1)) == os.path.getsize(core),
          'notes alone: the rest came after, teed whole (%s of %d bytes)' % (facts.get('read'), os.path.getsize(core)))
    check(facts.get('kept') == '0', 'notes alone: nothing kept of the segments (%s)' % facts.get('kept'))
    stacks = re.findall(r'^stack (\d+) kept (\w+) live (\w+) same (\w+)$', text, re.M)
    check(len(stacks) == 17 and all(s[1:] == ('yes', 'yes', 'yes') for s in stacks),
          'notes alone: each of the 17 stacks read through /proc/<pid>/mem alone equals the core\'s (%s)' % stacks)
    against_gdb('notes alone', exe, core, threads, regs)


def many_threads(settings, work, show):
    """4000 threads (the notes of 4000 threads were past the old 16 MiB limit):
    every thread read, both ways, in memory that grows with the threads' registers."""
    exe = os.path.join(HERE, 'sys_threads_many')
    for mode in ('--probe', '--probe-notes'):
        got = run_probed(settings, work, show, mode, [('sys_threads_many', [exe, '4000'])])
        if 'sys_threads_many' not in got:
            continue
        text, core = got['sys_threads_many']
        threads, _, _, facts = parse_show(text)
        notes_end, _ = elf_layout(core)
        check(len(threads) == 4000 and int(facts.get('read', -1)) == os.path.getsize(core),
              '4000 threads (%s): all read (%d), the core whole (%s bytes, %d of notes)'
              % (mode, len(threads), facts.get('read'), notes_end))
        stacks = re.findall(r'^stack \d+ kept (\w+) live (\w+) same (\w+)$', text, re.M)
        check(sum(s == ('yes', 'yes', 'yes') for s in stacks) == 4000,
              '4000 threads (%s): every stack the same both ways (%d)'
              % (mode, sum(s == ('yes', 'yes', 'yes') for s in stacks)))
        print('note 4000 threads (%s): %d bytes of notes, peak rss of the reader %s KiB'
              % (mode, notes_end, facts.get('rss')))
        check(int(facts.get('rss', 1 << 30)) < 64 << 10,
              '4000 threads (%s): the reader\'s peak memory is under 64 MiB (%s KiB)' % (mode, facts.get('rss')))
        os.unlink(core)


def gcore_big(work):
    exe = os.path.join(HERE, 'sys_threads17')
    p = subprocess.Popen([exe, 'big', '80', 'hold'], stdout=subprocess.PIPE, text=True)
    try:
        check(p.stdout.readline().strip() == 'ready', 'threads17 holds 80 MiB and 17 threads')
        base = os.path.join(work, 'gcore')
        subprocess.run(['gcore', '-o', base, str(p.pid)], capture_output=True, timeout=300)
    finally:
        p.kill()
        p.wait()
    core = '%s.%d' % (base, p.pid)
    if not check(os.path.exists(core), 'gcore wrote %s' % core):
        return
    size = os.path.getsize(core)
    check(size > 64 << 20, 'the gcore core is larger than 64 MiB (%d bytes)' % size)
    out = subprocess.run([SHOW, core], capture_output=True, text=True)
    threads, regs, _, facts = parse_show(out.stdout)
    check(out.returncode == 0 and len(threads) == 17, 'the gcore core reads whole: 17 threads (%d) %s' %
          (len(threads), out.stderr.strip()))
    against_gdb('gcore', exe, core, threads, regs)
    conv = subprocess.run([os.path.join(BUILD, 'tools', 'postmortem'), 'convert', core], capture_output=True,
                          text=True)
    check(conv.returncode == 0 and 'Process:             sys_threads17 [%d]' % p.pid in conv.stdout and
          conv.stdout.count('\nThread ') >= 17 and 'limit' not in conv.stderr,
          'convert reads the gcore core past 64 MiB and makes its report: %s' % (conv.stderr.strip() or
                                                                               conv.stdout[:300]))


def aarch64_core(work):
    cc, qemu = shutil.which('aarch64-linux-gnu-gcc'), shutil.which('qemu-aarch64-static')
    if not check(cc and qemu, 'aarch64-linux-gnu-gcc and qemu-aarch64-static are installed (make deps-arm64)'):
        return
    exe = os.path.join(work, 'regs_aarch64')
    subprocess.run([cc, '-static', '-O1', '-o', exe, os.path.join(os.environ['PM_SYSTEM_TESTS'], 'programs',
                    'regs_aarch64.c')], check=True)
    d = os.path.join(work, 'qemu')
    os.mkdir(d)
    # qemu-user writes the aarch64 core itself, into its working directory.
    subprocess.run(['sh', '-c', 'ulimit -c unlimited; exec "$0" "$@"', qemu, exe], cwd=d, stderr=subprocess.DEVNULL)
    cores = glob.glob(os.path.join(d, 'qemu_*.core'))
    if not check(len(cores) == 1, 'qemu wrote the aarch64 core (%s)' % os.listdir(d)):
        return
    out = subprocess.run([SHOW, cores[0]], capture_output=True, text=True)
    threads, regs, _, facts = parse_show(out.stdout)
    r = regs.get(threads[0]['tid'], {}) if threads else {}
    check(facts.get('arch') == 'aarch64' and len(threads) == 1 and
          [r.get(x) for x in ('x19', 'x20', 'x21', 'x22', 'x28')] == [0x1919, 0x2020, 0x2121, 0x2222, 0x2828],
          'the aarch64 core reads on x86_64: its arch, its thread, x19-x22 and x28 as the program set them')
    check(threads and r.get('pc') == threads[0]['pc'] and 0x400000 <= threads[0]['pc'] < 0x500000,
          'aarch64: pc in the static program (%#x)' % (threads[0]['pc'] if threads else 0))
    conv = subprocess.run([os.path.join(BUILD, 'tools', 'postmortem'), 'convert', cores[0]], capture_output=True,
                          text=True)
    check(conv.returncode == 1 and 'an ELF core (aarch64)' in conv.stderr and
          'walked by postmortem built for aarch64' in conv.stderr and conv.stderr.count('\n') == 1,
          'convert of the aarch64 core on x86_64: one line, why: %s' % conv.stderr.strip())


def main():
    with tempfile.TemporaryDirectory(prefix='pm-sys-', dir='/tmp') as work:
        os.chmod(work, 0o755)
        with KernelSettings() as settings, RootCopies(BUILD) as copies:
            show = copies.program('tests/core_show')
            kernel_cores(settings, work, show)
            notes_alone(settings, work, show)
            many_threads(settings, work, show)
        gcore_big(work)
        aarch64_core(work)
    finish()


if __name__ == '__main__':
    main()
