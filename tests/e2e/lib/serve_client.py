"""Helpers of the `sift serve` end-to-end tests (tests/e2e/serve_*.sh): start the real
server on a free loopback port, wait for /health, talk HTTP with the standard library only,
and stop it with SIGTERM (checking it exits 0)."""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time


def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`sift serve --model MODEL *args` on 127.0.0.1:<free port>, ready once /health is 200."""

    def __init__(self, sift, model, *args, log_path=None, env=None, preexec_fn=None):
        self.port = free_port()
        self.log_path = log_path or f"/tmp/sift-serve-{self.port}.log"
        self.sift = sift
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sift, "serve", "--model", model, "--port", str(self.port), *args],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env, preexec_fn=preexec_fn)
        deadline = time.time() + 60
        while True:
            check(self.proc.poll() is None, f"sift serve exited early: {self.read_log()}")
            try:
                if self.request("GET", "/health")[0] == 200:
                    break
            except OSError:
                pass
            check(time.time() < deadline, "sift serve did not become healthy in 60 s")
            time.sleep(0.05)

    def read_log(self):
        self.log.flush()
        return open(self.log_path).read()

    def connection(self, timeout=120):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None):
        """(status, headers dict, parsed JSON or text) of one request."""
        own = conn is None
        conn = conn or self.connection()
        data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
        conn.request(method, path, body=data, headers=headers or {})
        response = conn.getresponse()
        raw = response.read()
        if own:
            conn.close()
        text = raw.decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        return response.status, dict(response.getheaders()), parsed

    def post(self, path, body, **kw):
        return self.request("POST", path, body, **kw)

    def metric(self, name):
        """The value of a metric line `name` (with its labels, as written) in /metrics."""
        status, _, text = self.request("GET", "/metrics")
        check(status == 200, f"/metrics: {status}")
        for line in text.splitlines():
            if line.startswith(name + " "):
                return float(line.split()[-1])
        return None

    def rss_kib(self):
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def check_rss_growth(self, rss_before, limit_kib, what):
        """RSS grew by less than limit_kib since rss_before. Not under AddressSanitizer, whose
        quarantine keeps up to 256 MB of freed memory resident by design: the bound is the
        release build's, checked by `make test`'s ordinary run of the same script."""
        grown = self.rss_kib() - rss_before
        if sanitized(self.sift):
            print(f"note: RSS grew {grown} KiB {what}; not bounded under AddressSanitizer", file=sys.stderr)
            return
        check(grown < limit_kib, f"RSS grew {grown} KiB {what}")

    def stop(self, timeout=60):
        """SIGTERM; returns the exit code (the caller checks it)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            check(False, f"sift serve did not stop within {timeout} s of SIGTERM")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        code = self.stop()
        if exc[0] is None:
            check(code == 0, f"sift serve exited {code} after SIGTERM: {self.read_log()}")
        self.log.close()
        os.unlink(self.log_path)


def sanitized(sift):
    """Whether the sift binary is built with AddressSanitizer (it links libasan)."""
    libraries = subprocess.run(["ldd", sift], capture_output=True, text=True).stdout
    return "libasan" in libraries


def sift_score(sift, model, rows, *args):
    """`sift score` on rows (dicts): one result dict per row."""
    text = "".join(json.dumps(r) + "\n" for r in rows)
    out = subprocess.run([sift, "score", "--model", model, *args], input=text, capture_output=True, text=True)
    check(out.returncode == 0, f"sift score failed: {out.stderr}")
    return [json.loads(line) for line in out.stdout.splitlines()]


def tokenize(sift, tokenizer, texts, special=False):
    text = "".join(json.dumps({"text": t}) + "\n" for t in texts)
    args = [] if special else ["--no-special"]
    out = subprocess.run([sift, "tokenize", "--tokenizer", tokenizer, *args], input=text, capture_output=True, text=True)
    check(out.returncode == 0, f"sift tokenize failed: {out.stderr}")
    return [json.loads(line)["ids"] for line in out.stdout.splitlines()]
