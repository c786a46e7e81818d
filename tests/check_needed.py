#!/usr/bin/env python3
"""check_needed.py LIBRARY... — each library's DT_NEEDED entries are libc
alone: what a program that links the capture library (or runs under the
preload library) loads because of postmortem.  readelf -d reads them."""
import re
import subprocess
import sys

ALLOWED = {"libc.so.6"}
failed = False
for library in sys.argv[1:]:
    out = subprocess.run(["readelf", "-d", library], check=True, capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    if not needed:
        print(f"{library}: no DT_NEEDED entry read (readelf output changed?)")
        failed = True
    extra = sorted(set(needed) - ALLOWED)
    if extra:
        print(f"{library} needs more than libc: {', '.join(extra)}")
        failed = True
    else:
        print(f"{library}: DT_NEEDED {', '.join(needed)}")
sys.exit(1 if failed else 0)
