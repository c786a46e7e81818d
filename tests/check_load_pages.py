#!/usr/bin/env python3
"""check_load_pages.py LIBRARY... — what loading the capture library costs
every program that links it, in pages the loader must copy before writing
(each a page fault at every start: docs/benchmarks.md, issue 13).

For each library: the relocations the loader applies fall on two pages at
most (the RELRO page holding .dynamic and the GOT, and the first page of
.data, which crtstuff's __dso_handle needs), so no table of pointers has
spread .data.rel.ro over pages of its own; and as_g, the crash path's state,
starts in that first .data page, where what pm_install writes begins
(reporter/capture/state.h, start_data.h).  readelf and nm read them."""
import re
import subprocess
import sys

PAGE = 4096
MAX_RELOC_PAGES = 2


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def sections(library):
    out = run("readelf", "-S", "-W", library)
    found = {}
    for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", out):
        found[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
    return found


def reloc_pages(library):
    out = run("readelf", "-r", "-W", library)
    pages = {}
    for m in re.finditer(r"^([0-9a-f]{8,16})\s+[0-9a-f]+\s+(R_\S+)", out, re.M):
        page = int(m.group(1), 16) // PAGE
        pages[page] = pages.get(page, 0) + 1
    return pages


def symbol(library, name):
    for line in run("nm", "-S", library).splitlines():
        cells = line.split()
        if len(cells) == 4 and cells[3] == name:
            return int(cells[0], 16)
    return None


failed = False
for library in sys.argv[1:]:
    pages = reloc_pages(library)
    if not pages:
        print(f"{library}: no relocation read (readelf output changed?)")
        failed = True
        continue
    where = ", ".join(f"{p * PAGE:#x}: {n}" for p, n in sorted(pages.items()))
    print(f"{library}: {sum(pages.values())} relocations on {len(pages)} pages ({where})")
    if len(pages) > MAX_RELOC_PAGES:
        print(f"  more than {MAX_RELOC_PAGES} pages written by the loader: a table of pointers "
              f"(.data.rel.ro) or of relocated data?  Hold its text in arrays (formats/decode/decode.h)")
        failed = True
    data = sections(library).get(".data")
    state = symbol(library, "as_g")
    if data is None or state is None:
        print("  no .data section or no as_g symbol read (stripped?)")
        failed = True
    elif state // PAGE != data[0] // PAGE or not data[0] <= state < data[0] + data[1]:
        print(f"  as_g at {state:#x} is not in .data's first page ({data[0]:#x}): "
              f"pm_install's writes take a page the loader did not write")
        failed = True
    else:
        print(f"  as_g at {state:#x}, in .data's first page")
sys.exit(1 if failed else 0)
