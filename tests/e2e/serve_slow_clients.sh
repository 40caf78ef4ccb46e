#!/usr/bin/env bash
# End to end, the property behind the slow-client cases of serve_hostile.sh: 1,000 connections
# trickling their heads and bodies (a piece per connection per second, from a separate process)
# do not slow a well-behaved client down. Its /health and /v1/label latencies (p99 of the
# sequential requests it sends in 5 s, at least 300 each, on one keep-alive connection) stay
# within 100 ms of the same client's figures on the idle server, measured in the same run.
# Usage: bash serve_slow_clients.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import sys, time
from serve_client import Server, check
from slow_clients import start_trickling, stop_trickling, raise_fd_limit
sift, work = sys.argv[1:3]
raise_fd_limit()
ROW = {"query": "python dev with ten years of experience", "items": ["python", "sql", "welding"]}
N_SLOW, MIN_REQUESTS, SECONDS, SLACK = 1000, 300, 5.0, 0.100

def p99(seconds):
    return sorted(seconds)[int(0.99 * len(seconds)) - 1]

with Server(sift, f"{work}/labeler", "--threads", "1") as server:
    conn = server.connection(timeout=30)
    def latencies():
        health, label = [], []
        until = time.monotonic() + SECONDS
        while len(health) < MIN_REQUESTS or time.monotonic() < until:
            start = time.monotonic()
            check(server.request("GET", "/health", conn=conn)[0] == 200, "/health")
            middle = time.monotonic()
            status, _, body = server.post("/v1/label", ROW, conn=conn)
            check(status == 200 and len(body["scores"]) == 3, f"/v1/label: {status}")
            health.append(middle - start)
            label.append(time.monotonic() - middle)
        return p99(health), p99(label)

    latencies()  # warm-up
    idle = latencies()
    trickler = start_trickling(server.port, N_SLOW, interval=1.0)
    deadline = time.time() + 30
    while server.metric("sift_connections") < N_SLOW + 1:
        check(time.time() < deadline, f"{N_SLOW} slow connections open: {server.metric('sift_connections')}")
        time.sleep(0.1)
    time.sleep(1.0)  # each has sent a piece or two
    loaded = latencies()
    open_at_end = server.metric("sift_connections")
    counts = stop_trickling(trickler)
    print(f"serve_slow_clients: p99 /health {idle[0] * 1e3:.1f} ms idle, {loaded[0] * 1e3:.1f} ms under {N_SLOW} slow "
          f"clients; /v1/label {idle[1] * 1e3:.1f} ms, {loaded[1] * 1e3:.1f} ms; trickler: {counts}", file=sys.stderr)
    check(open_at_end >= N_SLOW and counts["pieces_sent"] >= SECONDS * N_SLOW, f"the slow clients kept trickling: {open_at_end} {counts}")
    check(loaded[0] <= idle[0] + SLACK, f"/health p99 {loaded[0]:.3f} s under slow clients vs {idle[0]:.3f} s idle")
    check(loaded[1] <= idle[1] + SLACK, f"/v1/label p99 {loaded[1]:.3f} s under slow clients vs {idle[1]:.3f} s idle")
PY
echo "serve_slow_clients: ok"
