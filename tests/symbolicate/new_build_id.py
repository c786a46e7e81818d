#!/usr/bin/env python3
"""new_build_id.py IN OUT — copy an ELF file with its GNU build id changed,
and print the new id (hex).

The new id is the old one with every bit flipped, so a library and its
debug file copied this way keep matching each other, and neither matches
anything installed.  It lets the debuginfod tests and benchmark serve a real
distribution library (libc and libc6-dbg's debug file of it) that no local
/usr/lib/debug file can answer for: symbolication must then come from the
server.  Only the note's bytes change; the code and the DWARF stay Debian's.
"""
import struct
import sys

NT_GNU_BUILD_ID = 3


def main():
    src, dst = sys.argv[1:3]
    with open(src, 'rb') as f:
        data = bytearray(f.read())
    for size in (20, 16, 32, 8, 64):
        head = struct.pack('<III', 4, size, NT_GNU_BUILD_ID) + b'GNU\0'
        at = data.find(head)
        if at >= 0:
            break
    else:
        sys.exit('new_build_id.py: %s has no GNU build id note' % src)
    start = at + len(head)
    old = bytes(data[start:start + size])
    new = bytes(b ^ 0xff for b in old)
    if data.find(head + old, start) >= 0:
        sys.exit('new_build_id.py: %s has more than one build id note' % src)
    data[start:start + size] = new
    with open(dst, 'wb') as f:
        f.write(data)
    print(new.hex())


if __name__ == '__main__':
    main()
