"""The kernel's log (/dev/kmsg) from now on: the system reporter's handler
writes one line there per crash (docs/system-reporter.md, "The log line")."""
import os
import time


class Kmsg:
    def __init__(self):
        self.fd = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)
        self.lines = []

    def _read(self):
        while True:
            try:
                rec = os.read(self.fd, 8192).decode(errors='replace')
            except BlockingIOError:
                return
            except OSError:  # overwritten records: go on
                continue
            self.lines.append(rec.split(';', 1)[-1].strip())

    def line(self, pid):
        """The handler's line for the crash of pid ('' when none came within 10 s)."""
        for _ in range(100):
            self._read()
            for l in self.lines:
                if l.startswith('postmortem-core[') and ': pid %d (' % pid in l:
                    return l
            time.sleep(0.1)
        return ''

    def said(self, pid):
        """Every line of the handler about pid so far, once its crash's line came."""
        self.line(pid)
        return [l for l in self.lines if l.startswith('postmortem-core[') and
                (': pid %d (' % pid in l or ': pid %d:' % pid in l)]
