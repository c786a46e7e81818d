"""Run inside gdb (`source gdb_frames.py`): write every thread's backtrace as
JSON to the file named by $PM_GDB_FRAMES, one entry per gdb frame:

  type    gdb's frame type: NORMAL, INLINE, TAILCALL, SIGTRAMP, ...
  name    gdb's function name (from debug info when there is some), or null
  pc      the frame's pc (the return address for callers)
  sym     the ELF symbol gdb finds at the frame's lookup address ("info symbol"),
  start   and that symbol's start address; both null when there is none

The lookup address is pc for the innermost frame and for a frame a signal
interrupted, pc - 1 for the others (a return address may already lie past the
end of a function whose last act was the call), as gdb itself looks them up.
"""
import json
import os
import re

import gdb

TYPES = {getattr(gdb, n): n[:-6] for n in dir(gdb) if n.endswith('_FRAME')}


def elf_symbol(addr):
    out = gdb.execute('info symbol %#x' % addr, to_string=True)
    m = re.match(r'(\S+)(?: \+ (\d+))? in section ', out)
    if not m:
        return None, None
    return m.group(1), addr - int(m.group(2) or 0)


def frames_of(thread):
    thread.switch()
    out = []
    f = gdb.newest_frame()
    while f is not None:
        # The frame this one called, past the frames inlined into this one.
        callee = f.newer()
        while callee is not None and callee.type() == gdb.INLINE_FRAME:
            callee = callee.newer()
        exact = callee is None or callee.type() == gdb.SIGTRAMP_FRAME
        sym, start = elf_symbol(f.pc() if exact else f.pc() - 1)
        out.append({'type': TYPES.get(f.type(), str(f.type())), 'name': f.name(), 'pc': f.pc(),
                    'sym': sym, 'start': start})
        f = f.older()
    return out


def main():
    threads = []
    for t in gdb.selected_inferior().threads():
        threads.append({'lwp': t.ptid[1], 'frames': frames_of(t)})
    with open(os.environ['PM_GDB_FRAMES'], 'w', encoding='utf-8') as f:
        json.dump(threads, f)


main()
