#!/usr/bin/env python3
"""A core of qemu-user's, converted by this build's postmortem: the core of a
program of this build's architecture (aarch64 under `make test-arm64`, where
postmortem itself runs under qemu too), which qemu-user writes itself
(RLIMIT_CORE unlimited, whatever kernel.core_pattern says) with no NT_FILE
and no NT_SIGINFO.  Given the executable (`--exe`), the report has its
image and the crashed thread's frames, leaf, middle, main in order (a static
binary: walked through its .eh_frame, which no .eh_frame_hdr indexes);
without it, still a report, its frames unnamed.

Environment (tests/meson.build): PM_BUILD_ROOT.
"""
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

BUILD = os.environ['PM_BUILD_ROOT']
CLI = os.path.join(BUILD, 'tools', 'postmortem')
STATIC = os.path.join(BUILD, 'tests', 'sys_crash_static')
QEMU = {62: 'qemu-x86_64-static', 183: 'qemu-aarch64-static'}  # by the ELF header's e_machine


def main():
    with open(STATIC, 'rb') as f:
        machine = int.from_bytes(f.read(20)[18:20], 'little')
    qemu = shutil.which(QEMU.get(machine, ''))
    if not qemu:
        print('no %s for this build\'s programs (e_machine %d): skipped' % (QEMU.get(machine), machine))
        return 77
    failed = []

    def check(ok, what):
        print(('ok   ' if ok else 'FAIL ') + what)
        if not ok:
            failed.append(what)

    with tempfile.TemporaryDirectory(prefix='pm-qemu-') as work:
        exe = os.path.join(work, 'crash_static')
        shutil.copy(STATIC, exe)
        unlimited = lambda: resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY,) * 2)  # noqa: E731
        p = subprocess.run([qemu, exe], cwd=work, preexec_fn=unlimited, capture_output=True, timeout=120)
        cores = glob.glob(os.path.join(work, 'qemu_*.core'))
        check(p.returncode == -11 and len(cores) == 1, 'qemu wrote the core of the crash (%s)' % os.listdir(work))
        if not cores:
            return 1
        p = subprocess.run([CLI, 'convert', cores[0], '--exe', exe, '--to', 'json'], capture_output=True, text=True,
                           timeout=300)
        report = json.loads(p.stdout) if p.returncode == 0 else {}
        threads = report.get('threads', [])
        names = [f.get('symbol', '') for f in threads[0].get('frames', [])] if threads else []
        check(report.get('exception', {}).get('signal') == 11 and threads and threads[0].get('crashed'),
              'convert --exe: a report of the SIGSEGV, its thread crashed %s' % p.stderr.strip())
        check([i['path'] for i in report.get('images', []) if i.get('app')] == [exe],
              'the executable given is the report\'s app image (%s)' % [i['path'] for i in report.get('images', [])])
        firsts = [n.split('.')[0] for n in names[:3]]
        check(firsts == ['leaf', 'middle', 'main'], 'the crashed thread\'s frames: leaf, middle, main (%s)' % names)
        p = subprocess.run([CLI, 'convert', cores[0], '--to', 'json'], capture_output=True, text=True, timeout=300)
        bare = json.loads(p.stdout) if p.returncode == 0 else {}
        check(bare.get('threads') and bare['threads'][0].get('frames') and not bare.get('images'),
              'without --exe: still a report, no image named (%s)' % (p.stderr.strip() or 'ok'))
    print('%d checks failed' % len(failed) if failed else 'every check passed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
