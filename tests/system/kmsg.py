"""The kernel's log (/dev/kmsg) from now on: the system reporter's handler
writes one line there per crash (docs/system-reporter.md, "The log line")."""
import os
import time


class Kmsg:
    def __init__(self):
        self.fd = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)
        self.lines = []
        self.stamps = []  # each line's time in the kernel's log, in microseconds

    def _read(self):
        while True:
            try:
                rec = os.read(self.fd, 8192).decode(errors='replace')
            except BlockingIOError:
                return
            except OSError:  # overwritten records: go on
                continue
            head, _, text = rec.partition(';')
            fields = head.split(',')
            self.lines.append(text.strip())
            self.stamps.append(int(fields[2]) if len(fields) > 2 and fields[2].isdigit() else 0)

    def line(self, pid):
        """The handler's line for the crash of pid ('' when none came within 10 s)."""
        for _ in range(100):
            self._read()
            for l in self.lines:
                if l.startswith('postmortem-core[') and ': pid %d (' % pid in l:
                    return l
            time.sleep(0.1)
        return ''

    def stamp(self, pid):
        """When the handler's line for pid came, on CLOCK_MONOTONIC in ns (the log's clock, set against
        it by a line written now), or None."""
        line = self.line(pid)
        if not line:
            return None
        at = self.lines.index(line)
        mark = 'postmortem-bench-clock %d' % time.monotonic_ns()
        before = time.monotonic_ns()
        with open('/dev/kmsg', 'w') as f:
            f.write(mark + '\n')
        after = time.monotonic_ns()
        for _ in range(100):
            self._read()
            if mark in self.lines:
                offset = self.stamps[self.lines.index(mark)] * 1000 - (before + after) // 2
                return self.stamps[at] * 1000 - offset
            time.sleep(0.01)
        return None

    def said(self, pid):
        """Every line of the handler about pid so far, once its crash's line came."""
        self.line(pid)
        return [l for l in self.lines if l.startswith('postmortem-core[') and
                (': pid %d (' % pid in l or ': pid %d:' % pid in l)]
