#!/usr/bin/env bash
# End to end: the real `sift serve` holds at most --max-buffered-mb of request bodies, all
# connections together, under an address-space limit. Connections that announce large bodies
# (Content-Length) and send part of them take the budget; the next large body gets 503 with
# Retry-After before it is read, and a chunked body is refused at the chunk that passes it;
# /health and small requests are still answered; once those connections close, large bodies
# are read again. Sixty clients sending large bodies at once leave the server's peak memory
# near the budget, not near sixty bodies.
# Usage: bash serve_body_budget.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, resource, socket, subprocess, sys
from serve_client import Server, check, wait_until
from sift_build import sanitized
sift, work = sys.argv[1:3]
model = f"{work}/labeler"
MiB = 1 << 20
ROW = json.dumps({"query": "python dev", "items": ["python", "sql"]}).encode()
LARGE = ROW + b" " * (2 * MiB - 1 - len(ROW))  # valid JSON, just under --max-body-mb 2


def head(length, extra=b""):
    return (b"POST /v1/label HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" + extra +
            (b"Content-Length: %d\r\n\r\n" % length if length is not None else b"Transfer-Encoding: chunked\r\n\r\n"))


def answer(s):
    """The status and raw bytes of the response on `s` (read to its end)."""
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
            if b"\r\n\r\n" in out and b"Connection: close" not in out.split(b"\r\n\r\n")[0]:
                break
    except ConnectionResetError:
        pass
    return int(out.split()[1]) if out else 0, out


def large_post():
    """The status of a whole request with a 2 MiB body, on a connection of its own."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
        try:
            s.sendall(head(len(LARGE), b"Connection: close\r\n") + LARGE)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the body: the answer is waiting
        status, out = answer(s)
    return status, out


def address_space_kib(pid, field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


with Server(sift, model, "--threads", "1", "--http-threads", "2", "--max-body-mb", "2", "--max-buffered-mb", "7",
            "--body-timeout-seconds", "600") as server:
    check(large_post()[0] == 200, "a large body alone is read")
    # The budget bounds what the server can be made to hold: its address space now, plus the
    # budget, plus room for what any server allocates (thread arenas), far below 60 bodies.
    limit = (address_space_kib(server.proc.pid, "VmSize") << 10) + 7 * MiB + 96 * MiB
    if not sanitized(sift):  # AddressSanitizer reserves terabytes of address space
        resource.prlimit(server.proc.pid, resource.RLIMIT_AS, (limit, limit))

    # 1. Three connections announce 2 MiB each and send half: 6 of the 7 MiB are held.
    holders = []
    for _ in range(3):
        holders.append(socket.create_connection(("127.0.0.1", server.port), timeout=60))
        holders[-1].sendall(head(2 * MiB) + b" " * MiB)
    # The next large body does not fit: 503 with Retry-After, before its body is read.
    wait_until(lambda: large_post()[0] == 503, "a large body past --max-buffered-mb got no 503")
    status, out = large_post()
    check(status == 503 and b"Retry-After: 1" in out and b"--max-buffered-mb (7340032 bytes)" in out, f"{out[:400]}")
    # /health, /metrics and small requests go on.
    check(server.request("GET", "/health")[0] == 200, "/health while the budget is taken")
    status, _, reply = server.post("/v1/label", json.loads(ROW))
    check(status == 200 and len(reply["scores"]) == 2, f"a small request while the budget is taken: {status} {reply}")

    # 2. A chunked body takes its share chunk by chunk: 0.75 MiB fits, 0.5 MiB more does not.
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
        s.sendall(head(None) + b"%x\r\n" % (768 << 10) + b" " * (768 << 10) + b"\r\n")
        try:
            s.sendall(b"%x\r\n" % (512 << 10) + b" " * (512 << 10) + b"\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        status, out = answer(s)
        check(status == 503 and b"--max-buffered-mb" in out and b"Connection: close" in out, f"chunked: {out[:400]}")

    # 3. Once the holders close, their shares come back: large bodies are read again.
    for s in holders:
        s.close()
    wait_until(lambda: large_post()[0] == 200, "large bodies not read again after the holders closed")

    # 4. Sixty clients at once, each announcing 2 MiB and sending 1.5: while none of them ends,
    # 3 fit the budget and the other 57 are refused before their body is read; the server's
    # peak memory stays near the budget (sixty bodies would be 90 MiB).
    peak_before = address_space_kib(server.proc.pid, "VmHWM")
    refusals = lambda: server.metric('sift_requests_total{route="/v1/label",status="503"}') or 0
    refused_before = refusals()
    crowd = [socket.create_connection(("127.0.0.1", server.port), timeout=60) for _ in range(60)]
    for s in crowd:
        try:
            s.sendall(head(2 * MiB) + b" " * (3 * MiB // 2))
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused, and closed after a moment
    # Every head seen (57 refusals) before any of the 3 let in ends and gives its share back.
    wait_until(lambda: refusals() >= refused_before + 57, "57 of 60 large bodies past the budget not refused")
    for s in crowd:
        s.shutdown(socket.SHUT_WR)  # those let in see their body cut short, and close unanswered
    answers = [answer(s)[0] for s in crowd]
    check(answers.count(503) == 57 and answers.count(0) == 3, f"60 large bodies under a 7 MiB budget: {answers}")
    grown = address_space_kib(server.proc.pid, "VmHWM") - peak_before
    if not sanitized(sift):
        check(grown < 40 * 1024, f"peak RSS grew {grown} KiB with 60 large bodies under a 7 MiB budget")
    for s in crowd:
        s.close()
    wait_until(lambda: large_post()[0] == 200, "large bodies not read again after the crowd closed")
    check(server.request("GET", "/health")[0] == 200, "/health after all")

# A budget smaller than one body could never read that body: a usage error at start-up.
done = subprocess.run([sift, "serve", "--model", model, "--port", "0", "--max-body-mb", "8", "--max-buffered-mb", "4"],
                      capture_output=True, text=True, timeout=60)
check(done.returncode == 2 and "--max-buffered-mb 4 is less than --max-body-mb 8" in done.stderr,
      f"--max-buffered-mb below --max-body-mb: exit {done.returncode}: {done.stderr}")
print("serve_body_budget: ok")
PY
