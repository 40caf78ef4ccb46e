"""Helpers of the `sift review` end-to-end tests (tests/e2e/review_*.sh): a label store made
by the real `sift label` with the bundled labeler (models/default-labeler) on profiles of
examples/sample.jsonl, one of them hostile; `sift review` started on --port 0 (its port read
from --port-file) and stopped with SIGTERM; HTTP with the standard library only."""
import http.client
import json
import os
import signal
import subprocess
import sys
import time

# A profile text that would run script if a page ever parsed data as HTML.
HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> '


def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)


def run(*args, **kw):
    """A sift command's stdout; it must exit 0."""
    done = subprocess.run(args, capture_output=True, text=True, **kw)
    check(done.returncode == 0, f"{' '.join(map(str, args))}: exit {done.returncode}: {done.stderr}")
    return done.stdout, done.stderr


def make_store(sift, src, work, n_profiles=12, store=None):
    """Labels n_profiles rows of examples/sample.jsonl (the third with HOSTILE before its text)
    into `store` (default work/labels.db); writes their reference rows to work/reference.jsonl.
    Returns (store, profiles {id: text}, reference path)."""
    run(sift, "synth", "--out", f"{work}/world", "--members", "1")
    rows = [json.loads(line) for line in open(f"{src}/examples/sample.jsonl")][:n_profiles]
    profiles = {}
    with open(f"{work}/profiles.jsonl", "w") as f:
        for i, r in enumerate(rows):
            profiles[r["id"]] = (HOSTILE if i == 2 else "") + r["query"]
            f.write(json.dumps({"id": r["id"], "text": profiles[r["id"]]}) + "\n")
    with open(f"{work}/reference.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps({"id": r["id"], "query": r["query"], "items": r["items"], "labels": r["labels"]}) + "\n")
    store = store or f"{work}/labels.db"
    run(sift, "label", "--model", f"{src}/models/default-labeler", "--catalog", f"{work}/world/catalog.jsonl",
        "--profiles", f"{work}/profiles.jsonl", "--store", store, "--k", "10", "--max-rounds", "3",
        "--stop-below", "0.2", "--quiet", env=dict(os.environ, OMP_NUM_THREADS="1"))
    return store, profiles, f"{work}/reference.jsonl"


def relabel(sift, src, work, store, member, profiles, threshold):
    """Runs `sift label` again on one member (as make_store labeled it) with another threshold."""
    path = f"{work}/relabel-{member}.jsonl"
    with open(path, "w") as f:
        f.write(json.dumps({"id": member, "text": profiles[member]}) + "\n")
    run(sift, "label", "--model", f"{src}/models/default-labeler", "--catalog", f"{work}/world/catalog.jsonl",
        "--profiles", path, "--store", store, "--k", "10", "--max-rounds", "3", "--stop-below", "0.2",
        "--threshold", repr(threshold), "--quiet", env=dict(os.environ, OMP_NUM_THREADS="1"))


def verdict(pair, word, version):
    """A verdict's body: the pair ({member, qualification, label, score, threshold}, as a queue
    entry has it), the verdict, and the artifact version the page showed."""
    return {"member": pair["member"], "qualification": pair["qualification"], "verdict": word, "label": pair["label"],
            "score": pair["score"], "threshold": pair["threshold"], "artifact_version": version}


def flipping_threshold(score, label):
    """A threshold that turns this judgment's label: just above its score for a YES, its score for a NO."""
    return min(1.0, score + 1e-9) if label else score


def export(sift, store, *flags):
    out, _ = run(sift, "labels", "export", "--store", store, *flags)
    return [json.loads(line) for line in out.splitlines()]


class Review:
    """`sift review --store STORE *args --port 0 --port-file F`, ready once the port file is written."""

    def __init__(self, sift, store, work, *args):
        self.port_file = f"{work}/review-{time.monotonic_ns()}.port"
        self.log_path = self.port_file + ".log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sift, "review", "--store", store, "--port", "0", "--port-file", self.port_file,
                                      *args], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while not os.path.exists(self.port_file):
            check(self.proc.poll() is None, f"sift review exited early: {self.read_log()}")
            check(time.time() < deadline, "sift review wrote no port file in 60 s")
            time.sleep(0.02)
        self.port = int(open(self.port_file).read())
        self.url = f"http://127.0.0.1:{self.port}"

    def read_log(self):
        self.log.flush()
        return open(self.log_path).read()

    def request(self, method, path, body=None, headers=None):
        """(status, headers dict with lower-case names, parsed JSON or text); a body goes as
        application/json unless `headers` name another Content-Type."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
        headers = dict(headers or {})
        if body is not None and not any(name.lower() == "content-type" for name in headers):
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        raw = response.read()
        conn.close()
        text = raw.decode("utf-8", "replace")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = text
        return response.status, {k.lower(): v for k, v in response.getheaders()}, parsed

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            check(False, "sift review did not stop within 60 s of SIGTERM")
        check(code == 0, f"sift review exited {code} after SIGTERM: {self.read_log()}")
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.stop()
        elif self.proc.poll() is None:
            self.proc.kill()
