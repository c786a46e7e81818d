#!/usr/bin/env python3
"""check_names.py SOURCE_ROOT CRASH_PATH_ARCHIVE -- OTHER_ARCHIVE... — the naming
rule (docs/architecture.md, "Names"): `pm_` is the public API alone (the
functions the headers in include/ declare, and what the version scripts
export); every other global symbol of a crash-path object is `as_…`, every
other global symbol of the libraries' archives `pmi_…`."""
import glob
import os
import re
import subprocess
import sys

root, crash = sys.argv[1], sys.argv[2]
others = sys.argv[4:] if sys.argv[3] == '--' else sys.exit('usage: ' + __doc__.split('—')[0])
public = set()
for h in glob.glob(os.path.join(root, 'include', '*.h')):
    t = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
    public |= set(re.findall(r"\b(pm_[a-z0-9_]+)\s*\(", t))
for m in glob.glob(os.path.join(root, '*.map')) + glob.glob(os.path.join(root, '*', '*.map')):
    t = re.sub(r"/\*.*?\*/", "", open(m).read(), flags=re.S)
    if 'global:' in t:
        public |= set(re.findall(r"([A-Za-z_]\w*)\s*;", t.split('global:')[1].split('local:')[0]))


def defined(archive):
    out = subprocess.run(['nm', '--defined-only', '--format=posix', archive], capture_output=True, text=True,
                         check=True).stdout
    return {p[0] for p in (l.split() for l in out.splitlines()) if len(p) >= 2 and p[1] in 'TDBRVW'}


bad = []
for archive, prefix in [(crash, 'as_')] + [(a, 'pmi_') for a in others]:
    for name in sorted(defined(archive) - public):
        if not name.startswith(prefix):
            bad.append('%s: %s (should start with %s)' % (os.path.basename(archive), name, prefix))
for line in bad:
    print(line)
print('%d names break the rule' % len(bad) if bad else 'every global name follows the rule')
sys.exit(1 if bad else 0)
