#!/usr/bin/env bash
# End to end: `sift label` on a shared PostgreSQL store, a real server started here on a
# private socket (tests/e2e/lib/postgres_server.sh) and stopped after: the same store
# contents as SQLite (scores to the bit), unchanged re-runs skipped, two shards writing at
# once, four runs starting together on a fresh store, a profile holding a NUL reported as its
# row's error on both stores, kill -9 then re-run. Exits 77 (skipped) only where no server binary is installed.
# Usage: bash label_postgres.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
source "$SRC/tests/e2e/lib/postgres_for_test.sh"
start_postgres label_postgres
for db in labels sharded fresh nul killed; do psql -q "$URI" -c "CREATE DATABASE $db" >/dev/null; done

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 5
"$SIFT" synth --out "$WORK/world" --members 60 --candidates 40 --seed 4 2>/dev/null

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$MODEL" "$WORK" "$URI" <<'PY'
import json, os, subprocess, sys
from label_checks import Sift, by_member, check, without_run, kill_then_resume
os.environ.setdefault("OMP_NUM_THREADS", "1")
sift_bin, model, work, uri = sys.argv[1:5]
store_uri = lambda db: uri.replace("/postgres?", f"/{db}?")
world = f"{work}/world"
sift = Sift(sift_bin, model, f"{world}/catalog.jsonl")
rows = [json.loads(l) for split in ("train", "validation", "test") for l in open(f"{world}/{split}.jsonl")]
profiles = f"{work}/profiles.jsonl"
with open(profiles, "w") as f:
    for r in rows:
        f.write(json.dumps({"id": r["id"], "text": r["query"]}) + "\n")
OPTS = ["--k", "10", "--max-rounds", "4", "--stop-below", "0.3"]

# The same run into SQLite and into PostgreSQL stores the same judgments, scores to the bit.
sqlite_store = f"{work}/labels.db"
sift.label(profiles, sqlite_store, *OPTS)
reference = sift.export(sqlite_store)
summary, _ = sift.label(profiles, store_uri("labels"), *OPTS)
check(summary["judged"] == len(rows) and summary["errors"] == 0, f"PostgreSQL run: {summary}")
check(without_run(sift.export(store_uri("labels"))) == without_run(reference), "PostgreSQL store != SQLite store")
teacher_rows = lambda store: sift.run("labels", "export", "--store", store, "--teacher").stdout
check(teacher_rows(store_uri("labels")) == teacher_rows(sqlite_store) != "", "export --teacher: PostgreSQL != SQLite")
member = rows[0]["id"]
check(sift.get(store_uri("labels"), member)["accepted"] == sift.get(sqlite_store, member)["accepted"], "labels get")

summary, err = sift.label(profiles, store_uri("labels"), *OPTS)
check(summary["judged"] == 0 and summary["skipped_unchanged"] == len(rows), f"PostgreSQL re-run: {summary}")
check("no model work" in err, f"re-run says so: {err}")

# Two machines' worth of shards writing to one store at the same time.
shards = [subprocess.Popen(sift.label_args(profiles, store_uri("sharded"), *OPTS, "--shard", f"{k}/2"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in (1, 2)]
outputs = [p.communicate() for p in shards]
for p, (out, err) in zip(shards, outputs):
    check(p.returncode == 0, f"shard failed: {err}")
check(sum(json.loads(out)["profiles"] for out, _ in outputs) == len(rows), f"shards: {outputs}")
check(without_run(sift.export(store_uri("sharded"))) == without_run(reference), "shards together != one run")

# Four runs of the same profiles starting together on a fresh store: each creates the schema
# and replaces the same members; all succeed and every member holds one run's rows, whole.
runs = [subprocess.Popen(sift.label_args(profiles, store_uri("fresh"), *OPTS), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True) for _ in range(4)]
for p, (out, err) in [(p, p.communicate()) for p in runs]:
    check(p.returncode == 0, f"a concurrent run failed: {err}")
fresh = sift.export(store_uri("fresh"))
check(without_run(fresh) == without_run(reference), "four concurrent runs != one run")
for member, judged in by_member(fresh).items():
    check(len({r["run_id"] for r in judged}) == 1, f"{member} holds rows of several runs: {judged}")

# A profile holding a NUL among good ones: that row's error, the same on both stores; the
# others are stored. First in the file, so nothing is stored before it.
nul_profiles = f"{work}/nul.jsonl"
with open(nul_profiles, "w") as f:
    f.write(json.dumps({"id": "nul-member", "text": "before\u0000after"}) + "\n")
    for r in rows[:5]:
        f.write(json.dumps({"id": r["id"], "text": r["query"]}) + "\n")
for store in (f"{work}/nul.db", store_uri("nul")):
    summary, err = sift.label(nul_profiles, store, *OPTS)
    check(summary["errors"] == 1 and summary["judged"] == 5, f"{store}: {summary}")
    check(f"{nul_profiles}:1: field \"text\" holds a NUL character" in err, f"{store}: the row's error: {err}")
    check(sorted(by_member(sift.export(store))) == sorted(r["id"] for r in rows[:5]), f"{store}: the good rows")

# kill -9 mid-run, then re-run.
KILL_OPTS = ["--k", "10", "--max-rounds", "4", "--stop-below", "0"]
sift.label(profiles, f"{work}/full.db", *KILL_OPTS)
stored = kill_then_resume(sift, profiles, store_uri("killed"), sift.export(f"{work}/full.db"), len(rows), KILL_OPTS,
                          kill_after_members=5)
print(f"label_postgres: kill -9 after {stored} of {len(rows)} members; re-run completed the store", file=sys.stderr)
print("label_postgres: all checks passed")
PY
