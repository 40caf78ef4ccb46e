#!/usr/bin/env bash
# End to end, as a user meets them: a pretraining corpus from sift synth, a base pretrained on
# it (sift train --objective lm), and both fine-tuning objectives started from that base, one
# of them to its validation plateau (--early-stopping), then calibrated for agreement.
#  - the corpus: {"text": ...} lines, the same bytes for the same seed, no split's profile in it;
#  - lm: the validation loss falls well below ln(vocabulary) (the loss of uniform guessing);
#    the report's "blas" is not OpenBLAS's generic kernel set on an AVX2 CPU, unless
#    OPENBLAS_CORETYPE asks for it;
#    a text file of the same documents trains the same bits as their JSON lines; a run killed
#    after a checkpoint and resumed ends with the same bits as one straight through; the output
#    is a Hugging Face directory (config.json, model.safetensors, tokenizer.json, sift.json);
#  - --init-model BASE --pack --early-stopping P --eval-every N: stops P evaluations after the
#    best, or at the --steps cap; keeps the best step's weights (the version names it, and
#    calibrate --target agreement on the same rows reads the best agreement back); the same
#    seed gives the same bytes;
#  - --init-model BASE --objective generate: a labeler `sift score --mode generate` runs.
# Skipped (77) when sift-train is not built.
# Usage: bash train_pretrain_cli.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
[ -x "$(dirname "$SIFT")/sift-train" ] || { echo "train_pretrain_cli: sift-train not built, skipped"; exit 77; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$SIFT" "$WORK" <<'PY'
import hashlib, json, math, os, subprocess, sys, time
sift, work = sys.argv[1], sys.argv[2]
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
def run(*args, code=0):
    out = subprocess.run([sift, "--threads", "1", *map(str, args)], capture_output=True, text=True)
    check(out.returncode == code, f"sift {' '.join(map(str, args))}: exit {out.returncode}, expected {code}: {out.stderr}")
    return out
def report(out):
    return json.loads(out.stdout.splitlines()[-1])
def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()
w = lambda *p: os.path.join(work, *p)

# 1. The corpus: text only, deterministic for a seed, and no member of any split.
for name in ("a", "b"):
    run("synth", "--out", w("world_" + name), "--members", 60, "--seed", 3,
        "--pretraining-corpus", w(f"corpus_{name}.jsonl"), "--tokens", 30000)
check(digest(w("corpus_a.jsonl")) == digest(w("corpus_b.jsonl")), "the corpus differs between two runs of one seed")
docs = [json.loads(l) for l in open(w("corpus_a.jsonl"))]
check(len(docs) > 100 and all(list(d) == ["text"] and d["text"] for d in docs), f"corpus lines: {docs[:2]}")
world = w("world_a")
profiles = [json.loads(l)["query"] for split in ("train", "validation", "test") for l in open(os.path.join(world, split + ".jsonl"))]
check(len(profiles) == 60, f"{len(profiles)} profiles in the splits")
leaks = [p for p in profiles if any(p in d["text"] or d["text"] in p for d in docs)]
check(not leaks, f"{len(leaks)} split profiles in the corpus: {leaks[:1]}")
summary = json.load(open(os.path.join(world, "summary.json")))["pretraining_corpus"]
check(summary["documents"] == len(docs), f"summary: {summary}")
with open(w("corpus_train.jsonl"), "w") as f:
    f.writelines(l for l in open(w("corpus_a.jsonl")).readlines()[:-30])
with open(w("corpus_validation.jsonl"), "w") as f:
    f.writelines(open(w("corpus_a.jsonl")).readlines()[-30:])

# 2. Pretraining: the loss falls; the output is a Hugging Face directory.
run("tokenizer", "train", "--vocab-size", 512, "--input", w("corpus_train.jsonl"), "--out", w("tokenizer.json"))
run("make-checkpoint", "--out", w("shape"), "--arch", "qwen3", "--preset", "tiny", "--vocab", 512, "--seed", 1)
lm = ["train", "--objective", "lm", "--config", w("shape", "config.json"), "--tokenizer", w("tokenizer.json"),
      "--max-sequence-tokens", 128, "--lr", "1e-2", "-q"]
base = w("base")
r = report(run(*lm, "--train", w("corpus_train.jsonl"), "--validation", w("corpus_validation.jsonl"),
               "--out", base, "--steps", 40, "--batch-size", 1024))
check(r["objective"] == "lm" and r["step"] == 40 and r["train_tokens"] > 40000, f"lm report: {r}")
check(r["validation_loss"] < 0.8 * math.log(512), f"validation loss {r['validation_loss']} (ln 512 = {math.log(512):.2f})")
for name in ("config.json", "model.safetensors", "tokenizer.json", "sift.json"):
    check(os.path.exists(os.path.join(base, name)), f"base has no {name}")

# The BLAS kernels: never OpenBLAS's generic SSE3 set ("Prescott", its choice for a CPU newer
# than its table) on a CPU with AVX2 or AVX-512, unless the user asked for it by name.
flags = open("/proc/cpuinfo").read().split()
if r["blas"].startswith("OpenBLAS") and "avx2" in flags and "fma" in flags:
    check(r["blas"] != "OpenBLAS Prescott", f"trained with OpenBLAS's generic kernels on an AVX2 CPU: {r['blas']}")
    forced = subprocess.run([sift, "--threads", "1", *map(str, [*lm, "--train", w("corpus_train.jsonl"), "--out",
                                                               w("prescott"), "--steps", 1, "--batch-size", 256])],
                            capture_output=True, text=True, env={**os.environ, "OPENBLAS_CORETYPE": "Prescott"})
    check(forced.returncode == 0 and report(forced)["blas"] == "OpenBLAS Prescott",
          f"OPENBLAS_CORETYPE=Prescott set by the user was not kept: {forced.stdout} {forced.stderr}")

# A text file (a document per line) trains the same bits as the same documents as JSON lines.
flat = [" ".join(d["text"].split()) for d in docs[:80]]
with open(w("flat.jsonl"), "w") as f:
    f.writelines(json.dumps({"text": t}) + "\n" for t in flat)
with open(w("flat.txt"), "w") as f:
    f.writelines(t + "\n" for t in flat)
for name in ("flat.jsonl", "flat.txt"):
    run(*lm, "--train", w(name), "--out", w("out_" + name), "--steps", 5, "--batch-size", 1024)
check(digest(w("out_flat.jsonl", "model.safetensors")) == digest(w("out_flat.txt", "model.safetensors")),
      "a text file and its JSON lines trained different weights")

# Killed after a checkpoint and resumed: the same bits as the run straight through.
long = [*lm, "--train", w("corpus_train.jsonl"), "--steps", 60, "--batch-size", 512]
run(*long, "--out", w("straight"))
killed = w("killed")
proc = subprocess.Popen([sift, "--threads", "1", *map(str, long), "--out", killed, "--save-every", "1"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
state = os.path.join(killed, "checkpoint", "trainer.json")
while proc.poll() is None and not os.path.exists(state):
    time.sleep(0.005)
proc.kill()
proc.wait()
check(os.path.exists(state), "the run ended before its first checkpoint")
at_kill = json.load(open(state))["step"]
check(at_kill < 60 and not os.path.exists(os.path.join(killed, "model.safetensors")),
      f"killed at step {at_kill}: the run was not interrupted")
r = report(run(*long, "--out", killed, "--resume"))
check(r["step"] == 60 and r["steps_this_run"] == 60 - at_kill, f"resumed from step {at_kill}: {r}")
check(digest(w("straight", "model.safetensors")) == digest(os.path.join(killed, "model.safetensors")),
      f"killed at step {at_kill} and resumed: weights differ from the run straight through")

# 3. Scoring from the base, to the validation plateau; the best weights kept.
val = os.path.join(world, "validation.jsonl")
tune = ["train", "--init-model", base, "--train", os.path.join(world, "train.jsonl"), "--validation", val, "--pack",
        "--steps", 60, "--batch-size", 40, "--lr", "3e-3", "--early-stopping", 2, "--eval-every", 5,
        "--min-delta", "0.001", "-q"]
r = report(run(*tune, "--out", w("scorer")))
stop = r["early_stopping"]
evals = stop["evaluations"]
check([s for s, _ in evals] == list(range(5, r["step"] + 1, 5)), f"evaluations every 5 steps: {evals}")
check(stop["best"] == max(a for _, a in evals) and [s for s, a in evals if a == stop["best"]][0] == stop["best_step"],
      f"best: {stop}")
if r["stopped_early"]:
    check(r["step"] == stop["best_step"] + 2 * 5 and r["step"] < 60, f"stopped at {r['step']}: {stop}")
else:
    check(r["step"] == 60, f"neither stopped nor at the cap: {r}")
check(r["weights_step"] == stop["best_step"], f"weights of step {r['weights_step']}, best {stop['best_step']}")
artifact = json.load(open(w("scorer", "sift.json")))
check(artifact["version"].endswith(f"-step{stop['best_step']}"), f"version {artifact['version']}")
r2 = report(run(*tune, "--out", w("scorer_again")))
check(r2 == {**r, "out": w("scorer_again"), "pairs_per_second": r2["pairs_per_second"]}, f"{r} != {r2}")
check(digest(w("scorer", "model.safetensors")) == digest(w("scorer_again", "model.safetensors")),
      "early stopping is not deterministic")
# A few dozen steps on a tiny model separate little: --force (the agreement read back is what is checked).
cal = json.loads(run("calibrate", "--model", w("scorer"), "--input", val, "--target", "agreement", "--in-place",
                     "--force").stdout)
n = cal["n_items"]
check(abs(cal["agreement"] - stop["best"]) <= 1 / n + 1e-12, f"calibrated agreement {cal['agreement']} != best {stop['best']}")
check(json.load(open(w("scorer", "sift.json")))["threshold"] == cal["threshold"], "threshold not written")
ev = report(run("eval", "--model", w("scorer"), "--input", val))
check(abs(ev["agreement"] - cal["agreement"]) <= 1 / n + 1e-12, f"eval {ev['agreement']} != calibrate {cal['agreement']}")

# 4. Generation from the same base: a labeler sift score --mode generate runs.
run("train", "--init-model", base, "--train", os.path.join(world, "train.jsonl"), "--objective", "generate",
    "--steps", 3, "--batch-size", 40, "--out", w("generator"), "-q")
out = run("score", "--model", w("generator"), "--mode", "generate", "--input", val)
scored, rows = [json.loads(l) for l in out.stdout.splitlines()], [json.loads(l) for l in open(val)]
check([s["id"] for s in scored] == [r["id"] for r in rows] and
      all(len(s["labels"]) == len(r["items"]) for s, r in zip(scored, rows)) and
      scored[0]["artifact"]["version"] == "trained-generate-seed1-step3", f"generate: {out.stdout[:300]}")
print("train_pretrain_cli: all checks passed")
PY
