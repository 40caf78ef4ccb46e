#!/usr/bin/env bash
# End to end: no input, file or flag destroys data or takes a run down (hostile reproducers
# through the CLI):
#  - an output that is one of the inputs, by name, hard link, symlink or stdout redirect, is
#    refused and the input is left byte for byte (score, prompt, labels export, tokenizer
#    train; the model's own files too);
#  - a second run writing the same output, or calibrating the same labeler, fails at once
#    naming the first; the first finishes;
#  - a full disk: stdout onto /dev/full fails with one line; a file output past the file size
#    limit keeps its whole lines in <output>.partial and leaves the target as it was;
#    stdout redirected to a file is cut back to its last whole line;
#  - hostile rows (1e999 anywhere, 1e400 labels, an id nested 100,000 deep, a line over
#    --max-line-bytes, bare CR line endings) are each their row's error in score, cost, eval
#    and calibrate, and the good rows around them are scored;
#  - --threads 10000 is capped with a warning; sift train's hostile cases when sift-train is
#    built (bad flag values: exit 2; a non-finite loss, a truncated checkpoint: one line, no
#    backtrace).
# Usage: bash hostile_cli.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 13

python3 - "$SIFT" "$SRC" "$WORK" <<'PY'
import hashlib, json, os, signal, subprocess, sys, time
sift, src, work = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
model = os.path.join(work, "labeler")
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
def run(*args, code=0, stdin=None, **kw):
    out = subprocess.run([sift, *args], capture_output=True, text=True, input=stdin, **kw)
    check(out.returncode == code, f"sift {' '.join(args)}: exit {out.returncode}, expected {code}: {out.stderr}")
    return out
def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()

rows = [{"id": f"m{r}", "query": f"ten years of python member {r}", "items": ["python", "sql", "cooking"],
         "labels": [1, 0, 0]} for r in range(40)]
rows_path = os.path.join(work, "rows.jsonl")
open(rows_path, "w").write("".join(json.dumps(r) + "\n" for r in rows))
rows_digest = digest(rows_path)

# 1. Outputs over inputs are refused, whatever the path spelling.
os.link(rows_path, os.path.join(work, "hard.jsonl"))
os.symlink(rows_path, os.path.join(work, "soft.jsonl"))
for output in [rows_path, os.path.join(work, "hard.jsonl"), os.path.join(work, "soft.jsonl"),
               os.path.join(work, ".", "rows.jsonl")]:
    out = run("score", "--model", model, "--input", rows_path, "--output", output, code=1)
    check("same file as --input" in out.stderr, f"{output}: {out.stderr}")
out = run("score", "--model", model, "--input", rows_path, "--output", os.path.join(model, "model.safetensors"), code=1)
check("the model directory's file" in out.stderr, out.stderr)
out = run("prompt", "--model", model, "--input", rows_path, "--output", os.path.join(model, "tokenizer.json"), code=1)
check("same file" in out.stderr, out.stderr)
with open(rows_path, "r+") as same:  # stdout onto the input, opened without truncating it
    out = subprocess.run([sift, "score", "--model", model, "--input", rows_path], stdout=same, stderr=subprocess.PIPE, text=True)
check(out.returncode == 1 and "stdout: the output is the same file as --input" in out.stderr, out.stderr)
with open(rows_path, "rb") as stdin_file, open(rows_path, "r+") as same:  # `< rows > rows` without the shell's truncation
    out = subprocess.run([sift, "score", "--model", model], stdin=stdin_file, stdout=same, stderr=subprocess.PIPE, text=True)
check(out.returncode == 1 and "same file as stdin" in out.stderr, out.stderr)
corpus = os.path.join(work, "corpus.txt")
open(corpus, "w").write("some text\n" * 50)
out = run("tokenizer", "train", "--vocab-size", "300", "--input", corpus, "--out", corpus, code=1)
check("same file as --input" in out.stderr, out.stderr)
check(digest(rows_path) == rows_digest and open(corpus).read() == "some text\n" * 50, "an input was changed")
check(sorted(os.listdir(work)) == sorted(["labeler", "rows.jsonl", "hard.jsonl", "soft.jsonl", "corpus.txt"]),
      f"a refused run left files behind: {os.listdir(work)}")

# 2. Two runs, one output: the second fails at once naming the first, which finishes.
out_path = os.path.join(work, "out.jsonl")
first = subprocess.Popen(["bash", "-c", f'sleep 3; cat "{rows_path}"'], stdout=subprocess.PIPE)
holder = subprocess.Popen([sift, "score", "--model", model, "--output", out_path, "-q"], stdin=first.stdout,
                          stderr=subprocess.PIPE, text=True)
lock = os.path.join(work, ".out.jsonl.lock")
deadline = time.time() + 30
while not os.path.exists(lock) and time.time() < deadline:
    time.sleep(0.05)
check(os.path.exists(lock), "the first run took no lock")
out = run("score", "--model", model, "--input", rows_path, "--output", out_path, code=1)
check("another run is writing it" in out.stderr and f"pid {holder.pid}" in out.stderr, out.stderr)
check(holder.wait(60) == 0, f"the first run failed: {holder.stderr.read()}")
check(len(open(out_path).read().splitlines()) == 40 and not os.path.exists(lock), "the first run's output")
# ... and two in-place calibrations of one labeler.
first = subprocess.Popen(["bash", "-c", f'sleep 3; cat "{rows_path}"'], stdout=subprocess.PIPE)
holder = subprocess.Popen([sift, "calibrate", "--model", model, "--in-place", "-q"], stdin=first.stdout,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
lock = os.path.join(work, ".labeler.lock")
deadline = time.time() + 30
while not os.path.exists(lock) and time.time() < deadline:
    time.sleep(0.05)
out = run("calibrate", "--model", model, "--input", rows_path, "--in-place", code=1)
check("another run is writing it" in out.stderr, out.stderr)
check(holder.wait(60) == 0, f"the first calibration failed: {holder.stderr.read()}")
check(json.load(open(os.path.join(model, "sift.json")))["version"] == "e2e-1+cal1-f1", "one calibration")

# 3. A full disk.
with open("/dev/full", "w") as full:
    out = subprocess.run([sift, "score", "--model", model, "--input", rows_path], stdout=full, stderr=subprocess.PIPE, text=True)
check(out.returncode == 1 and "stdout: write failed after 0 whole lines (No space left on device)" in out.stderr, out.stderr)
open(out_path, "w").write("the old output\n")
limited = f'ulimit -f 4; exec "{sift}" score --model "{model}" --input "{rows_path}" -q'
out = subprocess.run(["bash", "-c", limited + f' --output "{out_path}"'], capture_output=True, text=True)
check(out.returncode == 1 and "they are kept in" in out.stderr and "is unchanged" in out.stderr, out.stderr)
check(open(out_path).read() == "the old output\n", "the target changed after a failed write")
kept = open(out_path + ".partial").read()
check(kept.endswith("\n") and 0 < len(kept.splitlines()) < 40, f"partial: {len(kept)} bytes")
[json.loads(l) for l in kept.splitlines()]  # whole lines only
redirected = os.path.join(work, "redirected.jsonl")
out = subprocess.run(["bash", "-c", limited + f' > "{redirected}"'], capture_output=True, text=True)
check(out.returncode == 1 and "cut back to them" in out.stderr, out.stderr)
text = open(redirected).read()
check(text.endswith("\n") and len(text.splitlines()) < 40, "stdout not cut back to a whole line")
[json.loads(l) for l in text.splitlines()]

# 4. Hostile rows: each is its row's error; the good rows around them are scored.
good = json.dumps(rows[0])
hostile = [
    '{"id": 1e999, "query": "q", "items": ["a"], "labels": [1]}',
    '{"id": "x", "query": "q", "items": ["a"], "labels": [1e400]}',
    '{"id": ' + "[" * 100000 + "]" * 100000 + ', "query": "q", "items": ["a"], "labels": [1]}',
    '{"id": "big", "query": "' + "x" * 2_000_000 + '", "items": ["a"], "labels": [1]}',
    '{"id": "s", "query": 1e999, "items": ["a"], "labels": [1]}',
]
text = good + "\n" + "\n".join(hostile) + "\r" + good + "\r\n" + good + "\r" + good
path = os.path.join(work, "hostile.jsonl")
open(path, "w").write(text)
limit = ["--max-line-bytes", "1000000"]
lines = [json.loads(l) for l in run("score", "--model", model, "--input", path, "-q", *limit).stdout.splitlines()]
check(len(lines) == 9, f"{len(lines)} output lines for 9 input lines (CR endings)")
check([("error" in l) for l in lines] == [False] + [True] * 5 + [False] * 3, f"{[l.get('error') for l in lines]}")
check("beyond the range of a double" in lines[1]["error"] and "nested deeper than 64" in lines[3]["error"]
      and "--max-line-bytes 1000000" in lines[4]["error"], f"{lines[1:5]}")
cost = json.loads(run("cost", "--model", model, "--input", path, *limit).stdout)
check(cost["rows"] == 4 and cost["errors"] == 5, f"cost: {cost}")
out = run("eval", "--model", model, "--input", path, "--shuffles", "0", *limit)
ev = json.loads(out.stdout)
check(ev["n_rows"] == 4 and ev["errors"] == 5 and out.stderr.count("(row left out)") == 5, f"eval: {ev} {out.stderr}")
out = run("calibrate", "--model", model, "--input", path, "--dry-run", *limit)
check(json.loads(out.stdout)["errors"] == 5, f"calibrate: {out.stdout}")

# 5. --threads 10000: capped with a warning, and the run works.
out = run("--threads", "10000", "score", "--model", model, "--input", rows_path)
check("per core" in out.stderr and len(out.stdout.splitlines()) == 40, out.stderr)

# 6. Training (when sift-train is built): a diverging run stops with one line; a truncated checkpoint is one line.
if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(sift)), "sift-train")):
    config = os.path.join(model, "config.json")
    tokenizer = os.path.join(model, "tokenizer.json")
    train_out = os.path.join(work, "trained")
    base = ["train", "--train", rows_path, "--config", config, "--tokenizer", tokenizer, "--out", train_out,
            "--steps", "4", "--batch-size", "8", "--save-every", "1", "-q"]
    # Bad flag values are usage errors (exit 2) before any work, whether CLI11 or the trainer finds them.
    for bad in (["--batch-size", "0"], ["--dtype", "f16"], ["--epochs", "-1"], ["--objective", "generate", "--pack"],
                ["--max-sequence-tokens", "0"], ["--clip", "nan"], ["--init-model", model]):
        out = run(*base, *bad, code=2)
        check(out.stderr.startswith("sift: error: ") and not os.path.exists(train_out), f"train {bad}: {out.stderr}")
    out = run(*base, "--lr", "1e30", "--warmup", "0", code=1)
    check("training diverged" in out.stderr and out.stderr.count("\n") <= 2, out.stderr)
    check(not os.path.exists(os.path.join(train_out, "model.safetensors")), "a diverged run wrote a model")
    run(*base, "--lr", "1e-3")
    state = os.path.join(train_out, "checkpoint", "state.pt")
    with open(state, "r+b") as f:
        f.truncate(os.path.getsize(state) // 2)
    out = run(*base, "--lr", "1e-3", "--resume", code=1)
    check("cannot read the training checkpoint" in out.stderr and "frame #" not in out.stderr
          and out.stderr.count("\n") == 1, out.stderr)
PY
echo "hostile_cli: all checks passed"
