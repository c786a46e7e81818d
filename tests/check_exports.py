#!/usr/bin/env python3
"""check_exports.py HEADER LIBRARY [SYMBOL...] — the shared library exports
exactly the functions HEADER declares, plus the SYMBOLs named (libpostmortem:
pthread_create and __cxa_throw, which it interposes)."""
import re
import subprocess
import sys

header, library, also = sys.argv[1], sys.argv[2], sys.argv[3:]
text = re.sub(r"/\*.*?\*/", "", open(header).read(), flags=re.S)
api = set(re.findall(r"\b(pm_[a-z0-9_]+)\s*\(", text))
api -= set(re.findall(r"typedef\s+[^;]*?\b(pm_[a-z0-9_]+)\s*\(", text))
api |= set(also)

nm = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True, text=True)
exported = {line.split()[-1].split("@")[0] for line in nm.stdout.splitlines() if line.split()[1:2] != ["A"]}

missing, extra = sorted(api - exported), sorted(exported - api)
for name in missing:
    print(f"declared in {header} but not exported: {name}")
for name in extra:
    print(f"exported but not declared in {header}: {name}")
if missing or extra:
    sys.exit(1)
print(f"{library}: {len(exported)} exported symbols, all declared")
