#!/usr/bin/env python3
"""core_seed.py CORE OUT [FILE] — a small fuzz seed of a real core.

The core's headers and notes as they are; of its segments, only what a
report reads first: the pages around each thread's stack pointer (16 KiB
above it, 4 KiB below), the page at each thread's pc, and each segment's
first page (an image's ELF header, the vDSO's); the rest of every segment
is left out of the file (p_filesz cut, as gcore leaves out what it can read
back).  Written as fuzz_core_report reads its input: a little-endian u32
length, the core, then FILE's bytes (the executable the core maps), if
given.  How the committed seeds in fuzz/corpus/core_report were made
(docs/fuzzing.md).
"""
import struct
import sys

PAGE = 4096
EHDR, PHDR = 64, 56


def threads(notes):
    """Each NT_PRSTATUS's pc and sp (x86_64's user_regs_struct: rip 16, rsp 19)."""
    at, out = 0, []
    while at + 12 <= len(notes):
        namesz, descsz, typ = struct.unpack_from('<III', notes, at)
        desc = at + 12 + ((namesz + 3) & ~3)
        if typ == 1 and descsz >= 112 + 27 * 8:
            regs = struct.unpack_from('<27Q', notes, desc + 112)
            out.append((regs[16], regs[19]))
        at = desc + ((descsz + 3) & ~3)
    return out


def kept(vaddr, filesz, points):
    """The ranges of [vaddr, vaddr + filesz) worth keeping, page-aligned and merged."""
    want = [(vaddr, vaddr + min(filesz, PAGE))]
    for pc, sp in points:
        want.append((pc & ~(PAGE - 1), (pc & ~(PAGE - 1)) + PAGE))
        want.append(((sp & ~(PAGE - 1)) - PAGE, (sp & ~(PAGE - 1)) + (16 << 10)))
    out = []
    for lo, hi in sorted(want):
        lo, hi = max(lo, vaddr), min(hi, vaddr + filesz)
        if lo >= hi:
            continue
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return out


def main():
    core = open(sys.argv[1], 'rb').read()
    phoff, = struct.unpack_from('<Q', core, 32)
    phnum, = struct.unpack_from('<H', core, 56)
    phdrs = [list(struct.unpack_from('<IIQQQQQQ', core, phoff + PHDR * i)) for i in range(phnum)]
    notes = b''.join(core[p[2]:p[2] + p[5]] for p in phdrs if p[0] == 4)
    points = threads(notes)
    # One PT_LOAD per kept range (a cut segment's start with no bytes before it), the notes first.
    out_ph, data = [], []
    for p in phdrs:
        typ, flags, off, vaddr, paddr, filesz, memsz, align = p
        if typ != 1:
            out_ph.append(p)
            continue
        ranges = kept(vaddr, filesz, points) or [(vaddr, vaddr)]
        start = vaddr
        for lo, hi in ranges:
            if lo > start:
                out_ph.append([1, flags, 0, start, 0, 0, lo - start, align])
            out_ph.append([1, flags, None, lo, 0, hi - lo, (hi if hi < vaddr + memsz else vaddr + memsz) - lo, align])
            data.append(core[off + lo - vaddr:off + hi - vaddr])
            start = hi
        if start < vaddr + memsz:
            out_ph.append([1, flags, 0, start, 0, 0, vaddr + memsz - start, align])
    at = EHDR + PHDR * len(out_ph)
    body, di = b'', 0
    for p in out_ph:
        if p[0] == 4:
            p[2] = at + len(body)
            body += notes
    for p in out_ph:
        if p[0] == 1 and p[2] is None:
            p[2] = at + len(body)
            body += data[di]
            di += 1
    head = bytearray(core[:EHDR])
    struct.pack_into('<Q', head, 32, EHDR)
    struct.pack_into('<H', head, 56, len(out_ph))
    struct.pack_into('<Q', head, 40, 0)
    struct.pack_into('<H', head, 60, 0)
    out = bytes(head) + b''.join(struct.pack('<IIQQQQQQ', *p) for p in out_ph) + body
    with open(sys.argv[2], 'wb') as f:
        f.write(struct.pack('<I', len(out)) + out + (open(sys.argv[3], 'rb').read() if len(sys.argv) > 3 else b''))


if __name__ == '__main__':
    main()
