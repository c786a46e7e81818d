#!/usr/bin/env python3
"""serve_debug.py MODE DIR WORK — serve DIR over HTTP on a free port of
127.0.0.1 until standard input closes, for the debuginfod tests and the
debuginfod benchmark.

  debuginfod  Debian's debuginfod, scanning DIR for ELF and DWARF files (-F);
              its database and its log (a line per request) in WORK
  plain       DIR's files as they are (Python's http.server), so that a test
              can lay out buildid/<id>/debuginfo by hand: a wrong file, or
              garbage; a line per request in WORK/requests.log

Prints the server's URL once it answers (debuginfod: once it has indexed
DIR), then waits.  When standard input closes, or this script dies, the
server goes too (debuginfod is started with a parent-death signal).
"""
import ctypes
import functools
import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

READY_SECONDS = 60
PR_SET_PDEATHSIG = 1


def die_with_parent():
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def metrics(port):
    with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port, timeout=5) as r:
        values = {}
        for line in r.read().decode().splitlines():
            if line and not line.startswith('#'):
                name, _, value = line.rpartition(' ')
                values[name] = float(value)
        return values


def indexed(m):
    """The first traversal of DIR is done and every file it found is scanned."""
    return (m.get('ready') == 1 and m.get('thread_work_total{role="traverse"}', 0) >= 1
            and m.get('thread_work_pending{role="scan"}', 1) == 0 and m.get('thread_busy{role="scan"}', 1) == 0)


def start_debuginfod(directory, work):
    """debuginfod on a free port once it has indexed directory: (process, port)."""
    log = open(os.path.join(work, 'debuginfod.log'), 'ab')
    # The port is free when asked; another program may take it before debuginfod does.
    for _ in range(5):
        port = free_port()
        proc = subprocess.Popen(['debuginfod', '-F', '-v', '-p', str(port), '-d', os.path.join(work, 'db.sqlite'),
                                 '-t', '0', '-g', '0', directory],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=die_with_parent)
        deadline = time.monotonic() + READY_SECONDS
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                if indexed(metrics(port)):
                    return proc, port
            except OSError:
                pass
            time.sleep(0.1)
        proc.kill()
        proc.wait()
    sys.exit('serve_debug.py: debuginfod did not start (see %s/debuginfod.log)' % work)


def start_plain(directory, work):
    log = open(os.path.join(work, 'requests.log'), 'a', buffering=1)

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt, *args):
            log.write(fmt % args + '\n')

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Handler, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def main():
    mode, directory, work = sys.argv[1:4]
    if mode == 'debuginfod':
        proc, port = start_debuginfod(directory, work)
    else:
        server, port = start_plain(directory, work)
    print('http://127.0.0.1:%d' % port, flush=True)
    sys.stdin.read()
    if mode == 'debuginfod':
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    else:
        server.shutdown()


if __name__ == '__main__':
    main()
