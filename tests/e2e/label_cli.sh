#!/usr/bin/env bash
# End to end: `sift label` and `sift labels` on a SQLite store, with a tiny random labeler
# (tests/e2e/lib/tiny_labeler.sh) on a small synthetic world (`sift synth`): the rounds
# rule, the same ranking as synth's BM25, incremental skips, re-judging on changed text or
# a new artifact version (and not on a changed catalog, --k or --weights), --refresh, kill -9
# then re-run, malformed rows, given candidates,
# shards, --weights q8 (the scores of `sift score --weights q8`), and bad command lines
# (usage errors, exit 2).
# Usage: bash label_cli.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 5
"$SIFT" synth --out "$WORK/world" --members 100 --candidates 40 --seed 3 2>/dev/null

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$MODEL" "$WORK" <<'PY'
import json, os, sqlite3, sys, time
os.environ.setdefault("OMP_NUM_THREADS", "1")
started = time.time()
from label_checks import Sift, check, without_run, by_member, check_rounds, kill_then_resume
sift_bin, model, work = sys.argv[1:4]
world = f"{work}/world"
sift = Sift(sift_bin, model, f"{world}/catalog.jsonl")

synth_rows = [json.loads(l) for split in ("train", "validation", "test") for l in open(f"{world}/{split}.jsonl")]
def write_profiles(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return path
profiles_rows = [{"id": r["id"], "text": r["query"]} for r in synth_rows[:30]]
profiles = write_profiles(f"{work}/profiles.jsonl", profiles_rows)
OPTS = ["--k", "10", "--max-rounds", "4", "--stop-below", "0.5"]

# 1. A first run labels every profile; the store follows the rounds rule.
store = f"{work}/a.db"
summary, err = sift.label(profiles, store, *OPTS)
check(summary["profiles"] == 30 and summary["judged"] == 30 and summary["skipped_unchanged"] == 0
      and summary["errors"] == 0, f"first run: {summary}")
rows = sift.export(store)
check(len(rows) == summary["pairs_judged"] and summary["pairs_judged"] > 30, f"{len(rows)} rows, {summary}")
check(sum(r["label"] for r in rows) == summary["accepted"], "accepted count")
check(summary["rounds"] == sum(max(r["round"] for r in m) for m in by_member(rows).values()), "rounds count")
check(0 < summary["accepted"] < len(rows), "a random labeler accepts some and rejects some")
check_rounds(rows, 10, 0.5)
check(any(len(m) < 40 for m in by_member(rows).values()), "some member stopped early")
check("sift label: 30 profiles: 30 judged" in err, f"summary line on stderr: {err}")
version = json.load(open(f"{model}/sift.json"))["version"]
check({r["artifact_version"] for r in rows} == {version}, "artifact version stored per row")

# 2. Candidates are synth's BM25 ranking (one retriever for both).
for r in synth_rows[:30]:
    judged = [x["qualification"] for x in by_member(rows)[r["id"]]]
    check(judged == [item["id"] for item in r["items"]][:len(judged)], f"{r['id']}: ranking differs from synth's")

# 3. A member's stored labels; unknown members are "not labeled", not an error.
member = profiles_rows[0]["id"]
got = sift.get(store, member)
mine = by_member(rows)[member]
check(got["labeled"] and got["accepted"] == [x["qualification"] for x in mine if x["label"]], f"get: {got}")
check(got["rounds"] == max(x["round"] for x in mine) and got["stop_reason"] in
      ("below_threshold", "max_rounds", "exhausted"), f"get: {got}")
check(sift.get(store, "nobody") == {"member": "nobody", "labeled": False}, "unknown member")

# 4. Re-run over unchanged input: no model work, said so, nothing rewritten.
summary, err = sift.label(profiles, store, *OPTS)
check(summary["judged"] == 0 and summary["skipped_unchanged"] == 30 and summary["pairs_judged"] == 0
      and summary["model_seconds"] == 0, f"re-run: {summary}")
check("no model work" in err, f"the re-run says it did no model work: {err}")
check(sift.export(store) == rows, "an unchanged re-run rewrote the store")
# The same profiles with old Mac line endings (bare "\r") are the same 30 rows, all unchanged.
cr_profiles = f"{work}/profiles_cr.jsonl"
with open(cr_profiles, "w", newline="") as f:
    f.write(open(profiles).read().replace("\n", "\r"))
summary, _ = sift.label(cr_profiles, store, *OPTS)
check(summary["profiles"] == 30 and summary["skipped_unchanged"] == 30 and summary["errors"] == 0,
      f"bare-CR profiles: {summary}")

# 5. A changed text and a new profile are judged; nothing else is.
changed = [dict(p) for p in profiles_rows]
changed[3]["text"] += " Also fluent in Portuguese."
changed.append({"id": synth_rows[30]["id"], "text": synth_rows[30]["query"]})
summary, _ = sift.label(write_profiles(f"{work}/changed.jsonl", changed), store, *OPTS)
check(summary["judged"] == 2 and summary["skipped_unchanged"] == 29, f"changed text: {summary}")
after = by_member(sift.export(store))
first_run = by_member(rows)
for p in profiles_rows:
    if p["id"] != changed[3]["id"]:
        check(after[p["id"]] == first_run[p["id"]], f"{p['id']} was rewritten though unchanged")
check(after[changed[3]["id"]][0]["run_id"] != first_run[changed[3]["id"]][0]["run_id"], "changed member rewritten")

# 5b. A changed catalog, other loop options (--k) or another --weights do not re-judge a
# stored member by themselves; --refresh does, with them.
changed_profiles = f"{work}/changed.jsonl"
stored = sift.export(store)
renamed_catalog = f"{work}/renamed_catalog.jsonl"
with open(renamed_catalog, "w") as f:
    for line in open(f"{world}/catalog.jsonl"):
        entry = json.loads(line)
        f.write(json.dumps(dict(entry, name=entry["name"] + " (renamed)")) + "\n")
renamed = Sift(sift_bin, model, renamed_catalog)
K5 = ["--k", "5", "--max-rounds", "4", "--stop-below", "0.5"]
for what, runner, options in (("a changed catalog", renamed, OPTS), ("--k 5", sift, K5),
                              ("--weights q8", sift, [*OPTS, "--weights", "q8"])):
    summary, _ = runner.label(changed_profiles, store, *options)
    check(summary["judged"] == 0 and summary["skipped_unchanged"] == 31, f"{what} re-judged by itself: {summary}")
    check(sift.export(store) == stored, f"{what} rewrote the store")
summary, _ = renamed.label(changed_profiles, store, *OPTS, "--refresh")
check(summary["judged"] == 31 and summary["skipped_unchanged"] == 0, f"--refresh, changed catalog: {summary}")
refreshed = sift.export(store)
check(all(r["name"].endswith(" (renamed)") for r in refreshed), "--refresh judged the changed catalog's names")
summary, _ = sift.label(changed_profiles, store, *K5, "--weights", "q8", "--refresh")
check(summary["judged"] == 31, f"--refresh, --k 5 --weights q8: {summary}")
check_rounds(sift.export(store), 5, 0.5)
last_run = json.loads(sqlite3.connect(store).execute("SELECT options FROM runs ORDER BY started_at DESC").fetchone()[0])
check(last_run["k"] == 5 and last_run["weights"] == "q8", f"the refresh ran with its options: {last_run}")

# 6. A new artifact version re-judges everything; --refresh too, with the same scores.
artifact = json.load(open(f"{model}/sift.json"))
artifact["version"] = version + "-next"
json.dump(artifact, open(f"{model}/sift.json", "w"))
summary, _ = sift.label(profiles, store, *OPTS)
check(summary["judged"] == 30 and summary["skipped_unchanged"] == 0, f"new version: {summary}")
rejudged = [r for r in sift.export(store) if r["member"] in {p["id"] for p in profiles_rows}]
check({r["artifact_version"] for r in rejudged} == {version + "-next"}, "rows carry the new version")
same = lambda rs: [{k: v for k, v in r.items() if k not in ("run_id", "labeled_at", "artifact_version")} for r in rs]
check(same(rejudged) == same(rows), "the same weights under a new version give the same judgments")
summary, _ = sift.label(profiles, store, *OPTS, "--refresh")
check(summary["judged"] == 30 and summary["skipped_unchanged"] == 0, f"--refresh: {summary}")
# The labeler's files change but its version does not: labels are kept, with a warning.
with open(f"{model}/tokenizer.json", "a") as f:
    f.write("\n")
summary, err = sift.label(profiles, store, *OPTS)
check(summary["judged"] == 0 and "differ from those of an earlier run with the same version" in err,
      f"changed files under one version: {summary} {err}")

# 7. kill -9 mid-run, then re-run: the store equals an uninterrupted run's.
big = write_profiles(f"{work}/big.jsonl", [{"id": r["id"], "text": r["query"]} for r in synth_rows])
KILL_OPTS = ["--k", "10", "--max-rounds", "4", "--stop-below", "0"]
reference = f"{work}/reference.db"
sift.label(big, reference, *KILL_OPTS)
reference_rows = sift.export(reference)
killed_store = f"{work}/killed.db"
stored = kill_then_resume(sift, big, killed_store, reference_rows, len(synth_rows), KILL_OPTS)
db = sqlite3.connect(killed_store)
runs = db.execute("SELECT finished_at IS NULL FROM runs ORDER BY started_at").fetchall()
check(runs == [(1,), (0,)], f"the killed run stays unfinished in the runs table: {runs}")
orphans = db.execute("SELECT count(*) FROM labels WHERE member NOT IN (SELECT member FROM members)").fetchone()[0]
check(orphans == 0, "labels rows without their member row")
print(f"label_cli: kill -9 after {stored} of {len(synth_rows)} members; re-run completed the store", file=sys.stderr)

# 8. Malformed rows are reported with their line; the rest is labeled.
catalog_lines = open(f"{world}/catalog.jsonl").read().splitlines()
bad_catalog = f"{work}/bad_catalog.jsonl"
with open(bad_catalog, "w") as f:
    f.write("\n".join(catalog_lines[:5] + ["{broken", '{"id": "q0000", "name": "dup"}', '{"id": "qx"}'] +
                      catalog_lines[5:]) + "\n")
bad_profiles = f"{work}/bad_profiles.jsonl"
good = profiles_rows[:4]
lines = [json.dumps(good[0]).encode(), b"not json", json.dumps({"id": "m-no-text"}).encode(), json.dumps(good[1]).encode(),
         json.dumps({"id": "m-unknown", "text": "x", "candidates": ["q0001", "nope"]}).encode(), b"",
         json.dumps(good[0]).encode(), b"[" * 200000, json.dumps({"id": 3.5, "text": "x"}).encode(),
         json.dumps(good[2]).encode(), b'{"id": "m-utf8", "text": "\xff"}',  # not UTF-8
         json.dumps({"id": "m-given", "text": "whatever", "candidates": ["q0003", "q0001"]}).encode(),
         json.dumps(good[3]).encode()]
open(bad_profiles, "wb").write(b"\n".join(lines) + b"\n")
out = Sift(sift_bin, model, bad_catalog).label(bad_profiles, f"{work}/bad.db", *OPTS)
summary, err = out
expected = {f"{bad_catalog}:6:": "invalid JSON", f"{bad_catalog}:7:": "repeats line 1",
            f"{bad_catalog}:8:": "missing field \"name\"", f"{bad_profiles}:2:": "invalid JSON",
            f"{bad_profiles}:3:": "missing field \"text\"", f"{bad_profiles}:5:": "\"nope\" is not in the catalog",
            f"{bad_profiles}:6:": "empty line", f"{bad_profiles}:7:": "repeats line 1",
            f"{bad_profiles}:8:": "nested deeper than 64 levels", f"{bad_profiles}:9:": "string or an integer",
            f"{bad_profiles}:11:": "invalid JSON"}
for where, what in expected.items():
    check(any(l.startswith(where) and what in l for l in err.splitlines()), f"no report '{where} ...{what}' in:\n{err}")
check(summary["errors"] == len(expected), f"{len(expected)} errors reported: {summary}")
check(summary["judged"] == 5 and summary["profiles"] == 6, f"the good rows are labeled: {summary}")
given = by_member(sift.export(f"{work}/bad.db"))["m-given"]
check([(r["qualification"], r["rank"]) for r in given] == [("q0003", 1), ("q0001", 2)], f"given candidates: {given}")
names = {json.loads(l)["id"]: json.loads(l)["name"] for l in catalog_lines}
check([r["name"] for r in given] == [names["q0003"], names["q0001"]], "given candidates are judged by name")

# 9. Two shards into one store make the whole store.
sharded = f"{work}/sharded.db"
s1, _ = sift.label(profiles, sharded, *OPTS, "--shard", "1/2")
s2, _ = sift.label(profiles, sharded, *OPTS, "--shard", "2/2")
check(s1["profiles"] + s2["profiles"] == 30 and 0 < s1["profiles"] < 30, f"shards split the members: {s1} {s2}")
full = f"{work}/full.db"
sift.label(profiles, full, *OPTS)
check(without_run(sift.export(sharded)) == without_run(sift.export(full)), "shards together != one run")

# 9b. --weights q8: every stored score is the one `sift score --weights q8` gives the (profile, name) pair.
import subprocess
q8_store = f"{work}/q8.db"
sift.label(profiles, q8_store, *OPTS, "--weights", "q8")
q8_rows = by_member(sift.export(q8_store))
texts = {p["id"]: p["text"] for p in profiles_rows}
score_input = "".join(json.dumps({"query": texts[m], "items": [r["name"] for r in rs]}) + "\n" for m, rs in q8_rows.items())
want = subprocess.run([sift_bin, "score", "--model", model, "--weights", "q8", "-q"], input=score_input,
                      capture_output=True, text=True, check=True).stdout.splitlines()
for (member, rs), line in zip(q8_rows.items(), want):
    check([r["score"] for r in rs] == json.loads(line)["scores"], f"{member}: label --weights q8 != score --weights q8")
check(any(r["score"] != s["score"] for m in q8_rows for r, s in zip(q8_rows[m], by_member(rows)[m])), "q8 == f32")

# 10. Bad command lines and stores are one-line errors; bad flag values are usage errors (exit 2).
def expect_error(want, *args, code=1):
    out = sift.run(*args, ok=False)
    check(out.returncode == code and want in out.stderr,
          f"sift {args}: expected exit {code} with '{want}': {out.returncode} {out.stderr}")
for flag, value, want in [("--shard", "3/2", "--shard: expected K/N"), ("--k", "0", "--k must be in [1, 10000], got 0"),
                          ("--max-rounds", "0", "--max-rounds must be in"), ("--stop-below", "2", "--stop-below"),
                          ("--stop-below", "nan", "--stop-below"), ("--weights", "q4", "--weights")]:
    expect_error(want, "label", "--model", model, "--catalog", f"{world}/catalog.jsonl", "--profiles", profiles,
                 "--store", f"{work}/x.db", flag, value, code=2)
check(not os.path.exists(f"{work}/x.db"), "a usage error created the store")
expect_error("sift.json", "label", "--model", work, "--catalog", f"{world}/catalog.jsonl", "--profiles", profiles,
             "--store", f"{work}/x.db")
expect_error("no such label store", "labels", "export", "--store", f"{work}/missing.db")
expect_error("not a database", "labels", "get", "--store", profiles, "--member", "m")
quiet = sift.run("label", "--model", model, "--catalog", f"{world}/catalog.jsonl", "--profiles", profiles,
                 "--store", f"{work}/quiet.db", "--quiet")
check(quiet.stderr == "" and json.loads(quiet.stdout)["judged"] == 30, f"--quiet: nothing on stderr: {quiet.stderr!r}")
print("label_cli: all checks passed")
PY
