#!/usr/bin/env bash
# End to end: the real `sift review` on loopback without a key answers only the names it
# listens as (localhost, IP addresses, --host, --allowed-host) and only its own pages: a page
# that rebound its DNS name to this machine (Host: evil.example) reads no profile (421) and
# records no verdict; a page of another site (Origin) is refused (403). The page's own requests
# (review_client.py's, a browser's on http://127.0.0.1:PORT) go on; with --api-key-file the key
# is the guard.
# Usage: bash review_hosts.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$SRC" "$WORK" <<'PY'
import sys
from review_client import Review, check, export, make_store
sift, src, work = sys.argv[1:4]
store, profiles, _ = make_store(sift, src, work, n_profiles=3)

with Review(sift, store, work, "--reviewer", "ann", "--allowed-host", "review.example") as server:
    own = f"http://127.0.0.1:{server.port}"
    _, _, session = server.request("GET", "/api/session")
    token = session["csrf_token"]
    _, _, queue = server.request("GET", "/api/queue?limit=1")
    pair = queue["pairs"][0]
    verdict = {"member": pair["member"], "qualification": pair["qualification"], "verdict": "wrong",
               "label": pair["label"], "score": pair["score"], "threshold": pair["threshold"],
               "artifact_version": session["artifact_version"]}

    # 1. DNS rebinding: no page, no profile, no verdict under another site's name.
    for host in ("evil.example", f"evil.example:{server.port}"):
        for path in ("/", "/member?id=" + pair["member"], "/api/session", "/api/members", "/api/member?id=" + pair["member"]):
            status, _, body = server.request("GET", path, headers={"Host": host})
            check(status == 421 and "--allowed-host" in body["message"] and pair["member"] not in str(body),
                  f"Host {host} {path}: {status} {body}")
        status, _, body = server.request("POST", "/api/review", verdict, {"Host": host, "X-CSRF-Token": token})
        check(status == 421, f"Host {host}: a verdict: {status} {body}")
    # 2. A page of another site may not send requests, not even with the token.
    for origin in ("http://evil.example", "null"):
        status, _, body = server.request("POST", "/api/review", verdict, {"Origin": origin, "X-CSRF-Token": token})
        check(status == 403 and "Origin" in body["message"], f"Origin {origin}: {status} {body}")
        status, _, body = server.request("GET", "/api/session", headers={"Origin": origin})
        check(status == 403, f"Origin {origin}: the session: {status}")
    check(export(sift, store, "--reviewed") == [], "no verdict recorded from another site")

    # 3. The page's own requests, and the names it is allowed, go on.
    status, _, body = server.request("POST", "/api/review", verdict, {"Origin": own, "X-CSRF-Token": token})
    check(status == 200, f"a verdict from the page itself: {status} {body}")
    for host in ("localhost", f"localhost:{server.port}", "review.example", "[::1]"):
        status, _, body = server.request("GET", "/api/members", headers={"Host": host})
        check(status == 200 and body["total"] == 3, f"Host {host}: {status}")
check(len(export(sift, store, "--reviewed")) == 1, "the page's verdict recorded")

# 4. With a key, the key is the guard: any name, but only with the key.
with open(f"{work}/key", "w") as f:
    f.write("s3cret\n")
with Review(sift, store, work, "--api-key-file", f"{work}/key") as server:
    status, _, _ = server.request("GET", "/api/members", headers={"Host": "review.internal"})
    check(status == 401, f"a keyed review without the key: {status}")
    status, _, _ = server.request("GET", "/api/members", headers={"Host": "review.internal", "Authorization": "Bearer s3cret"})
    check(status == 200, f"a keyed review by any name, with the key: {status}")
print("review_hosts: ok")
PY
