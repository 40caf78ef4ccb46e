#!/usr/bin/env bash
# End to end: 10,000 malformed or random requests against the real `sift serve` (random
# paths and methods, random bytes, truncated and mutated JSON bodies of every route, wrong
# types in every field, deep nesting, huge numbers, broken HTTP framing on raw sockets).
# Every answer is a 4xx (or a 200 for a mutation that happens to be valid), never a 5xx;
# the server stays up, its memory stays bounded, it still scores correctly, and it exits 0
# on SIGTERM. (fuzz/fuzz_serve_request.cpp fuzzes the body parser itself.)
# Usage: bash serve_malformed.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, random, socket, sys, threading, time
from collections import Counter
from serve_client import Server, check, sift_score
sift, work = sys.argv[1:3]
model = f"{work}/labeler"

VALID = {
    "/v1/label": {"query": "python dev", "items": ["python", {"id": 1, "text": "sql"}], "threshold": 0.5, "mode": "mis"},
    "/v1/score": {"query": [1, 2, 3], "items": [[4, 5], [6]], "label_token_ids": [7, 8], "apply_softmax": True, "item_first": False},
    "/v1/rerank": {"query": "python dev", "documents": ["python", {"text": "sql"}], "top_n": 1, "return_documents": True},
}
ODD_VALUES = [None, True, False, 0, -1, 1.5, 1e308, -1e308, 2**63, -(2**63), "", "x" * 300, "\u0000", "\ud7ff\ue000",
              [], [None], [[[]]], {}, {"text": 1}, {"id": {}}, [-5, 2**40], ["a", 1], "<|im_end|>"]

def mutate(rng, value, depth=0):
    """A copy of a JSON value with one random change somewhere inside it."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        out = dict(value)
        key = rng.choice(list(out))
        r = rng.random()
        if r < 0.25: del out[key]
        elif r < 0.5: out[key] = rng.choice(ODD_VALUES)
        else: out[key] = mutate(rng, out[key], depth + 1)
        return out
    if isinstance(value, list) and value and rng.random() < 0.8:
        out = list(value)
        i = rng.randrange(len(out))
        out[i] = mutate(rng, out[i], depth + 1) if rng.random() < 0.5 else rng.choice(ODD_VALUES)
        return out
    return rng.choice(ODD_VALUES)

def random_request(rng):
    """(method, path, body bytes)."""
    r = rng.random()
    path = rng.choice(list(VALID))
    if r < 0.45:
        return "POST", path, json.dumps(mutate(rng, VALID[path])).encode()
    if r < 0.6:
        text = json.dumps(VALID[path]).encode()
        return "POST", path, text[: rng.randrange(len(text))]
    if r < 0.7:
        return "POST", path, bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    if r < 0.75:
        depth = rng.randrange(60, 5000)
        return "POST", path, b"[" * depth + b"]" * depth
    if r < 0.8:
        return "POST", path, b'{"query": 1e999, "items": [' + b"1" * rng.randrange(1, 400) + b"]}"
    if r < 0.9:
        junk = "".join(rng.choice("/abcdv1_%.?#&=") for _ in range(rng.randrange(1, 40)))
        return rng.choice(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]), "/" + junk, b"{}"
    return rng.choice(["GET", "PUT", "DELETE"]), path, json.dumps(VALID[path]).encode()

RAW = [b"GARBAGE\r\n\r\n", b"POST /v1/label HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
       b"POST /v1/label HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n{}",
       b"POST /v1/label HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n", b"\x00\x01\x02\r\n\r\n",
       b"POST /v1/label HTTP/1.1\r\n" + b"X: " + b"y" * 20000 + b"\r\n\r\n"]

with Server(sift, model, "--threads", "1", "--max-body-mb", "1") as server:
    rss_before = server.rss_kib()
    statuses, lock = Counter(), threading.Lock()
    bad = []
    def client(seed, n):
        rng = random.Random(seed)
        conn = server.connection(timeout=30)
        for _ in range(n):
            method, path, body = random_request(rng)
            try:
                status, _, reply = server.request(method, path, body, headers={"Content-Type": "application/json"}, conn=conn)
            except (OSError, ValueError) as e:  # the server closed a connection it could not read
                conn.close()
                conn = server.connection(timeout=30)
                status, reply = "closed", str(e)
            with lock:
                statuses[status] += 1
                if status != "closed" and (status >= 500 or (status >= 400 and not isinstance(reply, dict))):
                    bad.append((method, path, body[:200], status, reply))
    def raw_reply(request, half_close):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(request)
            if half_close:
                s.shutdown(socket.SHUT_WR)
            return s.recv(200)
    def raw_client(request, n):
        # One thread per kind, a few of each: a kind the server answers only at a deadline
        # waits beside the others.
        for _ in range(n):
            reply = raw_reply(request, half_close=False)
            with lock:
                statuses["raw"] += 1
                if not reply.startswith(b"HTTP/1.1 4"):  # an answer, and a 4xx: silence is a failure too
                    bad.append(("raw", request[:60], reply))
    start = time.time()
    threads = [threading.Thread(target=client, args=(s, 2497)) for s in range(4)]
    threads += [threading.Thread(target=raw_client, args=(request, 2)) for request in RAW]
    for t in threads: t.start()
    for t in threads: t.join()
    # The same bytes, then the client's end of the connection closed: the server may close an
    # incomplete request's connection without an answer (RFC 9112, 9.6), but an answer it
    # gives is a 4xx, and it stays up.
    for request in RAW:
        reply = raw_reply(request, half_close=True)
        check(reply == b"" or reply.startswith(b"HTTP/1.1 4"), f"half-closed {request[:60]}: {reply}")
    total = sum(statuses.values())
    check(total == 10000, f"{total} requests sent")
    check(not bad, f"{len(bad)} answers were not a JSON 4xx, e.g. {bad[:3]}")
    n4xx = sum(v for k, v in statuses.items() if isinstance(k, int) and 400 <= k < 500)
    check(n4xx > 8000, f"mostly 4xx: {dict(statuses)}")
    check(server.proc.poll() is None, "the server is still running")
    server.check_rss_growth(rss_before, 200 * 1024, "over the malformed requests")
    row = {"query": "python dev", "items": ["python", "sql"]}
    status, _, body = server.post("/v1/label", row)
    check(status == 200 and body["scores"] == sift_score(sift, model, [row])[0]["scores"], "still scores correctly")
    print(f"serve_malformed: {total} requests in {time.time() - start:.1f}s: {dict(statuses)}", file=sys.stderr)
PY
echo "serve_malformed: ok"
