#!/usr/bin/env python3
"""How fast `sift review` answers on a large store: a label store of MEMBERS members with
LABELS judged pairs each (scores drawn at random, profile texts of random words), written
straight into the SQLite schema `sift label` creates, then every API route the pages call,
REPEATS times each over one keep-alive connection: median and 95th percentile wall time
(ms, as the client sees it), and the largest.

    python3 bench/review_pages.py [--sift build/sift] [--members 100000] [--labels 20] [--repeats 30]
"""
import argparse
import http.client
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--sift", default="build/sift")
ap.add_argument("--members", type=int, default=100_000)
ap.add_argument("--labels", type=int, default=20)
ap.add_argument("--repeats", type=int, default=30)
ap.add_argument("--work", default=None)
args = ap.parse_args()
work = args.work or tempfile.mkdtemp(prefix="sift-review-bench-")
os.makedirs(work, exist_ok=True)
store = os.path.join(work, "labels.db")
threshold = 0.44

# The store as the first schema version held it (runs, members, labels), filled in bulk; the
# first `sift review --reviewer` below upgrades it as it would a user's store.
for stale in (store, store + "-wal", store + "-shm"):
    if os.path.exists(stale):
        os.unlink(stale)
db = sqlite3.connect(store)
db.executescript(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e", "lib",
                                "label_store_v1.sql")).read())
db.execute("INSERT INTO runs VALUES ('run', '2026-12-02T00:00:00Z', '2026-12-02T01:00:00Z', 'v1', 'f', ?, '{}', "
           "0, 0, 0, 0, 0, 0, 0)", (threshold,))
rng = random.Random(7)
words = [f"w{i:04d}" for i in range(5000)]
started = time.time()
for first in range(0, args.members, 10_000):
    members, labels = [], []
    for i in range(first, min(args.members, first + 10_000)):
        member = f"m{i:06d}"
        members.append((member, f"h{i}", "v1", threshold, 2, "below_threshold", "run", "2026-12-02T00:00:00Z"))
        for rank in range(1, args.labels + 1):
            score = rng.betavariate(0.4, 0.6)
            labels.append((member, f"q{rank:04d}", f"qualification {rank}", score, int(score >= threshold),
                           1 + (rank - 1) // 10, rank, "v1", threshold, "run", "2026-12-02T00:00:00Z"))
    db.executemany("INSERT INTO members VALUES (?, ?, ?, ?, ?, ?, ?, ?)", members)
    db.executemany("INSERT INTO labels VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", labels)
db.execute("PRAGMA journal_mode=WAL")
db.commit()
db.close()
print(f"store: {args.members} members, {args.members * args.labels} pairs in {time.time() - started:.0f} s", file=sys.stderr)

def start(*flags):
    port_file = os.path.join(work, f"port-{time.monotonic_ns()}")
    proc = subprocess.Popen([args.sift, "review", "--store", store, "--port", "0", "--port-file", port_file, *flags],
                            stderr=subprocess.DEVNULL)
    while not os.path.exists(port_file):
        if proc.poll() is not None:
            sys.exit("sift review exited")
        time.sleep(0.05)
    return proc, int(open(port_file).read())

# The upgrade to the review schema (members' profile and margin, the indexes), once, as the
# first `sift review --reviewer` does; profile texts are then filled in for searches.
started = time.time()
proc, port = start("--reviewer", "bench")
proc.terminate()
proc.wait()
upgrade_seconds = time.time() - started
db = sqlite3.connect(store)
db.executemany("UPDATE members SET profile = ? WHERE member = ?",
               ((" ".join(rng.choice(words) for _ in range(60)), f"m{i:06d}") for i in range(args.members)))
db.commit()
db.close()

proc, port = start("--reviewer", "bench")
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

def get(path):
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    if response.status != 200:
        sys.exit(f"{path}: {response.status} {body[:200]}")
    return json.loads(body) if body.startswith(b"{") else body

session = get("/api/session")
for i in range(0, 200, 2):  # some verdicts, so the queue and the export have work
    shown = get(f"/api/member?id=m{i:06d}")  # a verdict carries the judgment the page showed
    judgment = next(j for j in shown["judgments"] if j["qualification"] == "q0001")
    conn.request("POST", "/api/review", json.dumps({"member": f"m{i:06d}", "qualification": "q0001", "verdict": "right",
                                                    "label": judgment["label"], "score": judgment["score"],
                                                    "threshold": shown["threshold"],
                                                    "artifact_version": shown["artifact_version"]}),
                 {"X-CSRF-Token": session["csrf_token"], "Content-Type": "application/json"})
    response = conn.getresponse()
    if response.status != 200:
        sys.exit(f"a verdict: {response.status} {response.read()[:200]}")
    response.read()

last = max(0, args.members - 50)
routes = [
    ("members page, by id", "/api/members?limit=50"),
    ("members, last page by id", f"/api/members?limit=50&offset={last}"),
    ("members, most uncertain first", "/api/members?order=uncertainty&limit=50"),
    ("members, uncertainty, middle page", f"/api/members?order=uncertainty&limit=50&offset={args.members // 2}"),
    ("members, ids starting with m0499", "/api/members?id=m0499&limit=50"),
    ("members, profile texts containing a word (a scan)", "/api/members?text=w1234&limit=50"),
    ("one member", f"/api/member?id=m{args.members // 2:06d}"),
    ("flip counts, threshold 0.3", "/api/flips?threshold=0.3"),
    ("flip counts, threshold 0.6", "/api/flips?threshold=0.6"),
    ("review queue, 20 pairs", "/api/queue?limit=20"),
    ("session (member and pair counts)", "/api/session"),
    ("calibration (reviewed pairs)", "/api/calibration"),
    ("members page HTML", "/"),
]
print(f"| route | median ms | p95 ms | max ms |")
print(f"|---|---|---|---|")
for name, path in routes:
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        get(path)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print(f"| {name} (`{path}`) | {statistics.median(times):.1f} | {p95:.1f} | {times[-1]:.1f} |")
proc.terminate()
proc.wait()
print(f"\nupgrade of the store to the review schema (first `sift review --reviewer`): {upgrade_seconds:.1f} s",
      file=sys.stderr)
