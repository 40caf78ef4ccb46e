#!/usr/bin/env bash
# End to end: admission control and shutdown of the real `sift serve` (one engine thread, a
# tiny random labeler). The engine is held through its test gate (SIFT_TEST_ENGINE_GATE,
# docs/testing.md) wherever a check needs it busy, so no check depends on how fast it runs:
# 429 + Retry-After past --max-queue-tokens with bounded memory; 504 for a request whose
# timeout_ms passes while it waits, with no compute spent; a client that disconnects has its
# queued work dropped; 401 without the key; 413 over --max-body-mb; 404 (405 with Allow for a
# known path's wrong method); 400 naming the
# field; SIGTERM answers every in-flight request, then exits 0.
# Usage: bash serve_admission.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5
printf '  s3cret-key\n' > "$WORK/key"

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, signal, socket, sys, threading
from serve_client import Server, check, wait_until
sift, work = sys.argv[1:3]
model = f"{work}/labeler"
AUTH = {"Authorization": "Bearer s3cret-key"}

def big(n=250):
    return {"query": "a long profile " * 20, "items": [f"qualification number {i} of many" for i in range(n)]}
SMALL = {"query": "nurse", "items": ["care", "welding"]}

def prefilled(usage):
    """The prompt tokens a request ran through the model: those the query-KV cache did not serve."""
    return usage["prompt_tokens"] - usage["prompt_tokens_details"]["cached_tokens"]

def in_background(fn):
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", fn()))
    t.start()
    return t, out

def claimed(server):
    """Requests the engine has taken off the queue (each observes its queue wait)."""
    return server.metric("sift_queue_wait_seconds_count") or 0

def wait_claimed(server, n):
    wait_until(lambda: claimed(server) >= n, f"the engine never took request {n}")

# 1. Overload: 429 with Retry-After, everything else answered, memory bounded. The engine is
# held until a request has been refused, so the queue fills however fast the engine is.
with Server(sift, model, "--threads", "1", "--max-queue-tokens", "20000", gated=True) as server:
    rss_before = server.rss_kib()
    statuses, lock = [], threading.Lock()
    def client():
        conn = server.connection()
        for _ in range(6):
            status, headers, body = server.post("/v1/label", big(150), conn=conn)
            with lock:
                statuses.append((status, headers.get("Retry-After"), body))
    threads = [threading.Thread(target=client) for _ in range(16)]
    for t in threads: t.start()
    wait_until(lambda: server.metric('sift_requests_total{route="/v1/label",status="429"}'), "no 429 with the engine held")
    server.release(1 << 12)
    for t in threads: t.join()
    codes = [s for s, _, _ in statuses]
    check(set(codes) <= {200, 429} and codes.count(429) > 0 and codes.count(200) > 0, f"overload statuses: {sorted(set(codes))}")
    check(all(r == "1" and b["type"] == "RateLimitError" for s, r, b in statuses if s == 429), "429 carries Retry-After")
    check(all(len(b["scores"]) == 150 for s, _, b in statuses if s == 200), "admitted requests are answered in full")
    server.check_rss_growth(rss_before, 200 * 1024, "under overload")
    check(server.metric('sift_requests_total{route="/v1/label",status="429"}') == codes.count(429), "429s counted")
    status, _, body = server.post("/v1/label", big(1000))
    check(status == 413 and "more than --max-queue-tokens 20000" in body["message"], f"larger than the queue: {status} {body}")

# 2. Deadline: a request that waits past timeout_ms (the engine held on the request before
# it) gets 504 and costs no compute.
with Server(sift, model, "--threads", "1", gated=True) as server:
    t, out = in_background(lambda: server.post("/v1/label", big()))
    wait_claimed(server, 1)
    status, _, body = server.post("/v1/label", {**SMALL, "timeout_ms": 1})
    check(status == 504 and body["type"] == "TimeoutError", f"deadline: {status} {body}")
    server.release()
    t.join()
    check(out["r"][0] == 200, f"the running request still finishes: {out['r'][0]}")
    check(server.metric('sift_dropped_total{reason="deadline"}') == 1, "deadline drop counted")
    check(server.metric("sift_prefill_tokens_total") == prefilled(out["r"][2]["usage"]),
          "the expired request ran nothing")
    server.release()
    check(server.post("/v1/label", {**SMALL, "timeout_ms": 60000})[0] == 200, "a generous deadline is met")

    # 3. A client that disconnects while queued (behind a held request) has its work dropped,
    # never run.
    t, out = in_background(lambda: server.post("/v1/label", big()))
    wait_claimed(server, 3)  # the first request, the generous one, this one (the expired one never was)
    prefill = server.metric("sift_prefill_tokens_total")
    body = json.dumps(SMALL).encode()
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(b"POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: "
                  + str(len(body)).encode() + b"\r\n\r\n" + body)
        wait_until(lambda: server.metric("sift_queue_requests") == 1, "the request never reached the queue")
    wait_until(lambda: server.metric('sift_dropped_total{reason="disconnect"}') == 1,
               "the disconnected client's work was not dropped")
    server.release()
    t.join()
    check(out["r"][0] == 200, f"the request before it still finishes: {out['r'][0]}")
    check(server.metric("sift_prefill_tokens_total") == prefill + prefilled(out["r"][2]["usage"]),
          "the disconnected request ran nothing")

# 4. Auth, body limit, routes, malformed fields.
with Server(sift, model, "--threads", "1", "--api-key-file", f"{work}/key", "--max-body-mb", "0.01") as server:
    check(server.request("GET", "/health")[0] == 200, "/health needs no key")
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-key"}, {"Authorization": "Bearer s3cret-key2"}):
        status, h, body = server.post("/v1/label", SMALL, headers=headers)
        check(status == 401 and h.get("WWW-Authenticate") == "Bearer" and body["type"] == "AuthenticationError",
              f"401 for {headers}: {status} {body}")
    check(server.request("GET", "/metrics")[0] == 401 and server.request("GET", "/v1/models")[0] == 401, "every route but /health")
    check(server.post("/v1/label", SMALL, headers=AUTH)[0] == 200, "the right key")
    status, _, body = server.post("/v1/label", {"query": "x" * 20000, "items": ["a"]}, headers=AUTH)
    check(status == 413 and body["code"] == 413, f"413: {status} {body}")
    for method, path in [("GET", "/nope"), ("POST", "/v1/unknown"), ("POST", "/v1/label/")]:
        status, _, body = server.request(method, path, headers=AUTH)
        check(status == 404 and body["type"] == "NotFoundError", f"404 for {method} {path}: {status} {body}")
    for method, path, allow in [("GET", "/v1/label", "POST"), ("DELETE", "/v1/score", "POST"), ("POST", "/metrics", "GET, HEAD")]:
        status, h, body = server.request(method, path, headers=AUTH)
        check(status == 405 and h.get("Allow") == allow and body["type"] == "MethodNotAllowedError",
              f"405 for {method} {path}: {status} {h} {body}")
    malformed = [
        ("/v1/label", "not json", None), ("/v1/label", "[1, 2]", None), ("/v1/label", "[" * 100 + "]" * 100, None),
        ("/v1/label", {"items": []}, "query"), ("/v1/label", {"query": 1, "items": []}, "query"),
        ("/v1/label", {"query": "q"}, "items"), ("/v1/label", {"query": "q", "items": [1]}, "items[0]"),
        ("/v1/label", {"query": "q", "items": [{"id": 1}]}, "items[0].text"),
        ("/v1/label", {"query": "q", "items": ["a"], "mode": "fast"}, "mode"),
        ("/v1/label", {"query": "q", "items": ["a"], "threshold": 2}, "threshold"),
        ("/v1/label", {"query": "q", "items": ["a"], "timeout_ms": -1}, "timeout_ms"),
        ("/v1/label", {"query": "q", "items": ["a"], "timeout_ms": 1.5}, "timeout_ms"),
        ("/v1/score", {"query": [1, -2], "items": [[1]], "label_token_ids": [1]}, "query[1]"),
        ("/v1/score", {"query": "a", "items": [[1]], "label_token_ids": [1]}, "items[0]"),
        ("/v1/score", {"query": [1], "items": [[1, 99999]], "label_token_ids": [1]}, "items[0][1]"),
        ("/v1/score", {"query": [1], "items": [[]], "label_token_ids": [1]}, "items[0]"),
        ("/v1/score", {"query": "a", "items": ["b"]}, "label_token_ids"),
        ("/v1/score", {"query": "a", "items": ["b"], "label_token_ids": []}, "label_token_ids"),
        ("/v1/score", {"query": "a", "items": ["b"], "label_token_ids": [1], "apply_softmax": "yes"}, "apply_softmax"),
        ("/v1/rerank", {"query": "q", "documents": "x"}, "documents"),
        ("/v1/rerank", {"query": "q", "documents": ["x"], "top_n": 0}, "top_n"),
    ]
    for path, body, field in malformed:
        status, _, reply = server.post(path, body, headers=AUTH)
        check(status == 400 and reply["param"] == field and reply["error"]["param"] == field and reply["message"],
              f"400 naming {field} for {body if len(str(body)) < 200 else str(body)[:200]}: {status} {reply}")
    status, _, reply = server.post("/v1/label", b'{"query": "\xff\xfe", "items": ["a"]}', headers=AUTH)
    check(status == 400, f"invalid UTF-8: {status} {reply}")

# 5. SIGTERM: stop accepting, answer every request in flight (read by the server: held in the
# engine or queued behind it), exit 0. The grace period is set beyond what the four can take on
# a slow machine (under the sanitizers); serve_hostile.sh checks that it bounds the exit.
server = Server(sift, model, "--threads", "1", "--shutdown-grace-seconds", "600", gated=True)
results = []
threads = [threading.Thread(target=lambda: results.append(server.post("/v1/label", big(60)))) for _ in range(4)]
for t in threads: t.start()
wait_until(lambda: claimed(server) + server.metric("sift_queue_requests") == 4, "the requests never reached the engine")
server.proc.send_signal(signal.SIGTERM)
wait_until(lambda: "finishing in-flight requests" in server.read_log(), "the drain is not logged")
server.release(1 << 12)
code = server.stop(timeout=120)
for t in threads: t.join()
check(code == 0, f"exit code {code} after SIGTERM: {server.read_log()}")
check(len(results) == 4 and all(s == 200 and len(b["scores"]) == 60 for s, _, b in results),
      f"in-flight requests answered: {[s for s, _, _ in results]}")
try:
    socket.create_connection(("127.0.0.1", server.port), timeout=2).close()
    check(False, "the port still accepts connections after SIGTERM")
except OSError:
    pass
server.close()
PY
echo "serve_admission: ok"
