#!/usr/bin/env python3
"""check_names.py SOURCE_ROOT ARCHIVE... — the naming rule
(docs/architecture.md, "Names"): `pm_` is the public API alone (the
functions the headers in include/ declare, and what the version scripts
export); every other global symbol of a crash-path object (as_*.c, arch_*.c,
whichever room's archive holds it) is `as_…`, every other global symbol of
the libraries' archives `pmi_…`."""
import glob
import os
import re
import subprocess
import sys

root, archives = sys.argv[1], sys.argv[2:]
public = set()
for h in glob.glob(os.path.join(root, 'include', '*.h')):
    t = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
    public |= set(re.findall(r"\b(pm_[a-z0-9_]+)\s*\(", t))
for m in [m for d in ('', '*', os.path.join('*', '*')) for m in glob.glob(os.path.join(root, d, '*.map'))]:
    t = re.sub(r"/\*.*?\*/", "", open(m).read(), flags=re.S)
    if 'global:' in t:
        public |= set(re.findall(r"([A-Za-z_]\w*)\s*;", t.split('global:')[1].split('local:')[0]))


def defined(archive):
    """(object, symbol) of each global symbol archive defines."""
    out = subprocess.run(['nm', '-A', '--defined-only', '--format=posix', archive], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) >= 3 and p[2] in 'TDBRVW':
            yield os.path.basename(p[0].rstrip(':').rstrip(']')), p[1]


bad = []
for archive in archives:
    for obj, name in sorted(set(defined(archive))):
        prefix = 'as_' if obj.startswith(('as_', 'arch_')) else 'pmi_'
        if name not in public and not name.startswith(prefix):
            bad.append('%s: %s (should start with %s)' % (obj, name, prefix))
for line in bad:
    print(line)
print('%d names break the rule' % len(bad) if bad else 'every global name follows the rule')
sys.exit(1 if bad else 0)
