#!/usr/bin/env bash
# End to end: what a first day with sift meets, with the bundled labeler.
#  - every command whose rows can fail says in its last line how many did, and --strict
#    makes any failed row exit 1 (score, cost, prompt, tokenize, detokenize, eval, calibrate,
#    batch, label, loadgen, and train when sift-train is built); `sift label` exits 1 when rows
#    failed and nothing was labeled;
#  - a row given to the wrong command is named as such (a row to score as a profile, a
#    profile as a row to score, a catalog entry, score output without --echo);
#  - `sift score --echo` writes rows that eval, calibrate and train read as they are, and
#    `sift batch --echo` the same lines (a job of its own: --resume without --echo refuses it);
#  - --truncate cuts a row too long for a request instead of failing it (score and batch:
#    usage.truncated_tokens; a batch job resumes only under the same truncation);
#  - `sift batch --input -` says why a job needs a file; --pretty indents output rows;
#  - `sift label --threshold` labels with that threshold and re-judges members labeled under
#    another; `sift calibrate --dry-run --out-dir` writes the curves and nothing else, and a
#    calibrated version reads as words.
# Usage: bash first_day.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

python3 - "$SIFT" "$SRC" "$WORK" <<'PY'
import json, os, shutil, subprocess, sys
sift, src, work = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
model = os.path.join(work, "labeler")
shutil.copytree(os.path.join(src, "models", "default-labeler"), model)
sample = os.path.join(src, "examples", "sample.jsonl")
catalog = os.path.join(src, "examples", "catalog.jsonl")
profiles = os.path.join(src, "examples", "profiles.jsonl")

def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)

def run(*args, code=0, stdin=None):
    out = subprocess.run([sift, *args], capture_output=True, text=True, input=stdin)
    check(out.returncode == code, f"sift {' '.join(args)}: exit {out.returncode}, expected {code}:\n{out.stderr}")
    return out

def last_line(out):
    return out.stderr.strip().splitlines()[-1]

def write(name, text):
    path = os.path.join(work, name)
    open(path, "w").write(text)
    return path

rows = [json.loads(line) for line in open(sample)]
good = json.dumps({"id": "g", "query": rows[0]["query"], "items": ["Python", "Welding"], "labels": [1, 0]})
mixed = write("mixed.jsonl", good + "\nnot json\n" + good + "\n")

# 1. The last line counts the failed rows; --strict makes one fail the run, the output complete.
for command, args, phrase in [
        ("score", ["--input", mixed], "3 rows (1 error)"),
        ("cost", ["--input", mixed], "2 rows priced, 1 row left out"),
        ("prompt", ["--input", mixed], "3 rows (1 error)"),
        ("eval", ["--input", mixed, "--shuffles", "0"], "1 row left out"),
        ("calibrate", ["--input", mixed, "--dry-run"], "1 row left out")]:
    out = run(command, "--model", model, *args)
    check(phrase in last_line(out), f"sift {command}: last line {last_line(out)!r} lacks {phrase!r}")
    strict = run(command, "--model", model, *args, "--strict", code=1)
    check("1 of 3 rows failed" in last_line(strict), f"sift {command} --strict: {last_line(strict)!r}")
    if command in ("score", "prompt"):
        check(len(strict.stdout.splitlines()) == 3, f"sift {command} --strict still writes every line")
tokenizer = os.path.join(model, "tokenizer.json")
for command, text in [("tokenize", '{"text": "a"}\nbad\n'), ("detokenize", '{"ids": [1]}\nbad\n')]:
    out = run(command, "--tokenizer", tokenizer, stdin=text)
    check(last_line(out) == f"sift {command}: 2 lines (1 error)", f"{command}: {last_line(out)!r}")
    run(command, "--tokenizer", tokenizer, "--strict", stdin=text, code=1)
    check(run(command, "--tokenizer", tokenizer, stdin=text.splitlines()[0] + "\n").stderr.strip()
          == f"sift {command}: 1 line (0 errors)", "plurals: 1 line, 0 errors")
one = run("score", "--model", model, stdin=good + "\n")
check("1 row (0 errors), 2 labels" in last_line(one), f"plurals: {last_line(one)!r}")
batch_out = os.path.join(work, "mixed_out.jsonl")
out = run("batch", "--model", model, "--input", mixed, "--output", batch_out, "--strict", code=1)
check(len(open(batch_out).read().splitlines()) == 3 and "1 of 3 rows failed" in last_line(out), last_line(out))
out = run("batch", "--model", model, "--input", mixed, "--output", batch_out, "--resume")
check("(3 rows, 1 error): nothing to do" in last_line(out), f"batch, complete job: {last_line(out)!r}")
out = run("loadgen", "--url", "http://127.0.0.1:9", "--rows", mixed, "--strict", code=1)
check("1 of 3 rows failed" in last_line(out), f"loadgen --strict, before any request: {last_line(out)!r}")
has_trainer = os.path.exists(os.path.join(os.path.dirname(os.path.abspath(sift)), "sift-train"))
train_rows = write("train.jsonl", "\n".join(json.dumps(r) for r in rows[:4]) + "\nnot json\n")
if has_trainer:  # not in a build without libtorch (the sanitize preset)
    out = run("train", "--train", train_rows, "--out", os.path.join(work, "never"), "--init-model", model,
              "--steps", "1", "--strict", code=1)
    check("before any training" in last_line(out) and
          not os.path.exists(os.path.join(work, "never", "model.safetensors")), f"train --strict: {last_line(out)!r}")

# 2. Rows of the wrong kind are named as such; a label run that labeled nothing exits 1.
as_profiles = write("rows_as_profiles.jsonl", "\n".join(json.dumps(r) for r in rows[:3]) + "\n")
out = run("label", "--model", model, "--catalog", catalog, "--profiles", as_profiles,
          "--store", os.path.join(work, "x.db"), code=1)
check("this looks like a row to score" in out.stderr and "sift label --profiles` reads profiles" in out.stderr,
      f"label on rows to score: {out.stderr}")
check("no profile was labeled, and 3 rows failed" in last_line(out), f"label exit 1: {last_line(out)!r}")
out = run("score", "--model", model, "--input", profiles, code=1)  # no row could be scored: a failed run
check("this looks like a profile" in json.loads(out.stdout.splitlines()[0])["error"] and
      "this looks like a profile" in last_line(out), out.stdout[:300])
out = run("eval", "--model", model, "--input", catalog, code=1)
check("this looks like a catalog entry" in out.stderr, out.stderr[:400])
scored = write("scored.jsonl", run("score", "--model", model, "--input", sample).stdout)
out = run("eval", "--model", model, "--input", scored, code=1)
check("sift score --echo" in out.stderr, f"eval on score output: {out.stderr[:400]}")
out = run("label", "--model", model, "--catalog", profiles, "--profiles", profiles,
          "--store", os.path.join(work, "y.db"), code=1)
check("this looks like a profile" in out.stderr and "reads entries" in out.stderr, out.stderr[:400])

# 3. --echo: the rows again, with the labeler's labels; eval, calibrate and train read them.
echoed = write("echoed.jsonl", run("score", "--model", model, "--input", sample, "--echo").stdout)
lines = [json.loads(line) for line in open(echoed)]
check(lines[0]["query"] == rows[0]["query"] and lines[0]["items"] == rows[0]["items"], "query and items as given")
check(lines[0]["input_labels"] == rows[0]["labels"] and lines[0]["truth"] == rows[0]["truth"], "the row's own fields")
check([l["scores"] for l in lines] == [json.loads(l)["scores"] for l in open(scored)], "the scores of sift score")
report = json.loads(run("eval", "--model", model, "--input", echoed, "--shuffles", "0").stdout)
check(report["agreement"] == 1.0 and report["n_items"] == sum(len(r["items"]) for r in rows),
      f"a labeler agrees with its own labels: {report['agreement']}")
run("calibrate", "--model", model, "--input", echoed, "--dry-run")
echo_job = os.path.join(work, "echo_job.jsonl")
run("batch", "--model", model, "--input", sample, "--output", echo_job, "--echo")
check(open(echo_job).read() == open(echoed).read(), "sift batch --echo writes sift score --echo's lines")
out = run("batch", "--model", model, "--input", sample, "--output", echo_job, "--resume", code=1)
check("echo is absent in this run, true in the job" in out.stderr, f"resume without --echo: {out.stderr}")
run("batch", "--model", model, "--input", sample, "--output", echo_job, "--resume", "--echo")
mixed_echo = os.path.join(work, "mixed_echo.jsonl")
run("batch", "--model", model, "--input", mixed, "--output", mixed_echo, "--echo")
check(open(mixed_echo).read() == run("score", "--model", model, "--input", mixed, "--echo").stdout,
      "an error line in sift batch --echo's output is sift score --echo's")
if has_trainer:
    trained = json.loads(run("train", "--train", echoed, "--out", os.path.join(work, "student"), "--init-model", model,
                             "--steps", "1", "--batch-size", "8").stdout)
    check(trained["rows_left_out"] == 0, f"train reads echoed rows: {trained}")

# 4. --truncate: a row too long for the request limit is cut instead of failed.
long_query = "\n".join(r["query"] for r in rows[:8])
long_row = write("long.jsonl", json.dumps({"id": "long", "query": long_query, "items": ["Python", "Go"]}) + "\n")
failed = json.loads(run("score", "--model", model, "--input", long_row, "--max-request-tokens", "300", code=1).stdout)
check("more than the request limit" in failed["error"], f"without --truncate: {failed}")
cut = json.loads(run("score", "--model", model, "--input", long_row, "--max-request-tokens", "300",
                     "--truncate", "query").stdout)
check(cut["usage"]["truncated_tokens"] > 0 and len(cut["scores"]) == 2, f"--truncate query: {cut}")
left = json.loads(run("score", "--model", model, "--input", long_row, "--max-request-tokens", "300",
                      "--truncate", "query", "--truncation-direction", "left").stdout)
check(left["scores"] != cut["scores"], "left keeps another part of the text than right")
run("score", "--model", model, "--input", long_row, "--truncate", "query", "--mode", "generate", code=2)
job = os.path.join(work, "cut.jsonl")
run("batch", "--model", model, "--input", long_row, "--output", job, "--max-request-tokens", "300", "--truncate", "query")
check(json.loads(open(job).readline())["scores"] == cut["scores"], "batch cuts as score does")
out = run("batch", "--model", model, "--input", long_row, "--output", job, "--max-request-tokens", "300", "--resume",
          code=1)
check("truncate" in out.stderr and "not the job being resumed" in out.stderr, f"resume under other truncation: {out.stderr}")

# 5. batch reads a file, never stdin; --pretty indents rows.
out = run("batch", "--model", model, "--input", "-", "--output", os.path.join(work, "o.jsonl"), code=2)
check("a job is resumable because it can read its input again" in out.stderr and "sift score" in out.stderr, out.stderr)
pretty = run("--pretty", "score", "--model", model, stdin=good + "\n").stdout
check(pretty.startswith("{\n  \"id\"") and json.loads(pretty)["labels"] == json.loads(one.stdout)["labels"],
      f"--pretty rows: {pretty[:80]!r}")

# 6. sift label --threshold: labels under it, re-judging members labeled under another.
store = os.path.join(work, "labels.db")
base = ["label", "--model", model, "--catalog", catalog, "--profiles", profiles, "--store", store, "--k", "10"]
first = json.loads(run(*base).stdout)
again = json.loads(run(*base).stdout)
check(again["judged"] == 0 and again["skipped_unchanged"] == first["profiles"], f"unchanged: {again}")
high = json.loads(run(*base, "--threshold", "0.99").stdout)
check(high["judged"] == first["profiles"] and high["accepted"] < first["accepted"], f"--threshold 0.99: {high}")
member = json.loads(run("labels", "get", "--store", store, "--member", rows[0]["id"]).stdout)
check(member["threshold"] == 0.99 and all(j["label"] == (j["score"] >= 0.99) for j in member["judgments"]), member)
run(*base, "--threshold", "1.5", code=2)

# 7. calibrate --dry-run --out-dir: the curves, nothing else; versions read as words.
before = open(os.path.join(model, "sift.json")).read()
curves = os.path.join(work, "curves")
report = json.loads(run("calibrate", "--model", model, "--input", sample, "--target", "precision=0.9",
                        "--dry-run", "--out-dir", curves).stdout)
check(sorted(os.listdir(curves)) == ["pr_curve.gp", "pr_curve.png", "pr_curve.tsv", "score_histogram.tsv"],
      f"curve files: {os.listdir(curves)}")
check(open(os.path.join(model, "sift.json")).read() == before, "a dry run changed sift.json")
check(report["version"].endswith("+cal2-precision-0.9") and report["curve"] == os.path.join(curves, "pr_curve.tsv"),
      f"the version a calibration would write: {report}")
print("first_day: all checks passed", file=sys.stderr)
PY
