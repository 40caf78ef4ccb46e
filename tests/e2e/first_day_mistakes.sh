#!/usr/bin/env bash
# End to end: the mistakes of a first day with sift, and what sift says of each.
#  - an input none of whose rows could be used is a failed run (exit 1), never a success of
#    error lines: `sift score` and `sift batch` name its shape (one JSON array, JSON spread
#    over lines, CSV, rows with other field names) or say it is empty, and still write the error
#    lines; an input with a good row keeps its error lines and exit 0; a shard given no line is
#    no failure;
#  - command-line slips are named first: an unknown option or command, with the name it may have
#    meant; a --model that does not exist, or is no labeler (what a labeler holds); `sift serve`
#    failing to load says no word of a signal it never received; `sift train` without the
#    trainer beside it says how to build it;
#  - `sift calibrate` refuses scores that separate nothing (a random checkpoint), writing
#    nothing, unless --force; the bundled labeler calibrates on the sample as before.
# Usage: bash first_day_mistakes.sh <sift-binary> <source-dir>
set -euo pipefail
exec python3 - "$1" "$2" <<'PY'
import atexit, gzip, json, os, shutil, subprocess, sys, tempfile
sift, src = sys.argv[1], os.path.abspath(sys.argv[2])
work = tempfile.mkdtemp()
atexit.register(shutil.rmtree, work, True)
model = os.path.join(src, "models", "default-labeler")  # read only: nothing here writes to it
sample = os.path.join(src, "examples", "sample.jsonl")
rows = [json.loads(line) for line in open(sample)]

def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)

def run(*args, code=0, stdin=None, binary=sift):
    out = subprocess.run([binary, *args], capture_output=True, text=True, input=stdin, timeout=240)
    check(out.returncode == code, f"sift {' '.join(args)}: exit {out.returncode}, expected {code}:\n{out.stderr}")
    return out

def error_line(out):
    errors = [l for l in out.stderr.splitlines() if l.startswith("sift: error: ")]
    check(len(errors) == 1, f"one error line: {out.stderr!r}")
    return errors[0]

def write(name, text, opener=open):
    path = os.path.join(work, name)
    with opener(path, "wt") as f:
        f.write(text)
    return path

# 1. Input no row of which could be used: exit 1, its shape named, the error lines written.
JSON_LINES = 'JSON lines: one row per line, {"id", "query", "items"}'
inputs = {
    "array.json": (json.dumps(rows[:3]) + "\n", 1, "the input is one JSON array, not " + JSON_LINES),
    "pretty.json": (json.dumps(rows[:2], indent=2) + "\n", None, "the input is one JSON array, not " + JSON_LINES),
    "object.json": (json.dumps(rows[0], indent=2) + "\n", None, "the input is JSON spread over several lines"),
    "rows.csv": ("id,query,items\nm1,ten years of python,Python\n", 2, "the input looks like CSV"),
    "fields.jsonl": ("".join(json.dumps({"question": r["query"], "candidates": r["items"]}) + "\n" for r in rows[:3]), 3,
                     "got fields candidates, question; expected id, query, items"),
    "blank.jsonl": ("\n \n", 2, "the input holds only blank lines"),
}
for name, (text, lines, phrase) in inputs.items():
    path = write(name, text)
    lines = lines or text.count("\n")
    out = run("score", "--model", model, "--input", path, code=1)
    failed = ("one row could not be scored (its error line is in stdout)" if lines == 1 else
              f"none of the input's {lines} rows could be scored (their error lines are in stdout)")
    check(phrase in error_line(out) and failed in error_line(out),
          f"score {name}: {error_line(out)!r} lacks {phrase!r}")
    check(len(out.stdout.splitlines()) == lines and all("error" in json.loads(l) for l in out.stdout.splitlines()),
          f"score {name} still writes its error lines: {out.stdout[:300]!r}")
    job = os.path.join(work, name + ".out.jsonl")
    out = run("batch", "--model", model, "--input", path, "--output", job, code=1)
    check(phrase in error_line(out) and job in error_line(out), f"batch {name}: {error_line(out)!r}")
    check(len(open(job).read().splitlines()) == lines, f"batch {name} still writes its error lines")
# The per-row error says the same of a row with other fields.
first = json.loads(run("score", "--model", model, "--input", os.path.join(work, "fields.jsonl"), code=1).stdout.splitlines()[0])
check(first["error"] == 'missing field "query": got fields candidates, question; expected id, query, items', first)
# batch reads its shape through the input's compression.
packed = write("array.json.gz", json.dumps(rows[:3]) + "\n", gzip.open)
out = run("batch", "--model", model, "--input", packed, "--output", os.path.join(work, "gz.out.jsonl"), code=1)
check("one JSON array" in error_line(out), error_line(out))
# An empty input: said so, exit 1 (stdin too).
empty = write("empty.jsonl", "")
for out in (run("score", "--model", model, "--input", empty, code=1), run("score", "--model", model, stdin="", code=1),
            run("batch", "--model", model, "--input", empty, "--output", os.path.join(work, "empty.out"), code=1)):
    check("the input is empty: no row to score" in error_line(out), error_line(out))
# One good row among bad ones: error lines, exit 0, as before; a shard given no line: exit 0.
good = json.dumps({"id": "g", "query": rows[0]["query"], "items": ["Python", "Welding"]})
mixed = write("mixed.jsonl", "not json\n" + good + "\n" + json.dumps({"question": "q"}) + "\n")
check(len(run("score", "--model", model, "--input", mixed).stdout.splitlines()) == 3, "mixed rows are scored")
run("batch", "--model", model, "--input", mixed, "--output", os.path.join(work, "mixed.out"))
two = write("two.jsonl", good + "\n" + good + "\n")
out = run("batch", "--model", model, "--input", two, "--output", os.path.join(work, "shard3.out"), "--shard", "3/3")
check(json.loads(out.stdout)["rows"] == 0, f"an empty shard: {out.stdout}")

# 2. Command-line slips, named first.
out = run("score", "--modle", model, "--input", two, code=2)
check(error_line(out) == "sift: error: unknown option --modle; did you mean --model?", error_line(out))
out = run("batch", "--model", model, "--input", two, "--outptu", os.path.join(work, "x"), code=2)
check(error_line(out) == "sift: error: unknown option --outptu; did you mean --output?", error_line(out))
out = run("score", "--model", model, "--bogus", code=2)
check(error_line(out) == "sift: error: unknown option --bogus", error_line(out))
out = run("scroe", "--model", model, code=2)
check(error_line(out).startswith("sift: error: unknown command scroe; did you mean score? The commands: batch, calibrate,")
      and "serve" in error_line(out), error_line(out))
out = run("batch", "merg", code=2)
check(error_line(out) == "sift: error: unknown command batch merg; did you mean merge? The commands of sift batch: merge",
      error_line(out))
check("sift needs a command: batch, calibrate" in error_line(run(code=2)), "no command")
missing = os.path.join(work, "no-such-labeler")
out = run("score", "--model", missing, "--input", two, code=1)
check(error_line(out) == f"sift: error: {missing}: does not exist", error_line(out))
bare = os.path.join(work, "not-a-labeler")
os.mkdir(bare)
write("not-a-labeler/notes.txt", "x")
out = run("eval", "--model", bare, "--input", sample, code=1)
check(f"{bare}: not a labeler directory" in error_line(out) and
      all(f in error_line(out) for f in ("config.json", "model.safetensors", "tokenizer.json", "sift.json")), error_line(out))
check("not a directory" in error_line(run("score", "--model", sample, "--input", two, code=1)), "a file as --model")
# sift serve whose load fails: its error, and no word of a signal.
out = run("serve", "--model", missing, "--port", "0", code=1)
check("does not exist" in error_line(out) and "signal" not in out.stderr, f"serve: {out.stderr!r}")
# sift train with no sift-train beside this sift (a `make demo` build): how to build it.
alone = os.path.join(work, "bin")
os.mkdir(alone)
shutil.copy(sift, alone)
out = run("train", "--train", sample, "--out", os.path.join(work, "t"), code=1, binary=os.path.join(alone, "sift"))
check("--target sift-train" in error_line(out) and "sift-train: not found" in error_line(out), error_line(out))

# 3. calibrate refuses scores that separate nothing, unless --force; the bundled labeler calibrates.
random_labeler = os.path.join(work, "random")
run("make-checkpoint", "--out", random_labeler, "--arch", "qwen3", "--preset", "tiny", "--seed", "1",
    "--tokenizer", os.path.join(model, "tokenizer.json"))
shutil.copy(os.path.join(model, "sift.json"), random_labeler)
run("selftest", "--model", random_labeler, "--write")  # its own weights' probes: a labeler, random
before = open(os.path.join(random_labeler, "sift.json")).read()
for mode in (["--dry-run"], ["--in-place"]):
    out = run("calibrate", "--model", random_labeler, "--input", sample, *mode, code=1)
    check("the scores do not separate YES from NO" in error_line(out) and "average precision 0." in error_line(out) and
          "positive rate 0.37" in error_line(out) and "--force" in error_line(out) and out.stdout == "",
          f"calibrate {mode}: {out.stderr}")
check(open(os.path.join(random_labeler, "sift.json")).read() == before and
      not os.path.exists(os.path.join(random_labeler, "calibration")), "a refused calibration wrote nothing")
out = run("calibrate", "--model", random_labeler, "--input", sample, "--dry-run", "--force")
check(json.loads(out.stdout)["n_items"] == 800 and "do not separate YES from NO" in out.stderr and
      "--force: calibrated anyway" in out.stderr, f"--force: {out.stderr}")
out = run("calibrate", "--model", model, "--input", sample, "--dry-run")
report = json.loads(out.stdout)
check(report["average_precision"] > 0.9 and "separate" not in out.stderr, f"the bundled labeler: {out.stderr}")
print("first_day_mistakes: all checks passed", file=sys.stderr)
PY
