"""A Sentry-compatible receiver on loopback for the system tests: it takes
envelopes (POST /api/<project>/envelope/) and keeps, for each, the event's
id and the uid of the process that sent it (its socket's owner in
/proc/net/tcp: who the uploader ran as).

    r = Receiver().start()        a free port; r.dsn('key') its DSN
    r.events                      [(event_id, uid)], in arrival order
    r.wait(n, timeout)            until n events came (False when they did not)
    r.stop(); r.start(r.port)     down (nothing listens), then up again on the same port

Start it after anything that forks this process without an exec
(KernelSettings' guard): a fork holds the listening socket open, and the
receiver "down" would still take connections.
"""
import http.server
import json
import socket
import threading
import time


def peer_uid(client_port, server_port):
    """The uid owning the loopback socket at client_port connected to server_port, or None."""
    for table in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            local, remote = fields[1], fields[2]
            if int(local.rsplit(':', 1)[1], 16) == client_port and int(remote.rsplit(':', 1)[1], 16) == server_port:
                return int(fields[7])
    return None


class Receiver:
    def __init__(self):
        self.events = []
        self.requests = 0
        self.server = None
        self.port = 0
        self.lock = threading.Lock()

    def start(self, port=0):
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
                uid = peer_uid(self.client_address[1], owner.port)
                lines = body.split(b'\n')
                try:
                    event_id = json.loads(lines[0]).get('event_id')
                except ValueError:
                    event_id = None
                is_event = any(l.startswith(b'{"type":"event"') for l in lines[1:])
                with owner.lock:
                    owner.requests += 1
                    if event_id and is_event:
                        owner.events.append((event_id, uid))
                self.send_response(200)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', '2')
                self.end_headers()
                self.wfile.write(b'{}')

            def log_message(self, *args):
                pass

        http.server.ThreadingHTTPServer.allow_reuse_address = True
        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', port), Handler)
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def dsn(self, key='k3y', project=42):
        return 'http://%s@127.0.0.1:%d/%d' % (key, self.port, project)

    def wait(self, n, timeout=30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if len(self.events) >= n:
                    return True
            time.sleep(0.05)
        return False


def closed_port():
    """A loopback port nothing listens on (it was free a moment ago)."""
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port
