#!/usr/bin/env bash
# End to end: the command line behaves one way for every command (docs/cli.md):
# global options before or after the subcommand, exit codes 0/1/2 with one "sift: error:" line,
# stdin for every --input, one-line JSON reports (--pretty), provenance on scored lines,
# --strict, --quiet, sift --version, calibrate's --dry-run / --out / --in-place and history,
# --dump-generations, and a scoring binary without libtorch or OpenBLAS. One rule per kind of
# flag: every decimal flag of every command (found in its --help) refuses NaN and infinity,
# every thread-count flag refuses 0, bad values found by the library (--k, --shard, --split,
# --ids, ...) are usage errors too, all before any work; --weights on every command that loads
# a model gives the scores of `sift score --weights q8`.
# Usage: bash cli_contract.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The scoring binary links neither libtorch (training is sift-train) nor OpenBLAS (benchmarks only).
# Library names only (ldd's first field): a load address such as 0x...c1000 must not match "c10".
if ldd "$SIFT" | awk '{print $1}' | grep -Ei 'torch|c10|openblas|libblas'; then fail "sift links libtorch or OpenBLAS"; fi

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 11

python3 - "$SIFT" "$WORK" <<'PY'
import hashlib, json, os, random, re, subprocess, sys
sift, work = sys.argv[1:3]
model = os.path.join(work, "labeler")
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
def run(*args, code=0, stdin=None, cwd=None):
    out = subprocess.run([sift, *args], capture_output=True, text=True, input=stdin, cwd=cwd)
    check(out.returncode == code, f"sift {' '.join(args)}: exit {out.returncode}, expected {code}: {out.stderr}")
    if code != 0:
        errors = [l for l in out.stderr.splitlines() if l.startswith("sift: error: ")]
        check(len(errors) == 1 and "Traceback" not in out.stderr, f"sift {' '.join(args)}: {out.stderr!r}")
    return out
def snapshot(directory):
    state = {}
    for root, _, files in os.walk(directory):
        for f in files:
            p = os.path.join(root, f)
            state[os.path.relpath(p, directory)] = (os.stat(p).st_mtime_ns, hashlib.sha256(open(p, "rb").read()).hexdigest())
    return state

# Random labels for a random labeler: its scores separate nothing, so calibrate runs with --force.
rng = random.Random(5)
words = ["python", "sql", "spark", "nursing", "welding", "french", "excel", "kubernetes", "acls", "cooking"]
rows = []
for r in range(30):
    items = rng.sample(words, 4)
    rows.append({"id": f"m{r}", "query": " ".join(rng.sample(words, 3)), "items": items,
                 "labels": [rng.randint(0, 1) for _ in items]})
rows_path = os.path.join(work, "rows.jsonl")
text = "".join(json.dumps(r) + "\n" for r in rows)
open(rows_path, "w").write(text)

# --version; --help; global options before or after the subcommand, same output.
version = run("--version").stdout
built_from = re.search(r"\(commit ([0-9a-f]{7,}(-dirty)?|unknown), ", version)
check(version.startswith("sift ") and built_from, f"--version: {version!r}")
check("score" in run("--help").stdout, "--help lists the commands")
before = run("--threads", "1", "-q", "score", "--model", model, "--input", rows_path)
after = run("score", "--model", model, "--input", rows_path, "--threads", "1", "--quiet")
check(before.stdout == after.stdout and before.stderr == after.stderr == "", "global options after the subcommand")
run("score", "--model", model, "--input", rows_path, "--threads", "0", code=2)
run("--threads", "-2", "score", "--model", model, "--input", rows_path, code=2)

# Exit codes: usage 2, runtime 1.
run("score", "--input", rows_path, code=2)                                # missing --model
run("score", "--model", model, "--bogus", code=2)                         # unknown flag
run("score", "--model", model, "--mode", "fast", code=2)                  # bad value
run("eval", "--model", model, "--threshold", "nan", code=2)
run("nosuchcommand", code=2)

# Every decimal flag (FLOAT in a --help) of every command and subcommand, sift-train's too when
# built: NaN and infinity are usage errors naming the flag; every thread-count flag refuses 0;
# every text flag given an empty value is a usage error naming it (never its default).
import re
def help_of(path):
    out = subprocess.run([sift, *path, "--help"], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else ""  # `sift train` without sift-train
def command_paths(path=()):
    yield path
    usage = help_of(path)
    listed = usage.split("Subcommands:")[1] if "Subcommands:" in usage else ""
    for name in re.findall(r"^  ([a-z][a-z-]*)  ", listed, re.M):
        yield from command_paths(path + (name,))
decimal_flags, thread_flags, text_flags = [], [], []
for path in command_paths():
    usage = help_of(path)
    decimal_flags += [(path, f) for f in re.findall(r"^\s+(?:-\w,)?(--[a-z0-9-]+)(?:,\S+)? FLOAT\b", usage, re.M)]
    thread_flags += [(path, f) for f in re.findall(r"^\s+(--[a-z-]*threads) INT\b", usage, re.M)]
    text_flags += [(path, f) for f in re.findall(r"^\s+(--[a-z0-9-]+) TEXT(?: REQUIRED| \.\.\.)?(?:\s|$)", usage, re.M)]
for expected in [(("batch",), "--checkpoint-seconds"), (("serve",), "--max-body-mb"), (("loadgen",), "--p99-ms"),
                 (("synth",), "--noise"), (("label",), "--stop-below"), (("make-checkpoint",), "--rope-theta")]:
    check(expected in decimal_flags, f"{expected} not found in --help: {decimal_flags}")
check({((), "--threads"), (("batch",), "--tokenize-threads"), (("serve",), "--threads")} <= set(thread_flags),
      f"thread flags: {thread_flags}")
for path, flag in decimal_flags:
    for value in ("nan", "inf"):
        out = run(*path, flag, value, code=2)
        check(out.stderr.startswith(f"sift: error: {flag}: must be a "), f"{path} {flag} {value}: {out.stderr}")
for path, flag in thread_flags:
    check(run(*path, flag, "0", code=2).stderr.startswith(f"sift: error: {flag}: "), f"{path} {flag} 0")
check({(("init",), "--artifact-version"), (("init",), "--instruction"), (("score",), "--output"),
       (("batch", "merge"), "--output")} <= set(text_flags), f"text flags: {text_flags}")
for path, flag in text_flags:
    out = run(*path, flag, "", code=2, cwd=work)
    check(out.stderr.startswith(f"sift: error: {flag}: the value is empty"), f"{path} {flag} '': {out.stderr}")

# Bad values the library finds are usage errors too (exit 2), found before any work.
new_dir = os.path.join(work, "synth-new")
for args in (["--noise", "2"], ["--members", "0"], ["--split", "0.5,0.5"], ["--candidates", "0"]):
    run("synth", "--out", new_dir, *args, code=2)
    check(not os.path.exists(new_dir), f"synth {args}: the refused run created --out")
run("logits", "--model", model, "--ids", "1,x", code=2)
run("logits", "--model", model, "--ids", "1", "--vocab", "-3", code=2)
loadgen = ["loadgen", "--url", "http://127.0.0.1:9", "--rows", rows_path]
for args, message in [(["--route", "score"], "--route score needs --label-token-ids"),
                      (["--closed-loop", "--find-max"], "--closed-loop excludes --find-max"),
                      (["--rate", "1000000", "--duration", "100"], "at most 10000000 per run")]:
    check(message in run(*loadgen, *args, code=2).stderr, f"loadgen {args}")
# `sift init --version` is sift's version, as for every command (the sift.json version is --artifact-version).
check(run("init", "--version").stdout == version, "sift init --version")
run("score", "--model", os.path.join(work, "missing"), "--input", rows_path, code=1)
run("cost", "--model", model, "--input", os.path.join(work, "missing.jsonl"), code=1)

# stdin for every --input: omitted, or "-".
scored = before.stdout
check(run("score", "--model", model, "-q", stdin=text).stdout == scored, "score from stdin")
check(run("score", "--model", model, "-q", "--input", "-", stdin=text).stdout == scored, "score --input -")
cost_file = run("cost", "--model", model, "--input", rows_path).stdout
check(run("cost", "--model", model, "--input", "-", stdin=text).stdout == cost_file, "cost from stdin")
ev_file = json.loads(run("eval", "--model", model, "--input", rows_path, "--shuffles", "0", "-q").stdout)
ev_stdin = json.loads(run("eval", "--model", model, "--shuffles", "0", "-q", stdin=text).stdout)
check(ev_file["agreement"] == ev_stdin["agreement"], "eval from stdin")

# One-line JSON reports; --pretty indents them.
for report in (cost_file, run("eval", "--model", model, "--input", rows_path, "--shuffles", "0", "-q").stdout):
    check(report.count("\n") == 1, f"a report is one line: {report!r}")
check(run("cost", "--model", model, "--input", rows_path, "--pretty").stdout.count("\n") > 5, "--pretty")

# Every scored line says what made it; --threshold is what it records.
lines = [json.loads(l) for l in scored.splitlines()]
check(all(l["artifact"] == {"version": "e2e-1", "threshold": 0.5} for l in lines), f"provenance: {lines[0]}")
low = json.loads(run("score", "--model", model, "--input", rows_path, "--threshold", "0.25", "-q").stdout.splitlines()[0])
check(low["artifact"]["threshold"] == 0.25, f"--threshold provenance: {low}")
# Output labels feed eval as they are (true/false labels are read like 0/1).
relabeled = "".join(json.dumps(dict(r, labels=l["labels"])) + "\n" for r, l in zip(rows, lines))
ev = json.loads(run("eval", "--model", model, "--shuffles", "0", "-q", stdin=relabeled).stdout)
check(ev["agreement"] == 1.0 and ev["errors"] == 0, f"score labels as eval reference: {ev}")

# --strict: a bad row is an error line either way; with --strict the run exits 1.
bad = text + "not json\n"
out = run("score", "--model", model, "-q", stdin=bad)
check(json.loads(out.stdout.splitlines()[-1])["line"] == 31, "error line in place")
out = run("score", "--model", model, "--strict", stdin=bad, code=1)
check(out.stdout.count("\n") == 31 and "--strict" in out.stderr, f"--strict: {out.stderr}")
# The commands that leave a bad row out of a report (cost, eval, calibrate): the report of the
# good rows without --strict; with it, exit 1 and nothing written: no report, no file.
for command, extra in (("cost", []), ("eval", ["--shuffles", "0"]), ("calibrate", ["--dry-run", "--force"])):
    out = run(command, "--model", model, "-q", *extra, stdin=bad)
    check(json.loads(out.stdout)["errors"] == 1 and "(row left out)" in out.stderr, f"{command} without --strict: {out}")
    check(json.loads(run(command, "--model", model, "-q", "--strict", *extra, stdin=text).stdout)["errors"] == 0,
          f"{command} --strict on good rows")
    state = snapshot(work)
    out = run(command, "--model", model, "-q", "--strict", *extra, stdin=bad, code=1)
    check(out.stdout == "" and "1 of 31 rows failed (left out, with the warnings above); --strict" in out.stderr and snapshot(work) == state,
          f"{command} --strict: {out.stdout!r} {out.stderr}")
strict_copy = os.path.join(work, "strict-copy")
for mode in (["--out", strict_copy], ["--in-place"]):
    state = snapshot(work)
    out = run("calibrate", "--force", "--model", model, "-q", "--strict", *mode, stdin=bad, code=1)
    check(out.stdout == "" and snapshot(work) == state and not os.path.exists(strict_copy),
          f"calibrate --strict {mode} wrote something: {out.stderr}")

# Progress: a summary line on stderr (not a terminal: plain lines); nothing with --quiet.
out = run("score", "--model", model, "--input", rows_path)
check(out.stderr.startswith("sift score: ") and "30 rows" in out.stderr, f"progress summary: {out.stderr!r}")

# Mode generate: the random model's answers are mostly unparsed: a warning, and the raw generations on request.
dump = os.path.join(work, "generations.jsonl")
out = run("score", "--model", model, "--input", rows_path, "--mode", "generate", "--dump-generations", dump, "-q")
check("could not be parsed" in out.stderr and "--dump-generations" in out.stderr, f"unparsed warning: {out.stderr}")
dumped = [json.loads(l) for l in open(dump)]
check(len(dumped) == 30 and all(isinstance(d["generations"][0], str) for d in dumped), f"dump: {dumped[0]}")
run("score", "--model", model, "--input", rows_path, "--dump-generations", dump, code=2)  # needs --mode generate

# --weights q8 on every command that loads a model: the scores of `sift score --weights q8`
# (batch, serve and label: batch_cli.sh, serve_api.sh, label_cli.sh).
q8_lines = [json.loads(l) for l in run("score", "--model", model, "--input", rows_path, "--weights", "q8", "-q").stdout.splitlines()]
q8_scores = [s for l in q8_lines for s in l["scores"]]
check(q8_scores != [s for l in lines for s in l["scores"]], "q8 scores are f32's")
# eval: at a threshold between an item's q8 and f32 scores, q8's labels are the reference only q8 meets.
t = max(max(q, f) for q, f in zip(q8_scores, (s for l in lines for s in l["scores"])) if q != f)
q8_reference = "".join(json.dumps(dict(r, labels=[s >= t for s in l["scores"]])) + "\n" for r, l in zip(rows, q8_lines))
evals = {w: json.loads(run("eval", "--model", model, "--shuffles", "0", "-q", "--threshold", repr(t), "--weights", w,
                           stdin=q8_reference).stdout)["agreement"] for w in ("q8", "auto")}
check(evals["q8"] == 1.0 and evals["auto"] < 1, f"eval --weights q8 against q8's labels: {evals}")
def best_f1_threshold(scores, truth):  # workflows/calibration.h: the highest F1, ties to the higher threshold
    best = None
    for t in sorted(set(scores), reverse=True):
        tp = sum(s >= t and y for s, y in zip(scores, truth))
        fp = sum(s >= t and not y for s, y in zip(scores, truth))
        f1 = 2 * tp / (2 * tp + fp + (sum(truth) - tp)) if tp else 0.0
        if best is None or f1 > best[0]:
            best = (f1, t)
    return best[1]
truth = [y for r in rows for y in r["labels"]]
cal = json.loads(run("calibrate", "--force", "--model", model, "--input", rows_path, "--dry-run", "--weights", "q8", "-q").stdout)
check(cal["threshold"] == best_f1_threshold(q8_scores, truth), f"calibrate --weights q8: {cal}")

# calibrate: one of --dry-run / --out / --in-place (usage error otherwise); --dry-run writes nothing.
run("calibrate", "--force", "--model", model, "--input", rows_path, code=2)
run("calibrate", "--force", "--model", model, "--input", rows_path, "--dry-run", "--in-place", code=2)
state = snapshot(work)
dry = run("calibrate", "--force", "--model", model, "--input", rows_path, "--dry-run")
check(snapshot(work) == state, "--dry-run wrote something")
report = json.loads(dry.stdout)
check(report["dry_run"] and report["version"] == "e2e-1+cal1-f1" and "sift_json" not in report, f"dry run: {report}")
check("only 120 items and" in dry.stderr, f"small validation set warning: {dry.stderr}")
# --out NEW_DIR: a calibrated copy; the labeler itself untouched; an existing folder refused.
copy = os.path.join(work, "calibrated")
model_before = snapshot(model)
out = json.loads(run("calibrate", "--force", "--model", model, "--input", rows_path, "--out", copy, "-q").stdout)
check(snapshot(model) == model_before, "--out changed a file of the labeler")
check(json.load(open(os.path.join(model, "sift.json")))["version"] == "e2e-1", "--out changed the labeler")
copied = json.load(open(os.path.join(copy, "sift.json")))
check(copied["version"] == "e2e-1+cal1-f1" and copied["threshold"] == report["threshold"], f"copy: {copied}")
check(os.path.exists(os.path.join(copy, "calibration", "pr_curve.png")) and out["sift_json"].startswith(copy), f"{out}")
check(open(os.path.join(copy, "model.safetensors"), "rb").read() == open(os.path.join(model, "model.safetensors"), "rb").read(),
      "the copy's weights")
run("calibrate", "--force", "--model", model, "--input", rows_path, "--out", copy, code=1)
# --in-place twice: the history keeps both, with the versions and thresholds they replaced.
run("calibrate", "--force", "--model", model, "--input", rows_path, "--in-place", "-q")
run("calibrate", "--force", "--model", model, "--input", rows_path, "--in-place", "--target", "recall=0.9", "-q")
art = json.load(open(os.path.join(model, "sift.json")))
history = art["calibrations"]
check([h["version"] for h in history] == ["e2e-1+cal1-f1", "e2e-1+cal2-recall-0.9"], f"history: {history}")
check(history[0]["previous_version"] == "e2e-1" and history[0]["previous_threshold"] == 0.5, f"{history[0]}")
check(history[1]["previous_threshold"] == history[0]["threshold"] and art["threshold"] == history[1]["threshold"], f"{art}")
check(art["note"] == "kept across versions", "other fields kept")

# sift train runs the trainer executable (or says it was not built).
out = subprocess.run([sift, "train", "--help"], capture_output=True, text=True)
trainer = os.path.join(os.path.dirname(os.path.abspath(sift)), "sift-train")
if os.path.exists(trainer):
    check(out.returncode == 0 and "--train" in out.stdout, f"sift train --help: {out.returncode} {out.stderr}")
else:
    check(out.returncode == 1 and "--target sift-train" in out.stderr, f"no trainer: {out.stderr}")
PY
echo "cli_contract: all checks passed"
