#!/usr/bin/env bash
# End to end: `sift serve --workers N`, N engines (sessions) on one loaded model. Under 8
# concurrent clients, --workers 2 answers /v1/label and /v1/score with the bits --workers 1
# gives, which are those of `sift score`; with the engines held (the test gate), two requests
# are taken at once by two workers, where one worker takes one; --workers 0, more workers than
# compute threads, and an absurd count are usage errors (exit 2) that name the flag, before
# anything is loaded.
# Usage: bash serve_workers.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import random, subprocess, sys, threading
from serve_client import Server, check, sift_score, wait_until
sift, work = sys.argv[1:3]
model = f"{work}/labeler"

# 1. Refused on the command line: exit 2, the flag named, nothing loaded (no such model either).
for args, says in [(["--workers", "0"], "--workers"), (["--workers", "-1"], "--workers"),
                   (["--workers", "100000"], "--workers"), (["--workers", "two"], "--workers"),
                   (["--workers", "3", "--threads", "2"], "--workers 3 is more than the 2 compute threads")]:
    run = subprocess.run([sift, "serve", "--model", f"{work}/absent", "--port", "0", *args],
                         capture_output=True, text=True, timeout=60)
    check(run.returncode == 2 and says in run.stderr and "absent" not in run.stderr,
          f"serve {args}: exit {run.returncode}: {run.stderr}")

# 2. The same bits on one worker and on two, under concurrent clients.
rng = random.Random(5)
words = "python cloud nurse welding sql kubernetes cooking finance rust design sales care".split()
queries = [" ".join(rng.choice(words) for _ in range(rng.randint(2, 12))) for _ in range(4)]
rows = [{"query": queries[i % 4], "items": [" ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
                                            for _ in range(rng.randint(1, 9))]} for i in range(12)]
reference = sift_score(sift, model, rows)

def answers(server):
    """Every row's /v1/label and /v1/score (token ids) answer, posted by 8 clients at once."""
    out, lock = {}, threading.Lock()
    def client(seed):
        conn = server.connection()
        order = list(range(len(rows))) * 2
        random.Random(seed).shuffle(order)
        for k in order:
            for route, body in [("/v1/label", rows[k]),
                                ("/v1/score", {"query": rows[k]["query"], "items": rows[k]["items"],
                                               "label_token_ids": [3, 4], "apply_softmax": k % 2 == 0})]:
                status, _, got = server.post(route, body, conn=conn)
                got.pop("usage", None)  # what the cache served depends on the order
                with lock:
                    out.setdefault((route, k), []).append((status, got))
    threads = [threading.Thread(target=client, args=(s,)) for s in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    return out

results = {}
for workers in ["1", "2"]:
    with Server(sift, model, "--threads", "2", "--workers", workers) as server:
        results[workers] = answers(server)
        check(server.metric("sift_queue_requests") == 0, f"--workers {workers}: the queue drained")
for key, got in results["2"].items():
    check(all(g == results["1"][key][0] for g in got + results["1"][key]) and got[0][0] == 200,
          f"{key}: --workers 2 {got[0]} vs --workers 1 {results['1'][key][0]}")
for k, want in enumerate(reference):
    got = results["2"][("/v1/label", k)][0][1]
    check(got["scores"] == want["scores"] and got["labels"] == want["labels"], f"row {k}: {got} vs sift score {want}")

# 3. Two workers take two requests at once: with the engines held before each batch, a second
# request sent while the first is held is taken by the second worker (one worker leaves it queued).
big = {"query": "a long profile " * 20, "items": [f"qualification number {i}" for i in range(50)]}
taken = lambda server: server.metric("sift_queue_wait_seconds_count")
for workers in ["1", "2"]:
    with Server(sift, model, "--threads", "2", "--workers", workers, gated=True) as server:
        posts = [threading.Thread(target=server.post, args=("/v1/label", big)) for _ in range(2)]
        posts[0].start()
        wait_until(lambda: taken(server) == 1, f"--workers {workers}: the first request was never taken")
        posts[1].start()
        if workers == "2":
            wait_until(lambda: taken(server) == 2, "--workers 2: the second worker never took the second request")
        else:
            wait_until(lambda: server.metric("sift_queue_requests") == 1, "the second request never reached the queue")
            check(taken(server) == 1, "--workers 1: the one worker is held with the first request")
        check(server.metric("sift_labels_total") == 0, f"--workers {workers}: held before computing")
        server.release(1 << 10)
        for t in posts: t.join()
        check(server.metric("sift_labels_total") == 100, f"--workers {workers}: both answered")
print("serve_workers: ok")
PY
