#!/usr/bin/env bash
# End to end: `sift review` on a store made by the real `sift label` with the bundled labeler
# (tests/e2e/lib/review_client.py): every route refused without the key, the login cookie;
# members paged, searched and sorted by uncertainty as the store's rows say; one member as
# `sift labels get` has it (a hostile profile text comes back as it was); flip counts and the
# review queue computed independently from `sift labels export`; verdicts behind the CSRF
# token, in the store and in `sift labels export --reviewed`, which `sift calibrate` (and
# `sift train`, where built) read; the judgments never change; hostile parameters and bodies
# get 4xx naming what is wrong; read-only without --reviewer; a store of the first schema
# version reads as it is and upgrades in place; a verdict on a judgment that `sift label`
# changed since the page showed it is refused (409) and exports nothing; while another
# process holds the SQLite store's write lock, a verdict waits for it, the pages answer
# meanwhile, and the verdict gets 503 with Retry-After; each login has its own session token,
# and ten wrong keys in a row block every key (429).
# Usage: bash review_api.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$SRC" "$WORK" <<'PY'
import json, os, sqlite3, subprocess, sys, threading, urllib.parse
import review_client
from review_client import HOSTILE, Review, check, export, flipping_threshold, make_store, relabel, run
sift, src, work = sys.argv[1:4]
labeler = f"{src}/models/default-labeler"
store, profiles, reference = make_store(sift, src, work)
judged = export(sift, store)
threshold = json.load(open(f"{labeler}/sift.json"))["threshold"]
version = json.load(open(f"{labeler}/sift.json"))["version"]
verdict = lambda pair, word: review_client.verdict(pair, word, version)
check(len(judged) > 50 and {r["threshold"] for r in judged} == {threshold}, "the store holds the labeler's judgments")
with open(f"{work}/key", "w") as f:
    f.write("s3cret-key\n")
q = urllib.parse.quote

with Review(sift, store, work, "--reviewer", "ann", "--api-key-file", f"{work}/key", "--reference", reference,
            "--model", labeler) as server:
    # 1. Without the key every route is refused (a page shows the login form), with a wrong one too.
    routes = [("GET", "/"), ("GET", "/member?id=x"), ("GET", "/calibration"), ("GET", "/assets/common.js"),
              ("GET", "/assets/review.css"), ("GET", "/api/session"), ("GET", "/api/members"),
              ("GET", "/api/member?id=x"), ("GET", "/api/flips?threshold=0.5"), ("GET", "/api/queue"),
              ("GET", "/api/calibration"), ("POST", "/api/review"), ("GET", "/nowhere"), ("HEAD", "/")]
    for i, (method, path) in enumerate(routes):
        # A wrong key counts as a failed login (13.): a few, not enough to be blocked.
        wrong_key = [{"Authorization": "Bearer wrong"}] if i < 4 else []
        for headers in [{}, {"Cookie": "sift_review=0123"}] + wrong_key:
            status, _, body = server.request(method, path, b"{}" if method == "POST" else None, headers)
            check(status == 401, f"{method} {path} {headers}: {status} without the key")
    status, _, page = server.request("GET", "/")
    check("name=\"key\"" in page, "a page refused shows the login form")
    status, _, _ = server.request("POST", "/login", "key=wrong", {"Content-Type": "application/x-www-form-urlencoded"})
    check(status == 401, f"a wrong key logs in: {status}")
    status, headers, _ = server.request("POST", "/login", "key=s3cret-key",
                                        {"Content-Type": "application/x-www-form-urlencoded"})
    check(status == 303 and headers.get("location") == "/", f"login: {status} {headers}")
    cookie = headers["set-cookie"].split(";")[0]
    check("HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"], headers["set-cookie"])
    check("s3cret" not in cookie, "the cookie is not the key")
    auth = {"Cookie": cookie}
    bearer = {"Authorization": "Bearer s3cret-key"}

    def get(path, headers=auth):
        status, _, body = server.request("GET", path, None, headers)
        check(status == 200, f"GET {path}: {status} {body}")
        return body

    for method, path in routes[:5]:
        status, headers, _ = server.request(method, path, None, auth)
        check(status == 200 and "default-src 'self'" in headers["content-security-policy"], f"{path}: {status}")
    session = get("/api/session", bearer)
    check(session["members"] == len(profiles) and session["pairs"] == len(judged), f"session: {session}")
    check(session["reviewer"] == "ann" and session["threshold"] == threshold and session["reference"], session)
    csrf = session["csrf_token"]

    # 2. Members: pages of 5 cover every member once, by id; by uncertainty the margins are
    # min |score - threshold| from the export, non-decreasing.
    by_member = {}
    for r in judged:
        by_member.setdefault(r["member"], []).append(r)
    seen = []
    for offset in range(0, 15, 5):
        page = get(f"/api/members?limit=5&offset={offset}")
        check(page["total"] == len(profiles), f"total {page['total']}")
        seen += [m["member"] for m in page["members"]]
    check(seen == sorted(profiles), f"pages by id: {seen}")
    page = get("/api/members?order=uncertainty&limit=500")
    margins = [m["margin"] for m in page["members"]]
    check(margins == sorted(margins), "most uncertain first")
    for m in page["members"]:
        rows = by_member[m["member"]]
        check(abs(m["margin"] - min(abs(r["score"] - threshold) for r in rows)) < 1e-12, f"{m['member']} margin")
        check(m["judged"] == len(rows) and m["accepted"] == sum(r["label"] for r in rows), f"{m['member']} counts")
        check(m["rounds"] == max(r["round"] for r in rows), f"{m['member']} rounds")
    reference_rows = {json.loads(l)["id"]: json.loads(l) for l in open(reference)}
    for m in page["members"]:  # disagreements: stored label vs the reference, by qualification id
        ref = reference_rows[m["member"]]
        ref_label = {item["id"]: label for item, label in zip(ref["items"], ref["labels"])}
        expected = sum(1 for r in by_member[m["member"]]
                       if r["qualification"] in ref_label and bool(ref_label[r["qualification"]]) != r["label"])
        check(m["disagreements"] == expected, f"{m['member']}: {m['disagreements']} disagreements, not {expected}")
    hostile_member = list(profiles)[2]
    found = get("/api/members?text=" + q("window.__pwned = 1"))
    check([m["member"] for m in found["members"]] == [hostile_member], f"search a profile text: {found}")
    for prefix in ("m", "m0", list(profiles)[5][:-1], list(profiles)[5]):
        found = get("/api/members?limit=500&id=" + q(prefix))
        check([m["member"] for m in found["members"]] == sorted(p for p in profiles if p.startswith(prefix)),
              f"ids starting with {prefix}: {found}")
    check(get("/api/members?id=" + q(list(profiles)[5][1:]))["total"] == 0, "an id prefix, not a substring")
    check(get("/api/members?text=" + q("no such text anywhere"))["total"] == 0, "a search matching nothing")
    word = "Python"
    found = get("/api/members?order=uncertainty&limit=500&text=" + word)
    check(sorted(m["member"] for m in found["members"]) == sorted(p for p, t in profiles.items() if word in t)
          and found["total"] == len(found["members"]), f"profiles containing {word}")

    # 3. One member as `sift labels get` has it; its profile as given.
    m = get("/api/member?id=" + q(hostile_member))
    stored, _ = run(sift, "labels", "get", "--store", store, "--member", hostile_member)
    stored = json.loads(stored)
    check(m["profile"] == profiles[hostile_member] and m["profile"].startswith(HOSTILE), "the profile text as given")
    check(stored["profile"] == profiles[hostile_member], "sift labels get shows the profile")
    check([(j["qualification"], j["score"], j["label"]) for j in m["judgments"]] ==
          [(j["qualification"], j["score"], j["label"]) for j in stored["judgments"]], "judgments as stored")
    check(all(j["reference"] is None or isinstance(j["reference"], bool) for j in m["judgments"]), "reference")

    # 4. Flip counts at other thresholds, counted from the export.
    for t in (0.0, 0.1, 0.3, threshold, 0.6, 0.9, 1.0):
        f = get(f"/api/flips?threshold={t}")
        to_yes = sum(1 for r in judged if not r["label"] and r["score"] >= t)
        to_no = sum(1 for r in judged if r["label"] and r["score"] < t)
        check((f["to_yes"], f["to_no"], f["pairs"]) == (to_yes, to_no, len(judged)), f"flips at {t}: {f}")

    # 5. The queue: the unreviewed pairs nearest the threshold first.
    queue = get("/api/queue?limit=5")["pairs"]
    expected = sorted(judged, key=lambda r: abs(r["score"] - r["threshold"]))[:5]
    check([(p["member"], p["qualification"]) for p in queue] == [(r["member"], r["qualification"]) for r in expected],
          f"queue: {queue}")

    # 6. Verdicts: behind the CSRF token; into the store; never changing the judgments.
    def post(body, token=csrf, headers=auth):
        h = dict(headers)
        if token is not None:
            h["X-CSRF-Token"] = token
        return server.request("POST", "/api/review", body, h)
    first, second = queue[0], queue[1]
    status, _, body = post(verdict(first, "wrong"), None)
    check(status == 403 and "CSRF" in body["message"], f"no CSRF token: {status} {body}")
    status, _, body = post(verdict(first, "wrong"), "0" * 64)
    check(status == 403, f"a wrong CSRF token: {status}")
    for kind in ("text/plain", "application/x-www-form-urlencoded"):  # what a foreign page can send unasked
        status, _, body = post(json.dumps(verdict(first, "wrong")), headers=dict(auth, **{"Content-Type": kind}))
        check(status == 415, f"a verdict sent as {kind}: {status} {body}")
    without = lambda field: {k: v for k, v in verdict(first, "wrong").items() if k != field}
    hostile_bodies = [
        ("not json", 400, ""), ("[1]", 400, ""), ('{"member": "a", "member": "b"}', 400, "twice"),
        ({"member": first["member"], "qualification": first["qualification"]}, 400, "verdict"),
        ({"member": first["member"], "qualification": first["qualification"], "verdict": "maybe"}, 400, "verdict"),
        ({"member": 7, "qualification": "q", "verdict": "right"}, 400, "member"),
        (dict(verdict(first, "right"), qualification="q-none"), 404, "q-none"),
        # An older page, which sends no judgment it showed, is told which field is missing.
        (without("label"), 400, '"label" is required'), (without("score"), 400, '"score" is required'),
        (without("threshold"), 400, '"threshold" is required'),
        (without("artifact_version"), 400, '"artifact_version" is required'),
        (dict(verdict(first, "right"), label="yes"), 400, "label"), (dict(verdict(first, "right"), score=2), 400, "score"),
        (dict(verdict(first, "right"), threshold="0.5"), 400, "threshold"),
        (dict(verdict(first, "right"), artifact_version=""), 400, "artifact_version"),
        ({"member": "x" * 2000, "qualification": "q", "verdict": "right"}, 400, "member"),
        ({"member": "a", "qualification": "b", "verdict": "right", "extra": 1}, 400, "extra"),
        ("[" * 10000, 400, "nested"), ("x" * 70000, 413, "body"),
    ]
    for body, want, word in hostile_bodies:
        status, _, answer = post(body)
        check(status == want and word in answer["message"], f"{str(body)[:60]}: {status} {answer}")
    status, _, body = post(verdict(first, "wrong"))
    check(status == 200 and body["review"]["verdict"] == "wrong" and body["review"]["reviewer"] == "ann", f"{body}")
    check(body["review"]["score"] == first["score"] and body["review"]["true_label"] == (not first["label"]), f"{body}")
    # The second verdict makes the opposite true label of the first, so the training rows hold
    # a YES and a NO (sift calibrate needs both).
    second_verdict = "right" if second["label"] == first["label"] else "wrong"
    second_true = int(second["label"]) if second_verdict == "right" else int(not second["label"])
    status, _, body = post(verdict(second, second_verdict), None, bearer)
    check(status == 403, "Bearer needs the CSRF token too")
    status, _, body = post(verdict(second, second_verdict), csrf, bearer)
    check(status == 200, f"second verdict: {status} {body}")
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = db.execute("SELECT member, qualification, reviewer, verdict, score, label, artifact_version FROM reviews "
                      "ORDER BY reviewed_at").fetchall()
    check(rows == [(first["member"], first["qualification"], "ann", "wrong", first["score"], int(first["label"]), version),
                   (second["member"], second["qualification"], "ann", second_verdict, second["score"], int(second["label"]),
                    version)], f"reviews table: {rows}")
    db.close()
    check(export(sift, store) == judged, "verdicts never change the stored judgments")
    queue = get("/api/queue?limit=5")["pairs"]
    check((first["member"], first["qualification"]) not in [(p["member"], p["qualification"]) for p in queue],
          "a reviewed pair leaves the queue")
    m = get("/api/member?id=" + q(first["member"]))
    mine = [j for j in m["judgments"] if j["qualification"] == first["qualification"]][0]
    check([(r["reviewer"], r["verdict"]) for r in mine["reviews"]] == [("ann", "wrong")], f"{mine}")
    check(len(get("/api/calibration")["reviewed"]) == 2, "calibration: the reviewed pairs")
    cal = get("/api/calibration")
    check(cal["threshold"] == threshold and len(cal["history"]) >= 1 and len(cal["reference"]) > 0, "calibration")

    # 7. Hostile parameters: 400 naming the parameter; other methods 405; unknown paths 404.
    for path, word in [("/api/members?offset=-1", "offset"), ("/api/members?limit=0", "limit"),
                       ("/api/members?limit=501", "limit"), ("/api/members?limit=abc", "limit"),
                       ("/api/members?order=random", "order"), ("/api/members?text=%zz", "%"),
                       ("/api/members?id=%ff", "UTF-8"), ("/api/members?limit=1&limit=2", "twice"),
                       ("/api/members?x=1", "unknown parameter"), ("/api/members?text=" + "a" * 300, "text"),
                       ("/api/flips", "threshold"), ("/api/flips?threshold=nan", "threshold"),
                       ("/api/flips?threshold=1.5", "threshold"), ("/api/flips?threshold=1e999", "threshold"),
                       ("/api/member", "id"), ("/api/queue?limit=-5", "limit"),
                       ("/api/member?id=" + q("nobody"), "nobody")]:
        status, _, body = server.request("GET", path, None, auth)
        check(status in (400, 404) and word in body["message"], f"{path}: {status} {body}")
    status, headers, _ = server.request("POST", "/api/members", "{}", dict(auth, **{"X-CSRF-Token": csrf}))
    check(status == 405 and "GET" in headers["allow"], f"POST /api/members: {status}")
    status, _, _ = server.request("GET", "/api/nothing", None, auth)
    check(status == 404, f"an unknown route: {status}")

# 8. The reviewed pairs as training rows; sift calibrate reads them (and sift train, where built).
rows = export(sift, store, "--reviewed")
check(len(rows) == len({first["member"], second["member"]}), f"one row per member: {rows}")
pairs = {(r["id"], item["id"]): label for r in rows for item, label in zip(r["items"], r["labels"])}
check(pairs == {(first["member"], first["qualification"]): int(not first["label"]),
                (second["member"], second["qualification"]): second_true}, f"true labels: {pairs}")
check(sorted(pairs.values()) == [0, 1], "a YES and a NO to calibrate on")
check(all(r["query"] == profiles[r["id"]] for r in rows), "query = the profile text")
with open(f"{work}/reviewed.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
run(sift, "labels", "export", "--reviewed", "--store", store, "--output", f"{work}/reviewed2.jsonl")
check([json.loads(l) for l in open(f"{work}/reviewed2.jsonl")] == rows, "--output writes the same rows")
# Two items scored by a random labeler separate nothing: --force.
out, _ = run(sift, "calibrate", "--model", labeler, "--input", f"{work}/reviewed.jsonl", "--dry-run", "--force")
check('"threshold"' in out, f"sift calibrate reads the reviewed rows: {out}")
if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(sift)), "sift-train")):
    trained = f"{work}/trained"
    run(sift, "train", "--train", f"{work}/reviewed.jsonl", "--config", f"{labeler}/config.json", "--tokenizer",
        f"{labeler}/tokenizer.json", "--out", trained, "--steps", "2", "--batch-size", "2", "-q",
        env=dict(os.environ, OMP_NUM_THREADS="1"))
    check(os.path.getsize(f"{trained}/model.safetensors") > 0, "sift train trains on the reviewed rows")
else:
    print("note: sift-train is not built here: sift train (the same labeled-rows reader as calibrate) not run",
          file=sys.stderr)

# 9. Without --reviewer the store is read-only: a verdict is refused, the reviews stay.
with Review(sift, store, work) as server:
    _, _, session = server.request("GET", "/api/session")
    check(session["reviewer"] is None, f"{session}")
    status, _, body = server.request("POST", "/api/review", verdict(first, "right"),
                                     {"X-CSRF-Token": session["csrf_token"]})
    check(status == 403 and "--reviewer" in body["message"], f"read-only: {status} {body}")
check(len(export(sift, store, "--reviewed")) == len(rows), "nothing written read-only")

# Bad command lines are usage errors (exit 2) naming the flag, before the store is opened.
for flags, word in [(["--reviewer", ""], "--reviewer"), (["--reviewer", "x" * 101], "--reviewer"),
                    (["--host", "0.0.0.0"], "--api-key-file"), (["--port", "70000"], "--port")]:
    done = subprocess.run([sift, "review", "--store", store, *flags], capture_output=True, text=True, timeout=60)
    check(done.returncode == 2 and word in done.stderr, f"{flags}: {done.returncode} {done.stderr}")

# 10. A store of the first schema version: read as it is; upgraded in place by --reviewer.
old = f"{work}/old.db"
db = sqlite3.connect(old)
db.executescript(open(f"{src}/tests/e2e/lib/label_store_v1.sql").read() + """
INSERT INTO members VALUES ('m1', 'h', 'v1', 0.5, 1, 'max_rounds', 'r', '2026-01-01T00:00:00Z');
INSERT INTO labels VALUES ('m1', 'q1', 'Python', 0.9, 1, 1, 1, 'v1', 0.5, 'r', '2026-01-01T00:00:00Z');
""")
db.execute("PRAGMA journal_mode=WAL")
db.commit()
db.close()
before = export(sift, old)
check(len(before) == 1, "a version-1 store exports as it is")
done = subprocess.run([sift, "review", "--store", old, "--port", "0"], capture_output=True, text=True, timeout=60)
check(done.returncode == 1 and "--reviewer" in done.stderr, f"read-only review of a version-1 store: {done.stderr}")
with Review(sift, old, work, "--reviewer", "bob") as server:
    _, _, page = server.request("GET", "/api/members?order=uncertainty")
    check(page["members"][0]["margin"] == 0.4 and page["members"][0]["judged"] == 1, f"upgraded: {page}")
check(export(sift, old) == before, "the upgrade keeps the rows")

# 11. sift label runs again, with another threshold, between the page showing a judgment and
# the verdict on it: the judgment's label turned. The verdict is refused (409) with the
# judgment the store holds now, nothing is recorded, and a verdict on the new one lands.
reviewed_before = export(sift, store, "--reviewed")
with Review(sift, store, work, "--reviewer", "cat") as server:
    csrf = server.request("GET", "/api/session")[2]["csrf_token"]
    member = next(p for p in profiles if p not in (first["member"], second["member"]))
    shown = server.request("GET", "/api/member?id=" + q(member))[2]
    pair = next(j for j in shown["judgments"] if j["round"] == 1)  # judged again whatever the threshold
    pair = dict(pair, member=member, threshold=shown["threshold"])
    new_threshold = flipping_threshold(pair["score"], pair["label"])
    relabel(sift, src, work, store, member, profiles, new_threshold)
    status, _, body = server.request("POST", "/api/review", verdict(pair, "right"), {"X-CSRF-Token": csrf})
    check(status == 409 and "changed since it was shown" in body["message"], f"a verdict on the old judgment: {status} {body}")
    now = body["current"]
    check((now["qualification"], now["score"], now["label"], now["threshold"], now["artifact_version"]) ==
          (pair["qualification"], pair["score"], not pair["label"], new_threshold, version), f"the current judgment: {now}")
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    check(db.execute("SELECT COUNT(*) FROM reviews WHERE reviewer = 'cat'").fetchone()[0] == 0, "nothing recorded")
    db.close()
    check(export(sift, store, "--reviewed") == reviewed_before, "the export holds no verdict on the old judgment")
    status, _, body = server.request("POST", "/api/review", verdict(dict(pair, **now), "right"), {"X-CSRF-Token": csrf})
    check(status == 200 and body["review"]["true_label"] == now["label"], f"a verdict on the new judgment: {status} {body}")
exported = {(r["id"], item["id"]): label for r in export(sift, store, "--reviewed") for item, label in zip(r["items"], r["labels"])}
check(exported[(member, pair["qualification"])] == int(now["label"]), f"the export's true label: {exported}")

# 12. Another process holds the store's write lock (python3's sqlite3, BEGIN EXCLUSIVE). A
# verdict waits for it; meanwhile the pages answer (the verdict's wait holds up no other
# route); then the verdict gets 503 with Retry-After, and once the lock is gone it lands.
with Review(sift, store, work, "--reviewer", "dan") as server:
    csrf = server.request("GET", "/api/session")[2]["csrf_token"]
    pair = server.request("GET", "/api/queue?limit=1")[2]["pairs"][0]
    holder = subprocess.Popen([sys.executable, "-c", "import sqlite3, sys\n"
                               "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                               "db.execute('BEGIN EXCLUSIVE'); print('locked', flush=True)\n"
                               "sys.stdin.readline(); db.execute('ROLLBACK')", store],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    check(holder.stdout.readline().strip() == "locked", "the lock holder took the write lock")
    answered = []  # the order the answers came in
    def post_verdict():
        answer = server.request("POST", "/api/review", verdict(pair, "right"), {"X-CSRF-Token": csrf})
        answered.append(("verdict", answer))
    waiting = threading.Thread(target=post_verdict)
    waiting.start()
    for path in ("/api/session", "/api/member?id=" + q(pair["member"]), "/api/members?limit=3", "/"):
        status, _, _ = server.request("GET", path)
        answered.append((path, status))
    waiting.join()
    check([what for what, _ in answered[:-1]] == ["/api/session", "/api/member?id=" + q(pair["member"]),
                                                  "/api/members?limit=3", "/"] and answered[-1][0] == "verdict",
          f"the pages answered while the verdict waited: {[what for what, _ in answered]}")
    check(all(status == 200 for _, status in answered[:-1]), f"the pages: {answered[:-1]}")
    status, headers, body = answered[-1][1]
    check(status == 503 and int(headers.get("retry-after", "0")) >= 1 and "locked" in body["message"],
          f"a verdict on a locked store: {status} {headers} {body}")
    holder.stdin.write("done\n")
    holder.stdin.close()
    check(holder.wait(timeout=60) == 0, "the lock holder let go")
    status, _, body = server.request("POST", "/api/review", verdict(pair, "right"), {"X-CSRF-Token": csrf})
    check(status == 200, f"the verdict once the lock is gone: {status} {body}")

# 13. Logins: each one gets a session token of its own; after ten wrong keys in a row (at
# /login or as Bearer) every key is refused, the right one too, with 429 and Retry-After,
# while a session already logged in goes on.
form = {"Content-Type": "application/x-www-form-urlencoded"}
with Review(sift, store, work, "--api-key-file", f"{work}/key") as server:
    cookies = []
    for _ in range(2):
        status, headers, _ = server.request("POST", "/login", "key=s3cret-key", form)
        check(status == 303, f"login: {status}")
        cookies.append(headers["set-cookie"].split(";")[0])
    check(cookies[0] != cookies[1], f"two logins, one token: {cookies}")
    for cookie in cookies:
        check(server.request("GET", "/api/session", None, {"Cookie": cookie})[0] == 200, f"{cookie} logs in")
    for i in range(10):
        status, _, _ = (server.request("POST", "/login", "key=guess", form) if i % 2 else
                        server.request("GET", "/api/session", None, {"Authorization": "Bearer guess"}))
        check(status == 401, f"wrong key {i + 1}: {status}")
    for request in (("POST", "/login", "key=s3cret-key", form),
                    ("GET", "/api/session", None, {"Authorization": "Bearer s3cret-key"})):
        status, headers, body = server.request(*request)
        check(status == 429 and int(headers.get("retry-after", "0")) >= 1 and "too many wrong keys" in body["message"],
              f"the right key after ten wrong ones: {status} {headers} {body}")
    check(server.request("GET", "/api/session", None, {"Cookie": cookies[0]})[0] == 200, "a session goes on")
print("review_api: ok")
PY
