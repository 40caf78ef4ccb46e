#!/usr/bin/env bash
# End to end: `sift calibrate` and `sift eval` on a tiny random labeler (tests/e2e/lib/tiny_labeler.sh:
# make-checkpoint, a byte-level BPE tokenizer.json, sift.json). The thresholds and
# agreements are recomputed here from `sift score` output with the documented rules.
# Usage: bash calibrate_eval_cli.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 7

python3 - "$SIFT" "$MODEL" "$WORK" <<'PY'
import json, os, random, subprocess, sys
sift, model, work = sys.argv[1:4]
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
def run(*args, ok=True, env=None):
    out = subprocess.run([sift, *args], capture_output=True, text=True, env=env)
    if ok:
        check(out.returncode == 0, f"sift {' '.join(args)} failed: {out.stderr}")
    return out

# Rows with labels; the highest-scoring item gets label 0, so precision 1 is out of reach. The
# labels are random, so the scores separate nothing: calibrate needs --force (first_day_mistakes.sh
# checks the refusal).
rng = random.Random(3)
words = ["python", "sql", "spark", "nursing", "welding", "french", "excel", "kubernetes", "acls", "cooking"]
rows = []
for r in range(12):
    items = rng.sample(words, rng.randint(2, 7))
    rows.append({"id": f"m{r}", "query": " ".join(rng.sample(words, 3)) + f" member {r}", "items": items})
plain = os.path.join(work, "plain.jsonl")
open(plain, "w").write("".join(json.dumps(r) + "\n" for r in rows))
scored = [json.loads(l) for l in run("score", "--model", model, "--input", plain).stdout.splitlines()]
scores = [s for row in scored for s in row["scores"]]
top = max(scores)
for row, out in zip(rows, scored):
    row["labels"] = [0 if s == top else rng.randint(0, 1) for s in out["scores"]]
    row["truth"] = [rng.randint(0, 1) for _ in out["scores"]]
labels = [y for row in rows for y in row["labels"]]
val = os.path.join(work, "val.jsonl")
open(val, "w").write("".join(json.dumps(r) + "\n" for r in rows))

def curve():
    P = sum(labels)
    points = []
    for t in sorted(set(scores), reverse=True):
        tp = sum(1 for s, y in zip(scores, labels) if s >= t and y)
        fp = sum(1 for s, y in zip(scores, labels) if s >= t and not y)
        points.append((t, tp / (tp + fp), tp / P, 2 * tp / (2 * tp + fp + P - tp)))
    return points
pts = curve()
best_f1 = max(pts, key=lambda p: (p[3], p[0]))
def agreement_at(t):
    return sum((s >= t) == bool(y) for s, y in zip(scores, labels)) / len(labels)
best_agreement = max(sorted(set(scores)), key=lambda t: (agreement_at(t), t))

# --target agreement, --dry-run: the threshold with the most labels equal to the reference.
summary = json.loads(run("calibrate", "--force", "--model", model, "--input", val, "--target", "agreement", "--dry-run").stdout)
check(summary["threshold"] == best_agreement, f"agreement threshold {summary['threshold']} != {best_agreement}")
check(abs(summary["agreement"] - agreement_at(best_agreement)) < 1e-12, f"agreement {summary}")
check(summary["target"] == "agreement" and summary["dry_run"], f"summary: {summary}")
best_recall = max((p for p in pts if p[2] >= 0.5), key=lambda p: (p[1], p[2], p[0]))

# --target f1
out = run("calibrate", "--force", "--model", model, "--input", val, "--target", "f1", "--in-place")
summary = json.loads(out.stdout)
check(summary["threshold"] == best_f1[0], f"f1 threshold {summary['threshold']} != {best_f1[0]}")
check(abs(summary["f1"] - best_f1[3]) < 1e-12, f"f1 {summary}")
check(summary["n_items"] == len(scores) and summary["old_threshold"] == 0.5, f"summary: {summary}")
for key in ["threshold", "precision", "recall", "f1", "n_items", "old_threshold"]:
    check(key in summary, f"summary lacks {key}: {summary}")
art = json.load(open(os.path.join(model, "sift.json")))
check(art["version"] == "e2e-1+cal1-f1", f"version: {art['version']}")
check(art["threshold"] == best_f1[0], f"sift.json threshold: {art['threshold']}")
check(art["note"] == "kept across versions" and art["calibrations"][-1]["target"] == "f1", f"sift.json: {art}")
tsv = open(os.path.join(model, "calibration", "pr_curve.tsv")).read().splitlines()
check(tsv[0] == "threshold\tprecision\trecall\tf1", f"tsv header: {tsv[0]}")
check(len(tsv) == 1 + len(pts), f"tsv has {len(tsv) - 1} points, expected {len(pts)}")
check([float(x) for x in tsv[1].split("\t")] == list(pts[0]), f"first tsv line {tsv[1]} vs {pts[0]}")
png = open(os.path.join(model, "calibration", "pr_curve.png"), "rb").read()
check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000, "pr_curve.png is not a PNG")

# --target recall=0.5, curve into --out-dir; the scoring path picks the new threshold up.
outdir = os.path.join(work, "curves")
summary = json.loads(run("calibrate", "--force", "--model", model, "--input", val, "--target", "recall=0.5",
                         "--out-dir", outdir, "--in-place").stdout)
check(summary["threshold"] == best_recall[0], f"recall threshold {summary['threshold']} != {best_recall[0]}")
check(summary["old_threshold"] == best_f1[0], f"old threshold: {summary}")
check(json.load(open(os.path.join(model, "sift.json")))["version"] == "e2e-1+cal2-recall-0.5", "second version")
check(os.path.exists(os.path.join(outdir, "pr_curve.png")), "--out-dir curve")
rescored = [json.loads(l) for l in run("score", "--model", model, "--input", plain).stdout.splitlines()]
check([l for r in rescored for l in r["labels"]] == [s >= best_recall[0] for s in scores], "threshold not applied")

# Unreachable precision: the top item is a NO, so every threshold has a false positive.
curve_before = open(os.path.join(model, "calibration", "pr_curve.tsv")).read()
out = run("calibrate", "--force", "--model", model, "--input", val, "--target", "precision=1", "--in-place", ok=False)
check(out.returncode != 0 and "cannot be met" in out.stderr and "best achievable precision" in out.stderr,
      f"unreachable: {out.stderr}")
check(json.load(open(os.path.join(model, "sift.json")))["version"] == "e2e-1+cal2-recall-0.5", "failed run wrote")
check(open(os.path.join(model, "calibration", "pr_curve.tsv")).read() == curve_before, "failed run rewrote the curve")
# Rows of one class cannot place a threshold: all YES is refused as all NO is, nothing written.
for value, want in ((1, f"all {len(scores)} items have a YES reference label"), (0, "recall is undefined")):
    one_class = os.path.join(work, f"one_class_{value}.jsonl")
    open(one_class, "w").write("".join(json.dumps(dict(r, labels=[value] * len(r["labels"]))) + "\n" for r in rows))
    sift_json_before = open(os.path.join(model, "sift.json")).read()
    out = run("calibrate", "--force", "--model", model, "--input", one_class, "--in-place", ok=False)
    check(out.returncode == 1 and want in out.stderr, f"one class ({value}): {out.returncode} {out.stderr}")
    check(open(os.path.join(model, "sift.json")).read() == sift_json_before, f"one class ({value}) wrote sift.json")
    check(open(os.path.join(model, "calibration", "pr_curve.tsv")).read() == curve_before, "one class: curve rewritten")
    out = run("calibrate", "--force", "--model", model, "--input", one_class, "--out", os.path.join(work, "one_class_copy"), ok=False)
    check(out.returncode == 1 and not os.path.exists(os.path.join(work, "one_class_copy")), f"one class --out: {out.stderr}")
history = json.load(open(os.path.join(model, "sift.json")))["calibrations"]
check([h["version"] for h in history] == ["e2e-1+cal1-f1", "e2e-1+cal2-recall-0.5"], f"history: {history}")
check([h["previous_threshold"] for h in history] == [0.5, best_f1[0]], f"history thresholds: {history}")
import re  # the one time format of sift (core/utc_time.h), as the label store writes it
check(all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", h["calibrated_at"]) for h in history),
      f"calibrated_at: {history}")

# eval: the same labels as `sift score`, MIS order inconsistency exactly 0.
predicted = [l for r in rescored for l in r["labels"]]
truth = [y for row in rows for y in row["truth"]]
ev = json.loads(run("eval", "--model", model, "--input", val, "--shuffles", "3", "--seed", "9").stdout)
agree = sum(p == bool(y) for p, y in zip(predicted, labels)) / len(labels)
check(abs(ev["agreement"] - agree) < 1e-12, f"agreement {ev['agreement']} != {agree}")
check(abs(ev["truth_agreement"] - sum(p == bool(y) for p, y in zip(predicted, truth)) / len(truth)) < 1e-12,
      f"truth agreement {ev}")
tp = sum(p and y for p, y in zip(predicted, labels))
check(abs(ev["recall"] - tp / sum(labels)) < 1e-12, f"recall {ev}")
check(ev["order_inconsistency"] == 0 and ev["order"]["score_changed"] == 0, f"mis inconsistency: {ev}")
check(ev["order"]["compared"] == 3 * len(labels), f"compared: {ev['order']}")
check(ev["labels_per_second"] > 0 and ev["n_items"] == len(labels), f"eval: {ev}")
for key in ["precision", "f1", "n_unparsed"]:
    check(key in ev, f"eval lacks {key}")
ev_t = json.loads(run("eval", "--model", model, "--input", val, "--threshold", "0", "--shuffles", "0").stdout)
check(ev_t["recall"] == 1 and ev_t["order_inconsistency"] is None, f"--threshold 0: {ev_t}")
gen = json.loads(run("eval", "--model", model, "--input", val, "--mode", "generate", "--shuffles", "2").stdout)
check(gen["mode"] == "generate" and isinstance(gen["n_unparsed"], int), f"generate: {gen}")
check(0 <= gen["order_inconsistency"] <= 1, f"generate inconsistency: {gen}")

# Errors
def expect_error(want, *args, env=None, code=1):
    out = run(*args, ok=False, env=env)
    check(out.returncode == code and want in out.stderr,
          f"sift {' '.join(args)}: expected exit {code} and '{want}' in {out.returncode} {out.stderr!r}")
bad = os.path.join(work, "bad.jsonl")
# A bad row is left out with a warning naming file:line; the rest is evaluated (--strict: exit 1).
open(bad, "w").write(json.dumps(rows[0]) + "\n" + json.dumps({"query": "q", "items": ["a"]}) + "\n")
out = run("eval", "--model", model, "--input", bad)
check("bad.jsonl:2: missing field \"labels\"" in out.stderr and json.loads(out.stdout)["errors"] == 1, out.stderr)
out = run("eval", "--model", model, "--input", bad, "--strict", ok=False)
check(out.returncode == 1 and "--strict" in out.stderr, f"--strict: {out.returncode} {out.stderr}")
out = run("calibrate", "--force", "--model", model, "--input", bad, "--dry-run")
check("bad.jsonl:2: missing field \"labels\"" in out.stderr and json.loads(out.stdout)["errors"] == 1, out.stderr)
open(bad, "w").write(json.dumps({"query": "q", "items": ["a", "b"], "labels": [1]}) + "\n")
expect_error("1 labels but the row has 2 items", "eval", "--model", model, "--input", bad)
open(bad, "w").write("\n")
expect_error("cannot open the input", "calibrate", "--model", model, "--input", val.replace("val", "missing"), "--dry-run")
expect_error("empty input", "calibrate", "--model", model, "--input", bad, "--dry-run")
# Bad option values are usage errors (exit 2), found before the labeler loads.
expect_error("--target \"accuracy\"", "calibrate", "--model", model, "--input", val, "--target", "accuracy",
             "--dry-run", code=2)
expect_error("--target precision=nan: the value must be in (0, 1]", "calibrate", "--model", model, "--input", val,
             "--target", "precision=nan", "--dry-run", code=2)
expect_error("--mode: generate not in", "calibrate", "--model", model, "--input", val, "--mode", "generate",
             "--dry-run", code=2)
empty_path = os.path.join(work, "no_programs")
os.mkdir(empty_path)
expect_error("gnuplot", "calibrate", "--model", model, "--input", val, "--in-place", env={"PATH": empty_path})
PY
echo "calibrate_eval_cli: all checks passed"
