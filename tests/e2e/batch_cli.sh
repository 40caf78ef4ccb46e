#!/usr/bin/env bash
# End to end: `sift batch` as a user meets it. The output holds `sift score`'s scores in input
# order, stamped with the artifact; compressed input (gzip, zstd, detected by content) gives
# the same output as plain; a .zst output decompresses to it; other input fields pass
# through; bad rows become error lines in place; --errors-max stops and --resume goes on;
# an existing output is never overwritten; the output may not be the input or a model file;
# --resume refuses another job (threshold, mode, weights, --weights, input, shard) and leaves a
# complete job alone; --weights q8 gives `sift score --weights q8`'s scores; the summary line on
# stdout (--pretty), nothing on stderr with the global -q; thread flags checked and capped as
# the global --threads; a thread that cannot start is one error line and --resume goes on;
# bad flag values are usage errors (exit 2).
# Usage: bash batch_cli.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 5
make_tiny_labeler "$SIFT" "$SRC" "$WORK/other_weights" 6  # same sift.json and version (but the probes' scores), other weights

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$MODEL" "$WORK" <<'PY'
import json, os, shutil, subprocess, sys
from sift_build import sanitized
from batch_checks import (Batch, check, make_rows, write, write_gzip_members, zstd_compress, zstd_decompress,
                          read_bytes, progress_of, progress_text)
sift_bin, model, work = sys.argv[1:4]
batch = Batch(sift_bin, model)
env = dict(os.environ, OMP_NUM_THREADS="1")
Q = ["--threads", "1", "--quiet"]

text = make_rows(600, seed=5, bad_every=50)
long_line = '{"id": "huge", "query": "' + "x" * (65 << 20) + '", "items": ["a"]}\n'  # over the 64 MiB line limit
lines = text.splitlines(keepends=True)
lines.insert(300, long_line)
text = "".join(lines)
rows = write(f"{work}/rows.jsonl", text)
n_lines = len(lines)

# 1. The output: one line per input line, sift score's scores, stamped, pass-through fields.
summary, err, _ = batch.run(rows, f"{work}/out.jsonl", *Q, env=env)
out_bytes = read_bytes(f"{work}/out.jsonl")
out = [json.loads(l) for l in out_bytes.decode().splitlines()]
check(len(out) == n_lines, f"{len(out)} output lines for {n_lines} input lines")
for key in ("rows", "labels", "errors", "prefill_tokens", "seconds", "labels_per_second"):
    check(key in summary, f"summary lacks {key}: {summary}")
errors = [o for o in out if "error" in o]
check(summary["rows"] == n_lines and summary["errors"] == len(errors) == 13, f"summary: {summary}, {len(errors)} errors")
check(summary["labels"] == sum(len(o["scores"]) for o in out if "scores" in o), "labels counted")
check(summary["prefill_tokens"] == sum(o["usage"]["prefill_tokens"] for o in out if "usage" in o), "prefill counted")
short_rows = write(f"{work}/short_rows.jsonl", "".join(l for l in lines if l is not long_line))
scored = subprocess.run([sift_bin, "--threads", "1", "score", "--model", model, "--input", short_rows],
                        capture_output=True, text=True, env=env)
check(scored.returncode == 0, scored.stderr)
score_lines = [json.loads(l) for l in scored.stdout.splitlines()]
score_lines.insert(300, None)  # the long line's error is worded by each command (sift score names --max-line-bytes)
for s in score_lines[301:]:
    if "line" in s:
        s["line"] += 1
version = json.load(open(f"{model}/sift.json"))["version"]
inputs = [json.loads(l) if l.startswith("{") else None for l in lines]
for i, (b, s) in enumerate(zip(out, score_lines)):
    if i == 300:
        continue
    if "error" in b:
        check(b == s, f"line {i + 1}: the error line differs from sift score's: {b} vs {s}")
        check(b["line"] == i + 1, f"error line number: {b}")
        continue
    check(b["artifact"] == {"version": version, "threshold": 0.5}, f"artifact stamp: {b}")
    check(b["member_id"] == inputs[i]["member_id"] and b["meta"] == inputs[i]["meta"], f"pass-through: {b}")
    rest = {k: v for k, v in b.items() if k not in ("member_id", "meta")}
    check(rest == s, f"line {i + 1}: not sift score's line: {rest} vs {s}")
check(out[300]["line"] == 301 and "longer than 64 MiB" in out[300]["error"], f"the long line: {out[300]}")
check(any(e.get("id") == "bad-query" for e in errors), "an error line keeps the row's id")
check("sift batch: " in err or summary, "stderr")

# Input fields named like output fields pass through as input_<name> (the input's reference
# labels beside the labeler's); one whose input_<name> is taken too is left out, said once.
write(f"{work}/labels.jsonl", '{"id": 1, "query": "q", "items": ["a"], "labels": [1], "scores": 3}\n' * 3)
summary, err, _ = batch.run(f"{work}/labels.jsonl", f"{work}/labels_out.jsonl", "--threads", "1", env=env)
first = json.loads(open(f"{work}/labels_out.jsonl").readline())
check(len(first["labels"]) == 1 and isinstance(first["labels"][0], bool) and isinstance(first["scores"], list),
      f"sift's own fields keep their names: {first}")
check(first["input_labels"] == [1] and first["input_scores"] == 3, f"the input's fields kept as input_*: {first}")
check("not passed through" not in err, err)
write(f"{work}/both.jsonl", '{"id": 1, "query": "q", "items": ["a"], "labels": [1], "input_labels": [0]}\n' * 3)
summary, err, _ = batch.run(f"{work}/both.jsonl", f"{work}/both_out.jsonl", "--threads", "1", env=env)
first = json.loads(open(f"{work}/both_out.jsonl").readline())
check(first["input_labels"] == [0] and len(first["labels"]) == 1, f"{first}")
check(err.count('input field "labels" is not passed through') == 1, err)

# 2. Compressed input, detected by content (whatever the name): the same output.
inputs_compressed = {
    "gzip, 4 members, named .jsonl": write_gzip_members(f"{work}/gz_named_plain.jsonl", text, 4),
    "zstd, one frame": zstd_compress(f"{work}/rows.jsonl.zst", text),
    "zstd, long-window": zstd_compress(f"{work}/rows_long.zst", text, "--long=24"),
}
for name, path in inputs_compressed.items():
    output = f"{work}/from_{os.path.basename(path)}.jsonl"
    batch.run(path, output, *Q, env=env)
    check(read_bytes(output) == out_bytes, f"{name}: output differs from the plain input's")

# 3. zstd output: decompresses to the plain output.
batch.run(rows, f"{work}/out.jsonl.zst", *Q, env=env)
check(zstd_decompress(f"{work}/out.jsonl.zst") == out_bytes, "the .zst output holds other lines")
check(not os.path.exists(f"{work}/out.jsonl.zst.progress.tail"), "tail file left behind")

# 4. --errors-max: stops at the first bad row over the limit; --resume with a higher one finishes.
_, err, code = batch.run(rows, f"{work}/capped.jsonl", *Q, "--errors-max", "3", ok=False, env=env)
check(code != 0 and "over --errors-max 3" in err and "line 200:" in err, f"errors-max: {code} {err}")
p = progress_of(f"{work}/capped.jsonl")
check(p["rows"] == 199 and p["errors"] == 3 and not p["complete"], f"stopped checkpoint: {p}")
summary, _, _ = batch.run(rows, f"{work}/capped.jsonl", *Q, "--errors-max", "13", "--resume", env=env)
check(summary["resumed"] and summary["rows"] == n_lines - 199, f"resumed: {summary}")
check(read_bytes(f"{work}/capped.jsonl") == out_bytes, "errors-max then resume: output differs")

# 5. Never overwritten: an existing output, or a progress file, without --resume.
before = read_bytes(f"{work}/out.jsonl")
_, err, code = batch.run(rows, f"{work}/out.jsonl", *Q, ok=False, env=env)
check(code != 0 and "never overwrites" in err, f"existing output: {err}")
check(read_bytes(f"{work}/out.jsonl") == before, "the existing output was touched")
write(f"{work}/mine.jsonl", "my own file\n")
_, err, code = batch.run(rows, f"{work}/mine.jsonl", *Q, "--resume", ok=False, env=env)
check(code != 0 and "has no progress file" in err, f"a user's file with --resume: {err}")
check(read_bytes(f"{work}/mine.jsonl") == b"my own file\n", "a user's file was touched")

# 6. The output may not be the input or a file of the labeler (links included).
os.symlink(rows, f"{work}/link_to_input.jsonl")
_, err, code = batch.run(rows, f"{work}/link_to_input.jsonl", *Q, "--resume", ok=False, env=env)
check(code != 0 and "is the same file as" in err, f"output = input: {err}")
os.link(f"{model}/model.safetensors", f"{work}/weights_link")
_, err, code = batch.run(rows, f"{work}/weights_link", *Q, "--resume", ok=False, env=env)
check(code != 0 and "is the same file as" in err and "model.safetensors" in err, f"output = weights: {err}")
check(read_bytes(rows) == text.encode(), "the input was touched")

# 7. --resume refuses another job and names what differs; the output stays as it was.
half = f"{work}/half.jsonl"
shutil.copy(f"{work}/capped.jsonl", half)  # a complete job; make it look unfinished
p = progress_of(f"{work}/capped.jsonl")
p.update(complete=False)
write(half + ".progress", progress_text(p))  # a checksum made for the change
other_input = write(f"{work}/other_rows.jsonl", text + '{"id": "extra", "query": "q", "items": []}\n')
for what, args, needle in [
        ("threshold", ["--threshold", "0.3"], "threshold is 0.3 in this run, 0.5 in the job"),
        ("mode", ["--mode", "prefix"], 'mode is "prefix" in this run, "mis" in the job'),
        ("shard", ["--shard", "1/2"], 'shard is "1/2" in this run, "1/1" in the job'),
        ("request size", ["--max-batch-tokens", "500"], "request_tokens is 500"),
        ("weights", ["--model", f"{work}/other_weights"], "artifact is"),
        ("--weights", ["--weights", "q8"], 'weights is "q8" in this run, absent in the job'),
]:
    cmd = batch.args(rows, half, *Q, "--resume", *args)
    if args[0] == "--model":
        cmd = [sift_bin, "batch", "--model", args[1], "--input", rows, "--output", half, *Q, "--resume"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    check(r.returncode != 0 and "not the job being resumed" in r.stderr and needle in r.stderr,
          f"another {what} was not refused clearly: {r.stderr}")
_, err, code = batch.run(other_input, half, *Q, "--resume", ok=False, env=env)
check(code != 0 and "input is" in err, f"another input: {err}")
check(read_bytes(half) == out_bytes, "a refused resume touched the output")

# 7b. Two runs of one job: the second fails at once naming the first (held stopped here, with
#     its lock taken), and leaves its output alone; the first then finishes the job.
import signal, time
twice, many_rows = f"{work}/twice.jsonl", write(f"{work}/many_rows.jsonl", text.replace(long_line, "") * 4)
first = subprocess.Popen(batch.args(many_rows, twice, *Q), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
deadline = time.time() + 60
while not os.path.exists(twice + ".progress") and time.time() < deadline and first.poll() is None:
    time.sleep(0.01)
first.send_signal(signal.SIGSTOP)
held = read_bytes(twice)
_, err, code = batch.run(many_rows, twice, *Q, "--resume", ok=False, env=env)
check(code == 1 and "another run is writing it" in err and f"pid {first.pid}" in err, f"a second run: {code} {err}")
check(read_bytes(twice) == held, "the second run touched the first one's output")
first.send_signal(signal.SIGCONT)
_, first_err = first.communicate(timeout=300)
p = progress_of(twice)
check(first.returncode == 0 and p["complete"] and p["rows"] == 4 * (n_lines - 1), f"the first run: {first_err} {p}")

# 8. --resume of a complete job does nothing; the same command again is harmless.
summary, err, _ = batch.run(rows, f"{work}/out.jsonl", "--threads", "1", "--resume", env=env)
check(summary["rows"] == 0 and summary["output_rows"] == n_lines and "nothing to do" in err, f"{summary} {err}")
check(read_bytes(f"{work}/out.jsonl") == out_bytes, "resuming a complete job changed it")

# 9. An empty input: a complete, empty job that fails, saying so; the other modes give the same scores.
write(f"{work}/empty.jsonl", "")
_, err, code = batch.run(f"{work}/empty.jsonl", f"{work}/empty_out.jsonl", *Q, ok=False, env=env)
check(code == 1 and "the input is empty" in err and read_bytes(f"{work}/empty_out.jsonl") == b"", f"empty input: {err}")
batch.run(rows, f"{work}/independent.jsonl", *Q, "--mode", "independent", env=env)
for a, b in zip(out, (json.loads(l) for l in open(f"{work}/independent.jsonl"))):
    check(a.get("scores") == b.get("scores"), f"mode independent scores differ: {a} {b}")

# 10. Bad command lines: usage errors (exit 2), before anything is written.
for args, needle in [(["--shard", "3/2"], "--shard: expected K/N"), (["--mode", "generate"], "generate"),
                     (["--threshold", "nan"], "--threshold: must be a number in [0, 1], got nan"),
                     (["--checkpoint-seconds", "nan"], "--checkpoint-seconds: must be a number"),
                     (["--threads", "0"], "--threads: must be at least 1"),
                     (["--tokenize-threads", "0"], "--tokenize-threads: must be at least 1"),
                     (["--weights", "q4"], "--weights")]:
    r = subprocess.run(batch.args(rows, f"{work}/bad.jsonl", *args), capture_output=True, text=True)
    check(r.returncode == 2 and needle in r.stderr and not os.path.exists(f"{work}/bad.jsonl"), f"{args}: {r.stderr}")
for missing in ["--model", "--input", "--output"]:
    args = {"--model": model, "--input": rows, "--output": f"{work}/x.jsonl"}
    del args[missing]
    r = subprocess.run([sift_bin, "batch", *[a for kv in args.items() for a in kv]], capture_output=True, text=True)
    check(r.returncode == 2 and f"{missing} is required" in r.stderr, f"missing {missing}: {r.stderr}")

# 11. --weights q8: the scores of `sift score --weights q8`, line for line.
batch.run(short_rows, f"{work}/q8.jsonl", *Q, "--weights", "q8", env=env)
q8_score = subprocess.run([sift_bin, "--threads", "1", "-q", "score", "--model", model, "--weights", "q8", "--input",
                           short_rows], capture_output=True, text=True, env=env, check=True).stdout.splitlines()
q8_batch = [json.loads(l) for l in open(f"{work}/q8.jsonl")]
check(len(q8_batch) == len(q8_score) and
      all(b.get("scores") == json.loads(s).get("scores") for b, s in zip(q8_batch, q8_score)), "batch q8 != score q8")
check(any(b.get("scores") != o.get("scores") for b, o in zip(q8_batch, out[:300])), "q8 scores equal f32's")

# 12. The global options: -q (before the subcommand) leaves stderr empty, --pretty indents the
# summary; thread counts over 4 per core are capped with the global --threads' warning.
r = subprocess.run([sift_bin, "-q", "--pretty", *batch.args(short_rows, f"{work}/pretty.jsonl")[1:], "--threads", "1"],
                   capture_output=True, text=True, env=env)
check(r.returncode == 0 and r.stderr == "" and r.stdout.count("\n") > 5 and json.loads(r.stdout)["rows"] == n_lines - 1,
      f"-q --pretty: {r.returncode} {r.stderr!r} {r.stdout!r}")
summary, err, _ = batch.run(short_rows, f"{work}/capped_threads.jsonl", "--tokenize-threads", "100000", "--threads",
                            "100000", env=env)
check("--tokenize-threads 100000 is more than 4 per core" in err and "--threads 100000 is more than 4 per core" in err,
      f"thread caps: {err}")
check(read_bytes(f"{work}/capped_threads.jsonl") == read_bytes(f"{work}/pretty.jsonl"), "capped threads: other output")

# 13. A thread that cannot be started (1 GiB stacks in 3 GiB of address space): one error line,
# the started stages joined (no abort), and --resume finishes the job. Not under ASan, whose
# shadow memory needs the address space.
if not sanitized(sift_bin):
    limited = f'ulimit -v 3000000; ulimit -s 1000000; exec "{sift_bin}" batch --model "{model}" --input "{short_rows}" ' \
              f'--output "{work}/no_threads.jsonl" --threads 1 --tokenize-threads 64'
    r = subprocess.run(["bash", "-c", limited], capture_output=True, text=True, env=env)
    check(r.returncode == 1 and r.stderr.count("sift: error: ") == 1 and "cannot start thread" in r.stderr,
          f"a thread that cannot start: {r.returncode} {r.stderr}")
    batch.run(short_rows, f"{work}/no_threads.jsonl", *Q, "--resume", env=env)
    check(read_bytes(f"{work}/no_threads.jsonl") == read_bytes(f"{work}/pretty.jsonl"), "resumed after no threads")
print(f"batch_cli: ok ({n_lines} rows)", file=sys.stderr)
PY
