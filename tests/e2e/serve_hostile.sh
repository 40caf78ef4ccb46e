#!/usr/bin/env bash
# End to end: the real `sift serve` against hostile and careless clients and operators, each case
# once reproduced against the server, now refused or survived:
#   a second server on a port in use (exit 1 naming the port, before the model is loaded);
#   100 connections trickling headers and bodies on 2 HTTP threads (/health and /v1/label still
#   answered); head and body deadlines and keep-alive close what trickles or idles; the connection
#   caps (--max-connections, --max-connections-per-address) refuse with 503 and close, and so,
#   out of file descriptors, does the accept itself;
#   the amplification body (800 items x 50,000 label ids: a 920 MB response) gets 413 at once,
#   with small RSS; 1,000,000 items get 413 before anything is tokenized; SIGTERM with trickling
#   clients exits 0 at once, and with a client that never reads its response within
#   --shutdown-grace-seconds; two pipelined requests in one write are both answered, in order;
#   Transfer-Encoding with Content-Length is refused and the connection closed; duplicate keys
#   are refused naming the key; integer ids come back exact (2^53 + 1, the 64-bit extremes), and
#   beyond 64 bits are refused; an API key file with two lines is a startup error naming the line.
# Usage: bash serve_hostile.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, socket, subprocess, sys, threading, time
from serve_client import Server, check, wait_until
from slow_clients import start_trickling, stop_trickling, connect, raise_fd_limit
sift, work = sys.argv[1:3]
model = f"{work}/labeler"
raise_fd_limit()
ROW = {"query": "python dev", "items": ["python", "sql"]}
LABEL_BODY = json.dumps(ROW).encode()

def raw(port, data, timeout=10):
    """Everything the server sends back on one connection after `data`, until it closes
    (or `timeout`): (bytes, closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
            return out, True
        except socket.timeout:
            return out, False

def post(path, body, extra=b""):
    return (f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n".encode()
            + extra + b"\r\n" + body)

def responses(data):
    """The (status, body) of each response in `data`, in order."""
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = next(int(l.split(b":")[1]) for l in lines if l.lower().startswith(b"content-length:"))
        out.append((int(lines[0].split()[1]), json.loads(rest[:length])))
        data = rest[length:]
    return out

def trickled_until_closed(port, head, piece, gap=0.1, give_up=60):
    """Sends `head`, then `piece` every `gap` seconds until the server closes the connection
    (or `give_up` seconds pass: a hang detector). Each gap is far inside the deadline under
    test, so only a deadline on the whole head or body closes it. (closed, bytes received)."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.settimeout(gap)
        s.sendall(head)
        out, until = b"", time.monotonic() + give_up
        while time.monotonic() < until:
            try:
                s.sendall(piece)
                chunk = s.recv(65536)
                if not chunk:
                    return True, out
                out += chunk
            except socket.timeout:
                continue
            except OSError:
                return True, out
        return False, out

def timed(fn):
    start = time.monotonic()
    result = fn()
    return result, time.monotonic() - start

# 1. A port in use: the second server exits 1 naming the port, before it loads a model (its
# --model does not exist; the port is what it names).
with Server(sift, model, "--threads", "1") as server:
    out = subprocess.run([sift, "serve", "--model", f"{work}/no-such-labeler", "--port", str(server.port)],
                         capture_output=True, text=True, timeout=60)
    check(out.returncode == 1 and f"cannot listen on 127.0.0.1:{server.port}: Address already in use" in out.stderr
          and "no-such-labeler" not in out.stderr, f"second server on the port: {out.returncode} {out.stderr}")
    check(server.request("GET", "/health")[0] == 200, "the first server still answers")

# 2. 100 trickling connections (headers and bodies) on 2 HTTP threads: /health and /v1/label
# are answered all the while (before: 64 threads, all held; /health timed out).
with Server(sift, model, "--threads", "1", "--http-threads", "2") as server:
    trickler = start_trickling(server.port, 100, interval=0.5)
    time.sleep(1.5)  # every trickler has sent a few pieces
    conn = server.connection(timeout=10)
    for _ in range(20):
        check(server.request("GET", "/health", conn=conn)[0] == 200, "/health while 100 connections trickle")
        status, _, body = server.post("/v1/label", ROW, conn=conn)
        check(status == 200 and len(body["scores"]) == 2, f"/v1/label while 100 connections trickle: {status}")
    check(server.metric("sift_connections") >= 100, f"the tricklers are connected: {server.metric('sift_connections')}")
    counts = stop_trickling(trickler)
    check(counts["closed_by_server"] == 0, f"no deadline passed yet: {counts}")

# 3. Deadlines and keep-alive: what trickles or idles is closed, counted by phase.
with Server(sift, model, "--threads", "1", "--head-timeout-seconds", "0.5", "--body-timeout-seconds", "0.5",
            "--keep-alive-seconds", "0.5") as server:
    closed, out = trickled_until_closed(server.port, b"GET /health HTTP/1.1\r\n", b"X-A: b\r\n")
    check(closed and out == b"", f"a head trickled a line at a time past --head-timeout-seconds is closed: {out[:80]}")
    closed, out = trickled_until_closed(server.port, post("/v1/label", b"x" * 100000)[:-100000], b"x")
    check(closed and out == b"", f"a body trickled a byte at a time past --body-timeout-seconds is closed: {out[:80]}")
    out, closed = raw(server.port, post("/v1/label", LABEL_BODY)[:-5], timeout=10)  # a body that stops short
    check(closed and out == b"", f"a body past --body-timeout-seconds: closed, no answer: {out[:80]}")
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:  # idle after a request
        s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        data = b""
        while b"}" not in data:
            data += s.recv(65536)
        check(data.startswith(b"HTTP/1.1 200") and s.recv(65536) == b"",  # a hang detector: 60 s, not 0.5
              "an idle connection is closed after --keep-alive-seconds")
    check(server.metric('sift_connections_timed_out_total{phase="head"}') >= 1, "head timeouts counted")
    check(server.metric('sift_connections_timed_out_total{phase="body"}') == 2, "body timeouts counted")

# 4. Connection caps: past --max-connections-per-address from one address, past --max-connections
# in all, a new connection gets 503 (JSON, Retry-After) and is closed; the others still work.
with Server(sift, model, "--threads", "1", "--max-connections", "6", "--max-connections-per-address", "3") as server:
    held = [connect(server.port, "127.0.0.2") for _ in range(3)]
    time.sleep(0.2)
    with socket.create_connection(("127.0.0.1", server.port), source_address=("127.0.0.2", 0), timeout=10) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    (status, body), = responses(out)
    check(status == 503 and "--max-connections-per-address 3" in body["message"] and b"Retry-After: 1" in out,
          f"per-address cap: {out[:300]}")
    held += [connect(server.port, "127.0.0.3") for _ in range(3)]  # 6 in all
    time.sleep(0.2)
    out, closed = raw(server.port, b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
    check(closed and responses(out)[0][0] == 503 and "--max-connections 6" in responses(out)[0][1]["message"],
          f"global cap: {out[:300]}")
    for s in held: s.close()
    deadline = time.time() + 10
    while server.request("GET", "/health")[0] != 200:  # 503 until the server has seen them close
        check(time.time() < deadline, "room again once they close")
        time.sleep(0.05)
    check(server.metric('sift_connections_refused_total{reason="per-address"}') == 1
          and server.metric('sift_connections_refused_total{reason="max-connections"}') >= 1, "refusals counted")

# 5. Amplification: 800 items x 50,000 label ids (a 103 KB body, once a 920 MB response and
# 2.8 GB of RSS) gets 413 naming --max-scores, at once; so does a response over --max-response-mb.
# 1,000,000 items get 413 naming --max-items before anything is tokenized: their token ids are
# out of the vocabulary (a 400 once they are looked at), and the answer is the 413.
with Server(sift, model, "--threads", "1", "--max-body-mb", "16") as server:
    rss_before = server.rss_kib()
    amplify = {"query": [1], "items": [[1]] * 800, "label_token_ids": [1] * 50000}
    status, _, body = server.post("/v1/score", amplify)
    check(status == 413 and body["param"] == "label_token_ids" and "more than --max-scores 1000000" in body["message"],
          f"amplification: {status} {body}")
    server.check_rss_growth(rss_before, 64 * 1024, "on the amplification body")
    million = {"query": [1], "items": [[99999]] * 1_000_000, "label_token_ids": [1]}
    status, _, body = server.post("/v1/score", million)
    check(status == 413 and body["param"] == "items" and "more than --max-items 10000 items" in body["message"],
          f"a million items: {status} {body}")
    status, _, body = server.post("/v1/label", {"query": "q", "items": ["a"] * 1_000_000})
    check(status == 413 and "--max-items" in body["message"], f"a million label items: {status} {body}")
    check(server.metric("sift_prefill_tokens_total") == 0, "nothing was computed")
with Server(sift, model, "--threads", "1", "--max-response-mb", "0.01") as server:
    status, _, body = server.post("/v1/score", {"query": [1], "items": [[1]] * 10, "label_token_ids": [1] * 40})
    check(status == 413 and "up to 10532 bytes, more than --max-response-mb (10485 bytes)" in body["message"], f"response size: {status} {body}")
    check(server.post("/v1/score", {"query": [1], "items": [[1]] * 10, "label_token_ids": [1] * 30})[0] == 200, "within it")
with Server(sift, model, "--threads", "1", "--max-items", "3", "--max-scores", "5") as server:
    check(server.post("/v1/label", {"query": "q", "items": ["a"] * 3})[0] == 200, "at --max-items")
    status, _, body = server.post("/v1/rerank", {"query": "q", "documents": ["a"] * 4})
    check(status == 413 and body["param"] == "documents" and "--max-items 3" in body["message"], f"rerank: {body}")
    check(server.post("/v1/score", {"query": [1], "items": [[1]], "label_token_ids": [1] * 5})[0] == 200, "at --max-scores")
    check(server.post("/v1/score", {"query": [1], "items": [[1], [2]], "label_token_ids": [1] * 3})[0] == 413, "past it")

# 6. Pipelining: two (and three) requests in one write are all answered, in order.
with Server(sift, model, "--threads", "1") as server:
    other = {"query": "nurse", "items": ["care", "welding", "sql"]}
    one_write = post("/v1/label", LABEL_BODY) + b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n" + post("/v1/label", json.dumps(other).encode(), b"Connection: close\r\n")
    out, closed = raw(server.port, one_write)
    got = responses(out)
    check(closed and [s for s, _ in got] == [200, 200, 200] and len(got[0][1]["scores"]) == 2
          and got[1][1] == {"status": "ok"} and len(got[2][1]["scores"]) == 3, f"pipelined: {got}")

# 7. Framing: Transfer-Encoding with Content-Length (either order), or a coding other than a final
# chunked, is refused and the connection closed: nothing after it is read as a request.
    smuggled = b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n"
    for head in (b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
                 b"Transfer-Encoding: chunked, identity\r\n", b"Transfer-Encoding: identity\r\nContent-Length: 5\r\n"):
        out, closed = raw(server.port, b"POST /v1/label HTTP/1.1\r\nHost: localhost\r\n" + head + b"\r\n0\r\n\r\n" + smuggled)
        got = responses(out)
        check(closed and len(got) == 1 and got[0][0] == 400 and b"Connection: close" in out, f"{head}: {out[:300]}")
    chunked = b"POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + \
              b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (LABEL_BODY[:7], LABEL_BODY[7:])) + b"0\r\n\r\n"
    out, _ = raw(server.port, chunked, timeout=2)
    check(responses(out)[0][0] == 200, f"a chunked body alone is read: {out[:200]}")

# 8. Duplicate keys are refused naming the key; integer ids come back exactly as sent.
    for body, field in ((b'{"query": "a", "items": ["x"], "query": "b"}', "query"),
                        (b'{"query": "a", "items": [{"text": "x", "id": 1, "text": "y"}]}', "items[0].text")):
        status, _, reply = server.post("/v1/label", body)
        check(status == 400 and reply["param"] == field and f'the key "{field.split(".")[-1]}" appears twice' in reply["message"],
              f"duplicate key: {status} {reply}")
    ids = [2**53 + 1, 2**64 - 1, -(2**63), 7, "q7", 0.5]
    body = b'{"query": "q", "items": [' + b", ".join(b'{"id": %s, "text": "a"}' % json.dumps(i).encode() for i in ids) + b"]}"
    raw_answer, _ = raw(server.port, post("/v1/label", body, b"Connection: close\r\n"))
    check(raw_answer.startswith(b"HTTP/1.1 200") and b'"item_ids":[9007199254740993,18446744073709551615,-9223372036854775808,7,"q7",0.5]' in raw_answer,
          f"ids echoed exactly: {raw_answer}")
    status, _, reply = server.post("/v1/label", b'{"query": "q", "items": [{"id": 99999999999999999999, "text": "a"}]}')
    check(status == 400 and reply["param"] == "items[0].id" and "does not fit 64 bits" in reply["message"], f"{reply}")

# 9. A request too long for a forward call names the serve flag that sets the limit.
with Server(sift, model, "--threads", "1", "--max-batch-tokens", "100") as server:
    status, _, body = server.post("/v1/label", {"query": "word " * 200, "items": ["a"]})
    check(status == 400 and "(--max-batch-tokens)" in body["message"] and "--max-request-tokens" not in body["message"],
          f"request limit: {body}")

# 10. SIGTERM while clients trickle: incomplete requests are dropped, the server exits 0 at once,
# not at the end of its (here 600 s) grace period: stop() gives up after 60 s.
server = Server(sift, model, "--threads", "1", "--shutdown-grace-seconds", "600")
trickler = start_trickling(server.port, 50, interval=0.2)
wait_until(lambda: server.metric("sift_connections") >= 50, "the tricklers are connected")
code = server.stop(timeout=60)
stop_trickling(trickler)
check(code == 0, f"SIGTERM with trickling clients: exit {code}: {server.read_log()}")
server.close()

# 11. SIGTERM while a client never reads its (large) response: exit 0 once
# --shutdown-grace-seconds pass, whatever the client does.
server = Server(sift, model, "--threads", "1", "--shutdown-grace-seconds", "1", "--max-response-mb", "256",
                "--max-scores", "10000000")
stuck = socket.create_connection(("127.0.0.1", server.port))
stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
big = json.dumps({"query": [1], "items": [[1]] * 2000, "label_token_ids": list(range(500))}).encode()
stuck.sendall(post("/v1/score", big))
deadline = time.time() + 60
while (server.metric('sift_requests_total{route="/v1/score",status="200"}') or 0) < 1:
    check(time.time() < deadline, "the large response was never sent")
    time.sleep(0.05)
code, seconds = timed(lambda: server.stop(timeout=60))
stuck.close()
check(code == 0 and seconds >= 0.9, f"SIGTERM with a client that never reads: exit {code} after {seconds:.1f} s "
      "(the response in flight is given the grace period, and no more: stop() gives up after 60 s)")
server.close()

# 12. Out of file descriptors: with a hard limit of 96, --max-connections is lowered to what fits
# (said at startup), and a flood of 300 connections that never read is refused with 503s and
# closes (some at the accept itself, by the spare descriptor, when refusals in progress hold the
# rest); the server stays up and answers once they are gone.
import resource
with Server(sift, model, "--threads", "1", "--max-connections-per-address", "1000",
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (96, 96))) as server:
    check("--max-connections 10000 lowered to 32 (the open-file limit)" in server.read_log(), server.read_log())
    flood = []
    for _ in range(300):
        try:
            flood.append(connect(server.port, "127.0.0.4"))
            flood[-1].sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        except OSError:
            break
    time.sleep(0.5)
    check(server.proc.poll() is None, "the server survives the flood")
    for s in flood: s.close()
    deadline = time.time() + 10
    while server.request("GET", "/health")[0] != 200:
        check(time.time() < deadline, "answers again after the flood")
        time.sleep(0.1)
    by_cap = server.metric('sift_connections_refused_total{reason="max-connections"}')
    by_fd_limit = server.metric('sift_connections_refused_total{reason="fd-limit"}')
    check(by_cap > 0 and by_fd_limit > 0, f"refused by the cap ({by_cap}) and at the descriptor limit ({by_fd_limit})")

# 13. An API key file with two lines: a startup error naming the file and the line.
with open(f"{work}/two-keys", "w") as f:
    f.write("first-key\nsecond-key\n")
out = subprocess.run([sift, "serve", "--model", model, "--port", "0", "--api-key-file", f"{work}/two-keys"],
                     capture_output=True, text=True, timeout=60)
check(out.returncode == 1 and f"{work}/two-keys:2: a second line with text" in out.stderr, f"two keys: {out.stderr}")
PY
echo "serve_hostile: ok"
