#!/usr/bin/env python3
"""The twin's code_id and debug_id are the ids sentry-cli gives the same files.

Crashes a real program, then runs `sentry-cli debug-files check` on the
executable and on libc and compares its "Debug ID" and "Code ID" with those
the JSON twin (read with Python's json) gives the two images, and the .crash
Binary Images line with the debug id.  sentry-cli comes from npm
(@sentry/cli-linux-x64, installed with --ignore-scripts under the build tree).

Environment (tests/meson.build): PM_BUILD_ROOT.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

BUILD = os.environ['PM_BUILD_ROOT']
NPM_DIR = os.path.join(BUILD, 'npm-sentry-cli')
SENTRY_CLI = os.path.join(NPM_DIR, 'node_modules', '@sentry', 'cli-linux-x64', 'bin', 'sentry-cli')


def sentry_cli():
    if not os.path.exists(SENTRY_CLI):
        os.makedirs(NPM_DIR, exist_ok=True)
        subprocess.run(['npm', 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', NPM_DIR,
                        '@sentry/cli-linux-x64'], check=True, stdout=subprocess.DEVNULL)
    return SENTRY_CLI


def ids_of(path):
    out = subprocess.run([sentry_cli(), 'debug-files', 'check', path], check=True,
                         capture_output=True, text=True).stdout
    debug = re.search(r'Debug ID:\s*([0-9a-f-]+)', out)
    code = re.search(r'Code ID:\s*([0-9a-f]+)', out)
    if not debug or not code:
        sys.exit('sentry-cli gave no ids for %s:\n%s' % (path, out))
    return debug.group(1), code.group(1)


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix='pm-sentry-cli-') as d:
        prog = os.path.join(BUILD, 'sample_crashes', 'crash_null_deref')
        p = subprocess.run([prog], env=dict(os.environ, POSTMORTEM_DIR=d), stderr=subprocess.DEVNULL)
        if p.returncode != -11:
            sys.exit('%s ended with %d, expected SIGSEGV' % (prog, p.returncode))
        (twin,) = glob.glob(os.path.join(d, 'pending', '*.json'))
        with open(twin) as f:
            images = json.load(f)['images']
        with open(twin[:-len('.json')] + '.crash') as f:
            text = f.read()
        app = [im for im in images if im.get('app')]
        libc = [im for im in images if im.get('name') == 'libc.so.6']
        if len(app) != 1 or len(libc) != 1:
            sys.exit('the twin lists %d app images and %d libc images' % (len(app), len(libc)))
        for im in app + libc:
            debug_id, code_id = ids_of(im['path'])
            line = '<%s> %s\n' % (debug_id.replace('-', ''), im['path'])
            ok = im.get('debug_id') == debug_id and im.get('code_id') == code_id and line in text
            failed += not ok
            print('%s %s: sentry-cli %s / %s, twin %s / %s, .crash %s' % (
                'ok  ' if ok else 'FAIL', im['name'], debug_id, code_id, im.get('debug_id'), im.get('code_id'),
                'has it' if line in text else 'lacks <%s>' % debug_id.replace('-', '')))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
