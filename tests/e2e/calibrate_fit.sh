#!/usr/bin/env bash
# End to end: `sift calibrate --fit` on the bundled labeler (a copy: models/default-labeler is
# never written) and rows of `sift synth`'s world. Each method writes its calibration map into
# sift.json; sift score, sift batch and sift serve (/v1/label, /v1/rerank, /v1/score) then
# report `probabilities` that are the map of the scores (recomputed here from sift.json by the
# documented formulas), while the scores stay bit for bit those of the labeler without a map,
# and a labeler without a map reports none. --threshold-on probability labels by the
# probability, and changes labels as stated. Hostile calibration maps are refused naming the
# field. sift eval reports ECE and Brier and draws the reliability diagram.
# Usage: bash calibrate_fit.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$SIFT" synth --out "$WORK/world" --members 400 --seed 7 >/dev/null 2>&1
cp -r "$SRC/models/default-labeler" "$WORK/plain"

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, math, os, shutil, subprocess, sys
from serve_client import Server, check
sift, work = sys.argv[1:3]
plain = f"{work}/plain"
val = [json.loads(l) for l in open(f"{work}/world/validation.jsonl")][:30]
test = [json.loads(l) for l in open(f"{work}/world/test.jsonl")][:12]
val_file, test_file = f"{work}/val.jsonl", f"{work}/test.jsonl"
open(val_file, "w").write("".join(json.dumps(r) + "\n" for r in val))
open(test_file, "w").write("".join(json.dumps(r) + "\n" for r in test))

def run(*args, ok=True):
    out = subprocess.run([sift, *args], capture_output=True, text=True)
    if ok:
        check(out.returncode == 0, f"sift {' '.join(args)} failed ({out.returncode}): {out.stderr}")
    return out

def score(model, *args):
    return [json.loads(l) for l in run("score", "--model", model, "--input", test_file, *args).stdout.splitlines()]

def log_odds(p):
    if p <= 0: return -40.0
    if p >= 1: return 40.0
    return max(-40.0, min(40.0, math.log(p) - math.log1p(-p)))

def sigmoid(x):
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))

def apply(cmap, p):  # docs/scoring.md's formulas
    if cmap["method"] == "temperature": return sigmoid(log_odds(p) / cmap["parameters"]["temperature"])
    if cmap["method"] == "platt": return sigmoid(cmap["parameters"]["a"] * log_odds(p) + cmap["parameters"]["b"])
    xs, qs = cmap["breakpoints"]["score"], cmap["breakpoints"]["probability"]
    if p <= xs[0]: return qs[0]
    if p >= xs[-1]: return qs[-1]
    j = max(k for k in range(len(xs)) if xs[k] <= p)
    return qs[j] + (p - xs[j]) / (xs[j + 1] - xs[j]) * (qs[j + 1] - qs[j])

reference = score(plain)
check(all("probabilities" not in line for line in reference), "a labeler without a map reports no probabilities")
items = [s for line in reference for s in line["scores"]]

for method in ["temperature", "platt", "isotonic"]:
    model = f"{work}/{method}"
    summary = json.loads(run("calibrate", "--model", plain, "--input", val_file, "--fit", method, "--out", model).stdout)
    art = json.load(open(f"{model}/sift.json"))
    cmap = art["calibration_map"]
    check(cmap["format"] == "sift.calibration_map/1" and cmap["method"] == method, f"{method}: {cmap}")
    check(summary["calibration_map"] == cmap, f"{method}: the summary shows the map written")
    n = sum(len(r["items"]) for r in val)
    check(cmap["fitted_on"]["n_items"] == n and len(cmap["fitted_on"]["data_sha256"]) == 64, f"{method}: {cmap}")
    check(cmap["ece_bins"] == 15, f"{method}: {cmap}")
    if method == "isotonic":  # the least-squares monotone fit: never worse than the identity on its items
        check(cmap["after"]["brier"] <= cmap["before"]["brier"], f"isotonic: Brier grew on its own items: {cmap}")
    for key in ["ece", "brier"]:
        check(0 <= cmap["before"][key] <= 1 and 0 <= cmap["after"][key] <= 1, f"{method}: {key} {cmap}")
    check(art.get("threshold_on") is None, f"{method}: threshold_on stays unwritten by default: {art}")
    check(art["calibrations"][-1]["fit"] == method, f"{method}: the history records the fit")
    check(art["threshold"] == summary["threshold"], f"{method}: the threshold chosen on the score")

    lines = score(model)
    for got, want in zip(lines, reference):
        check(got["scores"] == want["scores"], f"{method}: scores differ from the labeler without a map")
        check(got["labels"] == [s >= art["threshold"] for s in got["scores"]], f"{method}: labels by the score")
        check(len(got["probabilities"]) == len(got["scores"]), f"{method}: one probability per item")
        for s, p in zip(got["scores"], got["probabilities"]):
            check(abs(p - apply(cmap, s)) <= 1e-12, f"{method}: probability {p} is not the map of {s}: {apply(cmap, s)}")
        check(list(got.keys())[:4] == ["id", "item_ids", "scores", "probabilities"], f"{method}: field order {list(got)}")
    probabilities = [p for line in lines for p in line["probabilities"]]
    ranked = sorted(zip(items, probabilities))
    check(all(a[1] <= b[1] for a, b in zip(ranked, ranked[1:])), f"{method}: the map is non-decreasing")

    # sift batch writes the same fields as sift score.
    out = f"{work}/{method}.batch.jsonl"
    run("batch", "--model", model, "--input", test_file, "--output", out)
    batch = [json.loads(l) for l in open(out)]
    for b, s in zip(batch, lines):
        check(b["scores"] == s["scores"] and b["probabilities"] == s["probabilities"], f"{method}: batch vs score")

# --threshold-on probability: labels = probability >= threshold, the threshold chosen on the
# probabilities; thresholding them at the score's threshold changes labels as stated.
model = f"{work}/on_probability"
summary = json.loads(run("calibrate", "--model", plain, "--input", val_file, "--fit", "platt", "--threshold-on",
                         "probability", "--out", model).stdout)
art = json.load(open(f"{model}/sift.json"))
check(art["threshold_on"] == "probability" and summary["threshold_on"] == "probability", f"threshold_on: {art}")
t = art["threshold"]
lines = score(model)
for line, want in zip(lines, reference):
    check(line["scores"] == want["scores"], "scores unchanged under threshold_on probability")
    check(line["labels"] == [p >= t for p in line["probabilities"]], f"labels by probability >= {t}: {line}")
    check(line["artifact"] == {"version": art["version"], "threshold": t, "threshold_on": "probability"},
          f"the artifact says what the threshold applies to: {line['artifact']}")
# --threshold T overrides the threshold, still on the probability.
for line in score(model, "--threshold", "0.9"):
    check(line["labels"] == [p >= 0.9 for p in line["probabilities"]], "--threshold applies to the probability")
# A threshold between a score and its probability flips that label: the same T on the
# score-thresholded copy labels by the score.
platt = json.load(open(f"{work}/platt/sift.json"))["calibration_map"]
flips = [(s, apply(platt, s)) for s in items if (s >= 0.5) != (apply(platt, s) >= 0.5)]
by_score = [l for line in score(f"{work}/platt", "--threshold", "0.5") for l in line["labels"]]
by_probability = [l for line in score(model, "--threshold", "0.5") for l in line["labels"]]
check(sum(a != b for a, b in zip(by_score, by_probability)) == len(flips),
      f"threshold_on probability changes exactly the labels whose score and probability straddle 0.5: {len(flips)}")
# Without a map, --threshold-on probability has nothing to threshold.
out = run("calibrate", "--model", plain, "--input", val_file, "--threshold-on", "probability", "--dry-run", ok=False)
check(out.returncode != 0 and "no calibration map" in out.stderr, f"--threshold-on probability without a map: {out.stderr}")
# Calibrating again without --fit keeps the map, and can threshold on it.
again = json.loads(run("calibrate", "--model", model, "--input", val_file, "--threshold-on", "probability",
                       "--dry-run").stdout)
check(again["threshold"] == t, f"the same probabilities give the same threshold: {again['threshold']} vs {t}")

# Hostile maps: an Error naming the field, never a crash or a silent map.
for name, cmap, field in [
        ("falling", {"format": "sift.calibration_map/1", "method": "isotonic",
                     "breakpoints": {"score": [0.1, 0.5], "probability": [0.9, 0.2]}}, "calibration_map.breakpoints.probability[1]"),
        ("nan", {"format": "sift.calibration_map/1", "method": "temperature", "parameters": {"temperature": "NaN"}},
         "calibration_map.parameters.temperature"),
        ("huge", {"format": "sift.calibration_map/1", "method": "isotonic",
                  "breakpoints": {"score": [i / 70000 for i in range(70000)], "probability": [0.5] * 70000}},
         "calibration_map.breakpoints.score")]:
    bad = f"{work}/bad_{name}"
    shutil.copytree(plain, bad)
    art = json.load(open(f"{bad}/sift.json"))
    art["calibration_map"] = cmap
    json.dump(art, open(f"{bad}/sift.json", "w"))
    out = run("score", "--model", bad, "--input", test_file, ok=False)
    check(out.returncode != 0 and field in out.stderr and "sift.json" in out.stderr, f"{name}: {out.returncode} {out.stderr}")

# sift serve: /v1/label, /v1/rerank and /v1/score (the labeler's YES/NO ids, softmax) report
# the probability beside the unchanged score; without a map, none.
row = test[0]
texts = [item["text"] if isinstance(item, dict) else item for item in row["items"]]
for model, calibrated in [(f"{work}/isotonic", True), (plain, False)]:
    cmap = json.load(open(f"{model}/sift.json")).get("calibration_map")
    server = Server(sift, model, "--threads", "1")
    want = score(model)[0]
    status, _, body = server.post("/v1/label", {"query": row["query"], "items": row["items"]})
    check(status == 200 and body["scores"] == want["scores"] and body["labels"] == want["labels"], f"/v1/label: {body}")
    check(("probabilities" in body) == calibrated, f"/v1/label probabilities only with a map: {body}")
    if calibrated:
        check(body["probabilities"] == want["probabilities"], "/v1/label probabilities are sift score's")
    status, _, body = server.post("/v1/rerank", {"query": row["query"], "documents": texts})
    check(status == 200, f"/v1/rerank: {body}")
    for result in body["results"]:
        check(result["relevance_score"] == want["scores"][result["index"]], f"/v1/rerank score: {result}")
        check(("probability" in result) == calibrated, f"/v1/rerank probability only with a map: {result}")
        if calibrated:
            check(result["probability"] == want["probabilities"][result["index"]], f"/v1/rerank probability: {result}")
    status, _, info = server.request("GET", "/v1/models")
    ids = info["data"][0]["answers"]
    label_ids = [ids["yes"]["id"], ids["no"]["id"]]
    status, _, body = server.post("/v1/score", {"query": row["query"], "items": texts,
                                                "label_token_ids": label_ids, "apply_softmax": True})
    check(status == 200 and ("probabilities" in body) == calibrated, f"/v1/score: {status} {body}")
    if calibrated:
        for scores, p in zip(body["scores"], body["probabilities"]):
            check(abs(p - apply(cmap, scores[0])) <= 1e-12, f"/v1/score probability {p} of P(YES) {scores[0]}")
    status, _, body = server.post("/v1/score", {"query": "q", "items": ["a"], "label_token_ids": label_ids[::-1],
                                                "apply_softmax": True})
    check(status == 200 and "probabilities" not in body, "/v1/score gives no probability of other label ids")
    server._kill_if_running()

# sift eval: ECE and Brier, raw and calibrated, and the reliability diagram files.
out_dir = f"{work}/eval_curves"
report = json.loads(run("eval", "--model", f"{work}/platt", "--input", test_file, "--shuffles", "0",
                        "--out-dir", out_dir).stdout)
probs = [p for line in score(f"{work}/platt") for p in line["probabilities"]]
labels = [y for r in test for y in r["labels"]]
def ece_brier(ps):
    bins = {}
    for p, y in zip(ps, labels):
        bins.setdefault(min(14, int(p * 15)), []).append((p, y))
    ece = sum(len(b) / len(ps) * abs(sum(y for _, y in b) / len(b) - sum(p for p, _ in b) / len(b)) for b in bins.values())
    return ece, sum((p - y) ** 2 for p, y in zip(ps, labels)) / len(ps)
for key, ps in [("raw", items), ("calibrated", probs)]:
    ece, brier = ece_brier(ps)
    got = report["calibration"][key]
    check(abs(got["ece"] - ece) < 1e-12 and abs(got["brier"] - brier) < 1e-12, f"eval {key}: {got} vs {ece} {brier}")
for name in ["reliability.tsv", "reliability.png", "reliability.gp"]:
    check(os.path.getsize(f"{out_dir}/{name}") > 0, f"eval wrote {name}")
rows = open(f"{out_dir}/reliability.tsv").read().splitlines()
check(rows[0].split("\t")[:4] == ["bin_start", "bin_end", "n", "mean_score"] and len(rows) == 16, f"reliability.tsv: {rows[:2]}")
report = json.loads(run("eval", "--model", plain, "--input", test_file, "--shuffles", "0").stdout)
check(report["calibration"]["calibrated"] is None and report["calibration"]["raw"]["ece"] >= 0, f"eval without a map: {report}")
print("calibrate_fit: ok")
PY
