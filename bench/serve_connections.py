#!/usr/bin/env python3
"""The connection benchmark of `sift serve` (bench/README.md, "Serving: connections"):

  idle       RSS growth of the server per idle keep-alive connection: open 2,500, 5,000 and
             10,000 connections (each after one GET /health, answered), from loopback source
             addresses 127.0.0.2.. (200 each, under the per-address cap), and read the server's
             VmRSS after each step; the figure is the growth from the server with no client
             connection, divided by the connections.
  slow       a well-behaved client's latency (one keep-alive connection, /health and /v1/label
             back to back for SECONDS each phase) on the idle server, then with 1,000
             connections trickling their heads and bodies (tests/e2e/lib/slow_clients.py, a
             separate process): p50, p99 and max of each route, side by side.

The labeler is a tiny random one (tests/e2e/lib/tiny_labeler.sh): the figures are about the
HTTP layer, not the model. Prints a JSON report and the machine's load average (`uptime`)
before and after, since on a shared machine other work moves the latencies.

    python3 bench/serve_connections.py [--sift build/sift] [--connections 10000] [--seconds 10]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "tests", "e2e", "lib"))
from serve_client import Server  # noqa: E402
from slow_clients import idle_connections, raise_fd_limit, start_trickling, stop_trickling  # noqa: E402

ROW = {"query": "python dev with ten years of experience", "items": ["python", "sql", "welding"]}


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def make_labeler(sift, work):
    script = f'source "{SRC}/tests/e2e/lib/tiny_labeler.sh"; make_tiny_labeler "{sift}" "{SRC}" "{work}/labeler" 5'
    subprocess.run(["bash", "-c", script], check=True)
    return f"{work}/labeler"


def idle_rss(sift, model, counts):
    """[{connections, rss_kib, kib_per_connection}] for each count, on one server."""
    rows = []
    with Server(sift, model, "--threads", "1", "--max-connections", str(max(counts) + 100),
                "--keep-alive-seconds", "3600") as server:
        server.request("GET", "/health")
        time.sleep(0.5)
        base = server.rss_kib()
        rows.append({"connections": 0, "rss_kib": base, "kib_per_connection": None})
        conns = []
        for count in counts:
            conns += idle_connections(server.port, count - len(conns), per_address=200, first=len(conns))
            time.sleep(1.0)
            open_now = server.metric("sift_connections") - 1  # the metrics request's own
            if open_now < count:
                raise RuntimeError(f"only {open_now} of {count} idle connections open")
            rss = server.rss_kib()
            rows.append({"connections": count, "rss_kib": rss, "kib_per_connection": round((rss - base) / count, 2)})
            print(f"idle: {count} connections, RSS {rss} KiB, {(rss - base) / count:.2f} KiB each", file=sys.stderr)
        for s in conns:
            s.close()
    return rows


def latencies(server, seconds):
    conn = server.connection(timeout=60)
    health, label = [], []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        start = time.monotonic()
        assert server.request("GET", "/health", conn=conn)[0] == 200
        middle = time.monotonic()
        assert server.post("/v1/label", ROW, conn=conn)[0] == 200
        health.append((middle - start) * 1e3)
        label.append((time.monotonic() - middle) * 1e3)
    conn.close()

    def summary(ms):
        ms = sorted(ms)
        return {"n": len(ms), "p50_ms": round(statistics.median(ms), 2), "p99_ms": round(ms[int(0.99 * len(ms)) - 1], 2),
                "max_ms": round(ms[-1], 2)}
    return {"/health": summary(health), "/v1/label": summary(label)}


def slow_clients(sift, model, n_slow, seconds):
    with Server(sift, model, "--threads", "1") as server:
        latencies(server, 1.0)  # warm-up
        idle = latencies(server, seconds)
        trickler = start_trickling(server.port, n_slow, interval=1.0)
        while server.metric("sift_connections") < n_slow + 1:
            time.sleep(0.1)
        time.sleep(1.0)
        loaded = latencies(server, seconds)
        counts = stop_trickling(trickler)
    return {"idle": idle, f"{n_slow}_slow_clients": loaded, "trickler": counts}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sift", default=os.path.join(SRC, "build", "sift"))
    parser.add_argument("--connections", type=int, default=10000)
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    raise_fd_limit()
    report = {"commit": subprocess.run(["git", "-C", SRC, "rev-parse", "--short", "HEAD"], capture_output=True,
                                       text=True).stdout.strip(),
              "uptime_before": uptime()}
    with tempfile.TemporaryDirectory() as work:
        model = make_labeler(args.sift, work)
        steps = sorted({args.connections // 4, args.connections // 2, args.connections})
        report["idle_keep_alive"] = idle_rss(args.sift, model, steps)
        report["slow_clients"] = slow_clients(args.sift, model, args.slow, args.seconds)
    report["uptime_after"] = uptime()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
