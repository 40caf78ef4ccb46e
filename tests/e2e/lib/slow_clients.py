"""Many client connections to a `sift serve`, from one thread (selectors), for the serve tests
(tests/e2e/serve_hostile.sh, serve_slow_clients.sh) and the connection benchmark
(bench/serve_connections.py).

Connections come from the loopback source addresses 127.0.0.2, 127.0.0.3, ..., at most
`per_address` from each, so a server's per-address cap does not turn them away. Two kinds:

  Tricklers  keep `n` connections each sending a request one piece at a time, a piece every
             `interval` seconds (spread over the interval): half trickle the head, a header
             line at a time, never finishing it; half send a whole head with
             Content-Length: 100000, then trickle the body a few bytes at a time. A connection
             the server closes (a deadline) is opened again, so `n` stay open. run_trickling()
             runs in a child process (its own interpreter: the measuring client's timings do
             not share a GIL with it).
  idle_connections(n)  opens n connections, sends GET /health on each, reads the answer and
             keeps them open, idle (keep-alive).
"""
import json
import os
import selectors
import socket
import subprocess
import sys
import time

HEAD_LINE = b"X-Slow: " + b"x" * 24 + b"\r\n"


def source_address(i, per_address):
    return f"127.0.0.{2 + i // per_address}"


def connect(port, source, blocking=True):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.setblocking(blocking)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    return s


class Trickler:
    def __init__(self, port, n, interval, per_address):
        self.port, self.n, self.interval, self.per_address = port, n, interval, per_address
        self.selector = selectors.DefaultSelector()
        self.conns = {}  # slot -> [socket, next send time, bytes sent]
        self.opened = self.closed_by_server = self.pieces = 0
        start = time.monotonic()
        for slot in range(n):
            self.open(slot, start + interval * slot / n)

    def open(self, slot, due):
        try:
            s = connect(self.port, source_address(slot, self.per_address), blocking=False)
        except OSError:  # refused (the server is gone or full): try again later
            self.conns[slot] = [None, due + self.interval, 0]
            return
        self.conns[slot] = [s, due, 0]
        self.selector.register(s, selectors.EVENT_READ, slot)
        self.opened += 1

    def reopen(self, slot):
        s = self.conns[slot][0]
        if s is not None:
            self.selector.unregister(s)
            s.close()
            self.closed_by_server += 1
        self.open(slot, time.monotonic() + self.interval)

    def piece(self, slot, sent):
        if sent == 0:
            target = "/v1/label" if slot % 2 else "/health"
            head = f"POST {target} HTTP/1.1\r\nHost: localhost\r\n".encode()
            return head + (b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n" if slot % 2 else b"")
        return b'{"q' if slot % 2 else HEAD_LINE  # odd: body bytes; even: one more header line

    def step(self, until):
        now = time.monotonic()
        for slot, conn in list(self.conns.items()):
            s, due, sent = conn
            if due <= now and s is None:
                self.open(slot, now)
            elif due <= now:
                try:
                    conn[2] += s.send(self.piece(slot, sent))
                    self.pieces += 1
                    conn[1] = due + self.interval
                except (BlockingIOError, InterruptedError):
                    conn[1] = now + 0.05  # still connecting
                except OSError:
                    self.reopen(slot)
        timeout = max(0.0, min(min(c[1] for c in self.conns.values()), until) - time.monotonic())
        for key, _ in self.selector.select(timeout=min(timeout, 0.05)):
            slot = key.data
            if slot is None:  # stdin: closed by the parent
                self.stopped = True
                continue
            try:
                data = key.fileobj.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:  # the server closed it (a deadline, a cap): keep n open
                self.reopen(slot)

    def run(self, seconds, stop_on_stdin_close=False):
        until = time.monotonic() + seconds
        self.stopped = False
        if stop_on_stdin_close:
            self.selector.register(sys.stdin, selectors.EVENT_READ, None)
        while time.monotonic() < until and not self.stopped:
            self.step(until)
        return {"connections": self.n, "opened": self.opened, "closed_by_server": self.closed_by_server,
                "pieces_sent": self.pieces}


def start_trickling(port, n, interval=1.0, per_address=200, seconds=3600):
    """A child process trickling n connections until stop_trickling(); returns it once every
    connection has been opened."""
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), str(port), str(n), str(interval),
                             str(per_address), str(seconds)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    check_line = proc.stdout.readline()
    if check_line.strip() != "open":
        raise RuntimeError(f"the trickler did not start: {check_line!r}")
    return proc


def stop_trickling(proc):
    """Stops the child; returns its counts."""
    proc.stdin.close()
    out = proc.stdout.read()
    proc.wait(timeout=60)
    return json.loads(out)


def idle_connections(port, n, per_address=200, first=0):
    """n keep-alive connections, each after one GET /health answered 200 (the connection numbered
    from `first`, for its source address); the caller closes them."""
    conns = []
    for i in range(first, first + n):
        conns.append(connect(port, source_address(i, per_address)))
        conns[-1].sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
    for s in conns:
        reply = b""
        while b"\r\n\r\n" not in reply or not reply.endswith(b"}"):
            chunk = s.recv(4096)
            if not chunk:
                raise RuntimeError(f"the server closed an idle connection: {reply!r}")
            reply += chunk
        if not reply.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"/health on an idle connection: {reply[:100]!r}")
    return conns


def raise_fd_limit():
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


if __name__ == "__main__":
    port, n, interval, per_address, seconds = (int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]),
                                               int(sys.argv[4]), float(sys.argv[5]))
    raise_fd_limit()
    trickler = Trickler(port, n, interval, per_address)
    print("open", flush=True)
    print(json.dumps(trickler.run(seconds, stop_on_stdin_close=True)), flush=True)
