#!/usr/bin/env bash
# End to end: `sift review` over a PostgreSQL label store (a real server started here on a
# private socket, tests/e2e/lib/postgres_server.sh) answers as over the SQLite store the same
# `sift label` run wrote: members by id and by uncertainty, one member, flip counts, the queue;
# verdicts land in PostgreSQL and come out of `sift labels export --reviewed`, and one on a
# judgment `sift label` changed since it was shown is refused (409); read-only without
# --reviewer. Exits 77 (skipped) only where no server binary is installed.
# Usage: bash review_postgres.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
source "$SRC/tests/e2e/lib/postgres_for_test.sh"
start_postgres review_postgres
psql -q "$URI" -c "CREATE DATABASE labels" >/dev/null

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$SRC" "$WORK" "$URI" <<'PY'
import json, sys, urllib.parse
from review_client import Review, check, export, flipping_threshold, make_store, relabel, verdict
sift, src, work, uri = sys.argv[1:5]
pg_store = uri.replace("/postgres?", "/labels?")
sqlite_store, profiles, reference = make_store(sift, src, work)
version = json.load(open(f"{src}/models/default-labeler/sift.json"))["version"]
make_store(sift, src, work, store=pg_store)
without_run = lambda rows: [{k: v for k, v in r.items() if k not in ("run_id", "labeled_at")} for r in rows]
check(without_run(export(sift, pg_store)) == without_run(export(sift, sqlite_store)), "the same judgments in both")

routes = ["/api/members?limit=500", "/api/members?order=uncertainty&limit=5&offset=2", "/api/members?id=m0000",
          "/api/members?text=" + urllib.parse.quote("window.__pwned"), "/api/flips?threshold=0.3",
          "/api/flips?threshold=0.7", "/api/queue?limit=7",
          "/api/member?id=" + urllib.parse.quote(list(profiles)[2])]
def strip(body):  # what differs between two runs: when and in which run
    if isinstance(body, dict):
        return {k: strip(v) for k, v in body.items() if k not in ("labeled_at", "run_id", "reviewed_at")}
    if isinstance(body, list):
        return [strip(v) for v in body]
    return body
answers = {}
for store in (sqlite_store, pg_store):
    with Review(sift, store, work, "--reviewer", "ann") as server:
        for path in routes:
            status, _, body = server.request("GET", path)
            check(status == 200, f"{store} {path}: {status} {body}")
            answers.setdefault(path, []).append(strip(body))
        _, _, session = server.request("GET", "/api/session")
        queue = server.request("GET", "/api/queue?limit=2")[2]["pairs"]
        for pair, word in zip(queue, ("wrong", "right")):
            status, _, body = server.request("POST", "/api/review", verdict(pair, word, version),
                                             {"X-CSRF-Token": session["csrf_token"]})
            check(status == 200, f"{store}: verdict: {status} {body}")
for path, (on_sqlite, on_postgres) in answers.items():
    check(on_sqlite == on_postgres, f"{path}: SQLite and PostgreSQL answer differently:\n{on_sqlite}\n{on_postgres}")
check(export(sift, pg_store, "--reviewed") == export(sift, sqlite_store, "--reviewed") and
      len(export(sift, pg_store, "--reviewed")) >= 1, "the same training rows from both")
with Review(sift, pg_store, work) as server:
    _, _, session = server.request("GET", "/api/session")
    status, _, body = server.request("POST", "/api/review", verdict(queue[0], "right", version),
                                     {"X-CSRF-Token": session["csrf_token"]})
    check(status == 403 and session["reviewer"] is None, f"read-only: {status} {body}")

# A re-label with another threshold between showing a judgment and the verdict: 409, the
# current judgment, nothing recorded.
reviewed = export(sift, pg_store, "--reviewed")
with Review(sift, pg_store, work, "--reviewer", "bob") as server:
    _, _, session = server.request("GET", "/api/session")
    member = list(profiles)[3]
    shown = server.request("GET", "/api/member?id=" + urllib.parse.quote(member))[2]
    pair = dict(next(j for j in shown["judgments"] if j["round"] == 1), member=member, threshold=shown["threshold"])
    relabel(sift, src, work, pg_store, member, profiles, flipping_threshold(pair["score"], pair["label"]))
    status, _, body = server.request("POST", "/api/review", verdict(pair, "right", version),
                                     {"X-CSRF-Token": session["csrf_token"]})
    check(status == 409 and body["current"]["label"] == (not pair["label"]), f"a changed judgment: {status} {body}")
check(export(sift, pg_store, "--reviewed") == reviewed, "no verdict recorded on the changed judgment")
print("review_postgres: ok")
PY
