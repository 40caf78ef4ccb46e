"""Helpers of the `sift serve` end-to-end tests (tests/e2e/serve_*.sh): start the real
server on a port it chooses itself (--port 0, read back from --port-file: no port is picked
here and released for another process to take), wait for /health, talk HTTP with the
standard library only, hold the engine through its test gate (SIFT_TEST_ENGINE_GATE), and
stop it with SIGTERM (checking it exits 0)."""
import atexit
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from sift_build import sanitized


def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)


def wait_until(condition, what, timeout=60, interval=0.01):
    """Polls condition() until it is true; fails naming `what` after `timeout` seconds (a
    hang detector: the tests never decide anything by how long a step took)."""
    deadline = time.monotonic() + timeout
    while not condition():
        check(time.monotonic() < deadline, f"{what}: not within {timeout} s")
        time.sleep(interval)


class Server:
    """`sift serve --model MODEL *args` on host:<the port it bound> (127.0.0.1, or `host`, given
    to --host), ready once /health is 200 (healthy=False: once the port is known, the model
    maybe still loading). gated=True holds the engine before every batch until release() lets
    it through; prepare_gated=True holds the threads that render and tokenize requests before
    each one until release_prepare() lets it through (SIFT_TEST_PREPARE_GATE)."""

    def __init__(self, sift, model, *args, env=None, healthy=True, gated=False, prepare_gated=False, preexec_fn=None,
                 host=None):
        self.sift = sift
        self.host = host or "127.0.0.1"
        if host:
            args = ("--host", host, *args)
        self.dir = tempfile.mkdtemp(prefix="sift-serve-")
        self.log_path = os.path.join(self.dir, "serve.log")
        port_file = os.path.join(self.dir, "port")
        env = dict(os.environ if env is None else env)
        self.gate = None
        if gated:
            fifo = os.path.join(self.dir, "engine-gate")
            os.mkfifo(fifo)
            self.gate = os.open(fifo, os.O_RDWR)  # read-write: never waits for the other end
            env["SIFT_TEST_ENGINE_GATE"] = fifo
        self.prepare_gate = None
        if prepare_gated:
            fifo = os.path.join(self.dir, "prepare-gate")
            os.mkfifo(fifo)
            self.prepare_gate = os.open(fifo, os.O_RDWR)
            env["SIFT_TEST_PREPARE_GATE"] = fifo
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sift, "serve", "--model", model, "--port", "0", "--port-file", port_file, *args],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env, preexec_fn=preexec_fn)
        atexit.register(self._kill_if_running)  # a script that fails leaves no server behind
        wait_until(lambda: os.path.exists(port_file) or self.proc.poll() is not None, "sift serve wrote no --port-file")
        check(self.proc.poll() is None, f"sift serve exited early: {self.read_log()}")
        self.port = int(open(port_file).read())
        if healthy:
            self.wait_healthy()

    def _kill_if_running(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def wait_healthy(self):
        def healthy():
            check(self.proc.poll() is None, f"sift serve exited early: {self.read_log()}")
            return self.request("GET", "/health")[0] == 200
        wait_until(healthy, "sift serve did not become healthy")

    def release(self, batches=1):
        """Lets `batches` more batches through the engine gate."""
        os.write(self.gate, b"x" * batches)

    def release_prepare(self, requests=1):
        """Lets `requests` more requests through the preparation gate."""
        os.write(self.prepare_gate, b"x" * requests)

    def read_log(self):
        self.log.flush()
        return open(self.log_path).read()

    def connection(self, timeout=120):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None):
        """(status, headers dict, parsed JSON or text) of one request; a body goes as
        application/json unless `headers` name another Content-Type."""
        own = conn is None
        conn = conn or self.connection()
        data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
        headers = dict(headers or {})
        if data is not None and not any(name.lower() == "content-type" for name in headers):
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=headers)
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

    def rss_kib(self, field="VmRSS"):
        """Resident memory now (VmRSS), or its peak so far (field="VmHWM")."""
        for line in open(f"/proc/{self.proc.pid}/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1])
        return 0

    def check_rss_growth(self, rss_before, limit_kib, what, field="VmRSS"):
        """RSS (or its peak, field="VmHWM") grew by less than limit_kib since rss_before. Not
        under AddressSanitizer, whose quarantine keeps up to 256 MB of freed memory resident by
        design: the bound is the release build's, checked by `make test`'s ordinary run of the
        same script."""
        grown = self.rss_kib(field) - rss_before
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
        if self.gate is not None:
            self.release(1 << 12)  # whatever is still queued runs as the server drains
        if self.prepare_gate is not None:
            self.release_prepare(1 << 12)
        code = self.stop()
        if exc[0] is None:
            check(code == 0, f"sift serve exited {code} after SIGTERM: {self.read_log()}")
        self.close()

    def close(self):
        """Frees what the server left here (its log, port file and gate)."""
        self.log.close()
        if self.gate is not None:
            os.close(self.gate)
        if self.prepare_gate is not None:
            os.close(self.prepare_gate)
        shutil.rmtree(self.dir, ignore_errors=True)


def check_histograms(text):
    """Every histogram of a Prometheus text page is consistent: per series, the buckets'
    bounds ascend, their counts are cumulative (never fall), the last bucket is +Inf and
    holds _count, and _sum is present. Returns the number of series checked."""
    buckets, counts, sums = {}, {}, set()
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name_labels, value = line.rsplit(" ", 1)
        name, _, labels = name_labels.partition("{")
        labels = labels.rstrip("}")
        if name.endswith("_bucket"):
            pairs = [p for p in labels.split(",") if p]
            le = [p for p in pairs if p.startswith("le=")]
            check(len(le) == 1, f"a bucket without one le label: {line}")
            series = (name[: -len("_bucket")], ",".join(p for p in pairs if not p.startswith("le=")))
            buckets.setdefault(series, []).append((le[0][4:-1], float(value)))
        elif name.endswith("_count"):
            counts[(name[: -len("_count")], labels)] = float(value)
        elif name.endswith("_sum"):
            sums.add((name[: -len("_sum")], labels))
    check(buckets, "no histogram on the page")
    for series, rows in buckets.items():
        bounds = [float("inf") if le == "+Inf" else float(le) for le, _ in rows]
        values = [v for _, v in rows]
        check(bounds == sorted(bounds) and len(set(bounds)) == len(bounds), f"{series}: bucket bounds {bounds}")
        check(rows[-1][0] == "+Inf", f"{series}: the last bucket is not +Inf: {rows}")
        check(all(a <= b for a, b in zip(values, values[1:])), f"{series}: buckets not cumulative: {rows}")
        check(series in counts and counts[series] == values[-1], f"{series}: +Inf bucket {values[-1]} != _count {counts.get(series)}")
        check(series in sums, f"{series}: no _sum")
    return len(buckets)


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
