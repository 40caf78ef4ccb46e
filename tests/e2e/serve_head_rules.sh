#!/usr/bin/env bash
# End to end: what a request's head may say to the real `sift serve` on loopback. Without an
# API key it answers only the names it listens as (localhost, IP addresses, --host,
# --allowed-host): a Host of another site's DNS (a page that rebound its name to this machine)
# gets 421, an Origin of another site 403; with a key the key is the guard. A JSON route takes
# application/json only: text/plain, a form, or no type (what any page can make a browser send
# without asking) get 415. A target in absolute form is routed by its path, its authority taken
# as the Host. A field folded onto a second line (obs-fold) and Transfer-Encoding in HTTP/1.0 are
# refused and the connection closed, so nothing after them is read as a request. An error
# message quotes a client's value cut short. An API key file no client could use (a BOM, a
# NUL) stops the start naming the file and the byte; an --allowed-host with a port is a usage
# error.
# Usage: bash serve_head_rules.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, socket, subprocess, sys
from serve_client import Server, check
sift, work = sys.argv[1:3]
model = f"{work}/labeler"
ROW = {"query": "python dev", "items": ["python", "sql"]}
JSON = {"Content-Type": "application/json"}


def raw(port, data, half_close=True):
    """Every byte the server sends back to `data` before it closes the connection (`data` ends
    with "Connection: close", or is sent half-closed: then a request that goes to the model
    is dropped, 499)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def statuses(out):
    return [int(line.split()[1]) for line in out.split(b"\r\n") if line.startswith(b"HTTP/1.")]


with Server(sift, model, "--threads", "1", "--allowed-host", "sift.example", "--allowed-host", "Other.Example") as server:
    port = server.port
    # 1. DNS rebinding: the request names another site's host. Every route refuses it, /health too.
    for host in ("evil.example", f"evil.example:{port}", "localhost.evil.example", f"127.0.0.1.evil.example:{port}"):
        for method, path, body in (("GET", "/health", None), ("GET", "/v1/models", None), ("POST", "/v1/label", ROW)):
            status, _, reply = server.request(method, path, body, headers={"Host": host})
            check(status == 421 and "--allowed-host" in reply["message"], f"Host {host} {path}: {status} {reply}")
    for host in ("localhost", f"LOCALHOST:{port}", f"127.0.0.1:{port}", "[::1]", "10.0.0.7:8000", "sift.example",
                 f"other.example:{port}"):
        status, _, reply = server.request("POST", "/v1/label", ROW, headers={"Host": host})
        check(status == 200 and len(reply["scores"]) == 2, f"Host {host}: {status} {reply}")

    # 2. A page of another site (or none) may not send requests; the server's own pages may.
    for origin in ("http://evil.example", f"http://evil.example:{port}", "null", "http://10.9.9.9"):
        for method, path, body in (("GET", "/v1/models", None), ("POST", "/v1/label", ROW)):
            status, _, reply = server.request(method, path, body, headers={"Origin": origin})
            check(status == 403 and "Origin" in reply["message"], f"Origin {origin} {path}: {status} {reply}")
    for origin in (f"http://127.0.0.1:{port}", "https://sift.example"):
        status, _, _ = server.request("POST", "/v1/label", ROW, headers={"Origin": origin})
        check(status == 200, f"Origin {origin}: {status}")

    # 3. A JSON route takes application/json; what a browser sends cross-site without a preflight is 415.
    body = json.dumps(ROW)
    for content_type in ("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                         "multipart/form-data; boundary=x", "application/jsonx"):
        status, _, reply = server.request("POST", "/v1/label", body, headers={"Content-Type": content_type})
        check(status == 415 and "Content-Type: application/json" in reply["message"], f"{content_type}: {status} {reply}")
    for route in ("/v1/label", "/v1/score", "/v1/rerank"):
        out = raw(port, f"POST {route} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body.encode())
        check(statuses(out) == [415] and b"got none" in out, f"{route} with no Content-Type: {out[:300]}")
    status, _, _ = server.request("POST", "/v1/label", body, headers={"Content-Type": "application/json; charset=utf-8"})
    check(status == 200, f"application/json with a charset: {status}")

    # 4. An absolute-form target is routed by its path; its authority is the Host checked.
    out = raw(port, f"POST http://127.0.0.1:{port}/v1/label HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body.encode(), half_close=False)
    check(statuses(out) == [200] and b'"scores"' in out, f"absolute form: {out[:300]}")
    out = raw(port, b"GET http://evil.example/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    check(statuses(out) == [421], f"absolute form naming another host: {out[:300]}")

    # 5. Framing: obs-fold and HTTP/1.0 chunked are refused and the connection closed; what follows is never read.
    smuggled = b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n"
    for head in (b"POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding:\r\n chunked\r\n",
                 b"POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: identity,\r\n\tchunked\r\n",
                 b"POST /v1/label HTTP/1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"):
        out = raw(port, head + b"\r\n0\r\n\r\n" + smuggled)  # read to the close: one answer, the smuggled one unread
        check(statuses(out) == [400] and b"RFC 9112" in out, f"{head}: {out[:400]}")

    # 6. A client's value in an error message is cut: a megabyte model name, a long path.
    status, _, reply = server.post("/v1/label", {**ROW, "model": "m" * 1_000_000})
    check(status == 404 and len(json.dumps(reply)) < 2000 and "(1000000 bytes)" in reply["message"], f"model: {status} {len(json.dumps(reply))}")
    status, _, reply = server.request("GET", "/" + "p" * 8000)
    check(status == 404 and len(json.dumps(reply)) < 2000 and "(8001 bytes)" in reply["message"], f"path: {status} {len(json.dumps(reply))}")

# 7. With a key, the key is the guard: any Host, but only with the key.
with open(f"{work}/key", "w") as f:
    f.write("s3cret\n")
with Server(sift, model, "--threads", "1", "--api-key-file", f"{work}/key") as server:
    status, _, _ = server.request("GET", "/v1/models", headers={"Host": "sift.internal:8000"})
    check(status == 401, f"a keyed server without the key: {status}")
    status, _, _ = server.request("GET", "/v1/models", headers={"Host": "sift.internal:8000", "Authorization": "Bearer s3cret"})
    check(status == 200, f"a keyed server by any name, with the key: {status}")

# 8. Start-up: a key file no client could send, and an --allowed-host that is not a name, stop it at once.
for name, text, expect in (("bom", b"\xef\xbb\xbfs3cret\n", ": byte 1: a UTF-8 byte-order mark"),
                           ("nul", b"s3\x00cret\n", ":1: byte 3 (0x00) is a NUL")):
    path = f"{work}/{name}.key"
    with open(path, "wb") as f:
        f.write(text)
    done = subprocess.run([sift, "serve", "--model", model, "--port", "0", "--api-key-file", path],
                          capture_output=True, text=True, timeout=60)
    check(done.returncode == 1 and f"{path}{expect}" in done.stderr,
          f"--api-key-file {name}: exit {done.returncode}: {done.stderr}")
done = subprocess.run([sift, "serve", "--model", model, "--port", "0", "--allowed-host", "sift.example:8000"],
                      capture_output=True, text=True, timeout=60)
check(done.returncode == 2 and "--allowed-host" in done.stderr and "without a port" in done.stderr,
      f"--allowed-host with a port: exit {done.returncode}: {done.stderr}")
print("serve_head_rules: ok")
PY
