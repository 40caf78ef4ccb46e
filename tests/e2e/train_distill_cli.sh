#!/usr/bin/env bash
# Distillation end to end (sift train --targets scores): the bundled labeler is the teacher
# (`sift score --echo` on rows of `sift synth`), a tiny random checkpoint with its tokenizer
# the student's base (--init-model), trained on the teacher's P(YES):
#  - the run reports targets "scores", the teacher's threshold as the student's, and its
#    validation as teacher agreement; the student's scores on the training rows move towards
#    the teacher's (mean |student - teacher| below the untrained student's); --pack trains too;
#  - a teacher's error line and a null score are rows left out, each warned about by line;
#  - a score outside [0, 1], or a bare NaN, refuses the run naming the line and the item;
#  - --targets scores is refused for --objective generate;
#  - the label-store route: `sift label` with the teacher fills a store, `sift labels export
#    --teacher` writes its judged pairs as teacher rows (the profile, the judged names, the
#    stored scores: those `sift score` gives the same rows), and the student trains on them.
# Skipped (77) when sift-train is not built.
# Usage: bash train_distill_cli.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
[ -x "$(dirname "$SIFT")/sift-train" ] || { echo "train_distill_cli: sift-train not built, skipped"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$SIFT" "$SRC" "$WORK" <<'PY'
import json, os, subprocess, sys
sift, src, work = sys.argv[1:4]
teacher = os.path.join(src, "models", "default-labeler")
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
def run(*args, code=0):
    out = subprocess.run([sift, "--threads", "2", *map(str, args)], capture_output=True, text=True)
    check(out.returncode == code, f"sift {' '.join(map(str, args))}: exit {out.returncode}, expected {code}: {out.stderr[-2000:]}")
    return out
def report(out):
    return json.loads(out.stdout.splitlines()[-1])
w = lambda *p: os.path.join(work, *p)

# The teacher's rows: the bundled labeler's scores, echoed with the rows.
run("synth", "--out", w("world"), "--members", 60, "--seed", 4)
for split in ("train", "validation"):
    run("score", "--model", teacher, "--input", w("world", split + ".jsonl"), "--echo", "--output", w(f"teacher_{split}.jsonl"))
rows = [json.loads(l) for l in open(w("teacher_train.jsonl"))]
threshold = json.load(open(os.path.join(teacher, "sift.json")))["threshold"]
check(all(r["artifact"]["threshold"] == threshold for r in rows), "echo rows carry the teacher's threshold")

# The student's base: a tiny random checkpoint with the teacher's tokenizer and prompts.
run("make-checkpoint", "--out", w("base"), "--arch", "qwen3", "--preset", "tiny", "--seed", 2,
    "--tokenizer", os.path.join(teacher, "tokenizer.json"))
student = ["train", "--targets", "scores", "--init-model", w("base"), "--artifact", os.path.join(teacher, "sift.json"),
           "--batch-size", 32, "-q"]
train = [*student, "--train", w("teacher_train.jsonl")]
def gap(model):  # mean |student - teacher| P(YES) over the training rows
    out = run("score", "--model", model, "--input", w("teacher_train.jsonl"))
    student = [s for l in out.stdout.splitlines() for s in json.loads(l)["scores"]]
    ref = [s for r in rows for s in r["scores"]]
    check(len(student) == len(ref), "scores per item")
    return sum(abs(a - b) for a, b in zip(student, ref)) / len(ref)

# Untrained (one step of a vanishing learning rate) against trained.
run(*train, "--steps", 1, "--lr", "1e-12", "--out", w("untrained"))
r = report(run(*train, "--steps", 40, "--lr", "3e-3", "--validation", w("teacher_validation.jsonl"), "--out", w("student")))
check(r["targets"] == "scores" and r["threshold"] == threshold and r["step"] == 40, f"report: {r}")
check(r["validation_agreement_kind"] == "teacher" and 0 <= r["validation_agreement"] <= 1 and
      0 <= r["validation_score_gap"] <= 1, f"report: {r}")
check(json.load(open(w("student", "sift.json")))["threshold"] == threshold, "the student starts at the teacher's threshold")
before, after = gap(w("untrained")), gap(w("student"))
print(f"mean |student - teacher| on the training rows: {before:.4f} untrained, {after:.4f} after 40 steps")
check(after < 0.8 * before, f"the student's scores did not move towards the teacher's: {before:.4f} -> {after:.4f}")

# --pack, with early stopping on teacher agreement.
out = run(*train, "--pack", "--steps", 6, "--validation", w("teacher_validation.jsonl"), "--early-stopping", 2,
          "--eval-every", 3, "--out", w("packed"))
r = report(out)
check(r["early_stopping"]["metric"] == "teacher_agreement" and len(r["early_stopping"]["evaluations"]) >= 1, f"{r}")
check("teacher agreement" in out.stderr, f"progress lines name the metric: {out.stderr[-800:]}")

# Rows left out, each named by its line.
lines = open(w("teacher_train.jsonl")).read().splitlines()
null_row = json.loads(lines[1])
null_row["scores"][2] = None
bad = [lines[0], json.dumps(null_row), json.dumps({"line": 3, "id": "x", "error": "the row has no items"}), *lines[3:]]
open(w("bad.jsonl"), "w").write("\n".join(bad) + "\n")
out = run(*student, "--train", w("bad.jsonl"), "--steps", 1, "--out", w("bad_out"))
check(report(out)["rows_left_out"] == 2, f"rows left out: {report(out)}")
check(f"{w('bad.jsonl')}:2: scores[2] is null" in out.stderr, f"null score: {out.stderr[-1500:]}")
check(f"{w('bad.jsonl')}:3: the teacher could not score this row: the row has no items" in out.stderr,
      f"error line: {out.stderr[-1500:]}")
run(*student, "--train", w("bad.jsonl"), "--steps", 1, "--out", w("strict_out"), "--strict", code=1)

# A score that is not a probability refuses the run, naming the line and the item.
for name, value in (("range", "1.5"), ("nan", "NaN")):
    row = json.loads(lines[3])
    text = json.dumps({**row, "scores": ["@"] + row["scores"][1:]}).replace('"@"', value)
    open(w(name + ".jsonl"), "w").write("\n".join([*lines[:3], text, *lines[4:]]) + "\n")
    out = run(*student, "--train", w(name + ".jsonl"), "--steps", 1, "--out", w(name + "_out"), code=1)
    expect = f"{w(name + '.jsonl')}:4: scores[0] (item 0) is {value if value != 'NaN' else chr(34) + 'NaN' + chr(34)}"
    check(expect in out.stderr, f"{name}: expected {expect!r} in {out.stderr[-800:]}")
    check(not os.path.exists(w(name + "_out", "model.safetensors")), f"{name}: a labeler was written")

# The label-store route: the teacher labels profiles into a store; the export is teacher rows.
with open(w("profiles.jsonl"), "w") as f:
    for r in rows[:20]:
        f.write(json.dumps({"id": r["id"], "text": r["query"]}) + "\n")
run("label", "--model", teacher, "--catalog", w("world", "catalog.jsonl"), "--profiles", w("profiles.jsonl"),
    "--store", w("teacher.db"), "--k", 8, "--max-rounds", 2)
out = run("labels", "export", "--store", w("teacher.db"), "--teacher", "--output", w("store_teacher.jsonl"))
exported = [json.loads(l) for l in open(w("store_teacher.jsonl"))]
pairs = [json.loads(l) for l in run("labels", "export", "--store", w("teacher.db")).stdout.splitlines()]
check(len(exported) == 20 and sum(len(r["items"]) for r in exported) == len(pairs), f"{len(exported)} rows, {len(pairs)} pairs")
check(f"{len(pairs)} judged pairs of 20 members" in out.stderr, out.stderr)
profile_of = {r["id"]: r["query"] for r in rows[:20]}
for r in exported:
    mine = [p for p in pairs if p["member"] == r["id"]]
    check(r["query"] == profile_of[r["id"]], f"{r['id']}: the query is the profile judged")
    check([i["text"] for i in r["items"]] == [p["name"] for p in mine] and r["scores"] == [p["score"] for p in mine]
          and r["labels"] == [p["label"] for p in mine], f"{r['id']}: items, scores and labels are the store's")
    check(r["artifact"] == {"version": mine[0]["artifact_version"], "threshold": threshold, "threshold_on": "score"},
          f"{r['id']}: artifact {r['artifact']}")
rescored = [json.loads(l) for l in run("score", "--model", teacher, "--input", w("store_teacher.jsonl")).stdout.splitlines()]
check([r["scores"] for r in rescored] == [r["scores"] for r in exported], "stored scores != sift score's on the same rows")
r = report(run(*student, "--train", w("store_teacher.jsonl"), "--steps", 2, "--out", w("from_store")))
check(r["targets"] == "scores" and r["threshold"] == threshold and r["rows_left_out"] == 0, f"from the store: {r}")
run("labels", "export", "--store", w("teacher.db"), "--teacher", "--reviewed", code=2)

out = run(*train, "--objective", "generate", "--steps", 1, "--out", w("gen"), code=2)
check("--targets scores is for --objective label" in out.stderr, out.stderr)
print("train_distill_cli: all checks passed")
PY
