#!/usr/bin/env bash
# End to end: a symbolic link (or FIFO, directory, hard link) planted beside an output, at a
# name where sift keeps a file of its own, never leads sift to write the file it names. The
# victim is the run's input; after every run it must be byte for byte as it was, and the run
# either refuses, naming what was planted, or works without following it:
#  - the lock file .OUT.lock of sift score --output, sift batch, sift calibrate --in-place and
#    sift tokenizer train --out: refused (exit 1), the output not written;
#  - OUT.partial of sift score after a failed write (a file-size limit): replaced, not followed;
#  - sift batch's OUT.progress.tmp (the name an earlier sift wrote its checkpoint through):
#    the job runs;
#  - sift batch's tail file OUT.progress.tail on --resume of a zstd job: refused.
# Usage: bash hostile_links.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 17

python3 - "$SIFT" "$WORK" <<'PY'
import hashlib, json, os, subprocess, sys
sift, work = sys.argv[1], sys.argv[2]
model = os.path.join(work, "labeler")
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
def run(*args, code=0, shell_prefix=None):
    argv = [sift, *args]
    if shell_prefix:
        argv = ["bash", "-c", shell_prefix + ' exec "$@"', "bash", *argv]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    check(out.returncode == code, f"sift {' '.join(args)}: exit {out.returncode}, expected {code}: {out.stderr}")
    return out
def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()
def plant(at, kind="link"):
    if os.path.lexists(at):
        os.remove(at)
    if kind == "link":
        os.symlink(rows, at)
    elif kind == "fifo":
        os.mkfifo(at)
    elif kind == "hard":
        os.link(rows, at)
def unplant(at):
    if os.path.isdir(at) and not os.path.islink(at):
        os.rmdir(at)
    elif os.path.lexists(at):
        os.remove(at)

rows = os.path.join(work, "rows.jsonl")
lines = [{"id": f"m{r}", "query": f"ten years of python member {r}", "items": ["python", "sql", "cooking"],
          "labels": [1, 0, 0]} for r in range(40)]
open(rows, "w").write("".join(json.dumps(r) + "\n" for r in lines))
rows_digest = digest(rows)
def victim_intact(what):
    check(os.path.isfile(rows) and not os.path.islink(rows) and digest(rows) == rows_digest,
          f"{what}: the input was changed through what was planted")

# The lock file, for every command that takes one.
out = os.path.join(work, "out.jsonl")
corpus = os.path.join(work, "corpus.txt")
open(corpus, "w").write("some text\n" * 50)
tokenizer_out = os.path.join(work, "tok.json")
commands = [
    (["score", "--model", model, "--input", rows, "--output", out], out),
    (["tokenizer", "train", "--vocab-size", "300", "--input", corpus, "--out", tokenizer_out], tokenizer_out),
    (["calibrate", "--model", model, "--input", rows, "--in-place"], model),
    (["batch", "--model", model, "--input", rows, "--output", out], out),
]
for args, target in commands:
    lock = os.path.join(os.path.dirname(target), "." + os.path.basename(target) + ".lock")
    for kind, said in (("link", "is a symbolic link"), ("fifo", "is not a regular file (a FIFO)"),
                       ("hard", "has other names")):
        plant(lock, kind)
        res = run("--threads", "1", "-q", *args, code=1)
        check(lock in res.stderr and said in res.stderr and res.stderr.count("\n") == 1,
              f"{args[0]} with {kind} as its lock: {res.stderr}")
        victim_intact(f"{args[0]}, lock {kind}")
        check(target == model or not os.path.exists(target), f"{args[0]}: wrote its output past a planted lock")
        unplant(lock)
json.loads(open(os.path.join(model, "sift.json")).read())  # the labeler as it was, whole

# OUT.partial after a failed write: replaced by the lines kept, never written through.
partial = out + ".partial"
plant(partial)
res = run("score", "--model", model, "--input", rows, "--output", out, "-q", code=1, shell_prefix="ulimit -f 4;")
check("they are kept in" in res.stderr, res.stderr)
victim_intact("score, OUT.partial")
check(not os.path.islink(partial) and open(partial).read().endswith("\n"), "the partial lines")
os.remove(partial)

# sift batch: a link at OUT.progress.tmp is no way into the input.
plant(out + ".progress.tmp")
run("--threads", "1", "-q", "batch", "--model", model, "--input", rows, "--output", out)
victim_intact("batch, OUT.progress.tmp")
check(len(open(out).read().splitlines()) == 40, "batch output")
# ... nor one at the tail file of a zstd job stopped before its first row.
bad_first = os.path.join(work, "bad_first.jsonl")
open(bad_first, "w").write("not json\n" + open(rows).read())
zst = os.path.join(work, "job.jsonl.zst")
res = run("--threads", "1", "-q", "batch", "--model", model, "--input", bad_first, "--output", zst,
          "--errors-max", "0", code=1)
check(os.path.exists(zst + ".progress.tail"), f"the stopped job's tail file: {res.stderr}")
plant(zst + ".progress.tail")
before = open(zst, "rb").read(), open(zst + ".progress", "rb").read()
res = run("--threads", "1", "-q", "batch", "--model", model, "--input", bad_first, "--output", zst, "--resume",
          code=1)
check("progress.tail: is a symbolic link" in res.stderr, res.stderr)
victim_intact("batch --resume, OUT.progress.tail")
check((open(zst, "rb").read(), open(zst + ".progress", "rb").read()) == before, "a refused resume changed the job")
PY
echo "hostile_links: all checks passed"
