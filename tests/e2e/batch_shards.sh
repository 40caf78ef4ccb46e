#!/usr/bin/env bash
# End to end: `sift batch --shard K/N` on N "machines" (separate runs, other thread counts)
# and `sift batch merge` give the bytes of one unsharded run, for plain and zstd outputs and
# more shards than some get rows; merge refuses a missing, repeated, unfinished, altered (a
# byte changed without changing its length too: each shard's SHA-256 is checked) or foreign
# shard, a changed or earlier sift's progress file, and an existing output.
# Usage: bash batch_shards.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 5

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$MODEL" "$WORK" <<'PY'
import json, os, shutil, sys
from batch_checks import Batch, check, make_rows, write, read_bytes, progress_of, zstd_decompress
sift_bin, model, work = sys.argv[1:4]
batch = Batch(sift_bin, model)
env = dict(os.environ, OMP_NUM_THREADS="1")
Q = ["--threads", "1", "--quiet"]

text = make_rows(700, seed=9, bad_every=60)
rows = write(f"{work}/rows.jsonl", text)
batch.run(rows, f"{work}/whole.jsonl", *Q, env=env)
batch.run(rows, f"{work}/whole.jsonl.zst", *Q, env=env)
whole = read_bytes(f"{work}/whole.jsonl")


def run_shards(n, suffix, name):
    outputs = []
    for k in range(1, n + 1):
        output = f"{work}/{name}{k}of{n}{suffix}"
        threads = ["--threads", str(1 + k % 2), "--tokenize-threads", str(1 + k % 3), "--quiet"]
        summary, _, _ = batch.run(rows, output, "--shard", f"{k}/{n}", *threads, env=env)
        check(summary["rows"] == len(range(k, 701, n)), f"shard {k}/{n}: {summary['rows']} rows")
        outputs.append(output)
    return outputs


# 1. Three shards, plain: each holds lines K, K+3, ...; merged in any order: the unsharded bytes.
shards = run_shards(3, ".jsonl", "s")
first = [json.loads(l) for l in open(shards[1])]
all_rows = [json.loads(l) for l in open(f"{work}/whole.jsonl")]
check(first == all_rows[1::3], "shard 2/3 holds other rows than lines 2, 5, 8, ...")
out = batch.merge(f"{work}/merged.jsonl", shards[2], shards[0], shards[1])
check(json.loads(out.stdout.splitlines()[-1]) == {"output": f"{work}/merged.jsonl", "shards": 3, "rows": 700},
      f"merge summary: {out.stdout}")
check(read_bytes(f"{work}/merged.jsonl") == whole, "3 merged shards differ from the unsharded output")
check(progress_of(f"{work}/merged.jsonl")["job"] == progress_of(f"{work}/whole.jsonl")["job"],
      "the merged output's job is not the unsharded job")

# 2. zstd shards merged into zstd: the same frames; into plain: the same lines.
zshards = run_shards(2, ".jsonl.zst", "z")
batch.merge(f"{work}/merged.jsonl.zst", *zshards)
check(read_bytes(f"{work}/merged.jsonl.zst") == read_bytes(f"{work}/whole.jsonl.zst"), "merged .zst differs")
batch.merge(f"{work}/merged_plain.jsonl", *zshards)
check(read_bytes(f"{work}/merged_plain.jsonl") == whole, "zstd shards merged into plain differ")
# The global options reach merge: its line on stderr goes with --quiet, --pretty indents its report.
out = batch.merge(f"{work}/merged_quiet.jsonl", *zshards, options=("--quiet", "--pretty"))
check(out.stderr == "" and out.stdout.count("\n") == 5 and json.loads(out.stdout)["rows"] == 700,
      f"merge --quiet --pretty: {out.stderr!r} {out.stdout!r}")
check("sift batch merge: 2 shards, 700 rows into" in batch.merge(f"{work}/merged_loud.jsonl", *zshards).stderr,
      "merge says what it did without --quiet")

# 3. More shards than lines: 6 shards of 5 lines; shard 6/6 is empty.
few = write(f"{work}/few.jsonl", "".join(text.splitlines(keepends=True)[:5]))
outs = []
for k in (1, 2, 3, 4, 5, 6):
    output = f"{work}/few{k}.jsonl"
    summary, _, _ = batch.run(few, output, "--shard", f"{k}/6", *Q, env=env)
    outs.append(output)
check(os.path.getsize(outs[5]) == 0, "shard 6/6 of 5 lines is empty")
batch.run(few, f"{work}/few_whole.jsonl", *Q, env=env)
batch.merge(f"{work}/few_merged.jsonl", *outs)
check(read_bytes(f"{work}/few_merged.jsonl") == read_bytes(f"{work}/few_whole.jsonl"), "6 shards of 5 lines")

# 4. What merge refuses.
def refused(output, shard_list, needle):
    r = batch.merge(output, *shard_list, ok=False)
    check(r.returncode != 0 and needle in r.stderr, f"merge should refuse ({needle}): {r.stderr}")
    check(not os.path.exists(output), f"a refused merge wrote {output}")

refused(f"{work}/m1.jsonl", shards[:2], "shard 3/3 is missing")
refused(f"{work}/m2.jsonl", [shards[0], shards[0], shards[1]], "given twice")
refused(f"{work}/m3.jsonl", [shards[0], shards[1], zshards[0]], "not one split of a job")
batch.run(rows, f"{work}/t3.jsonl", "--shard", "3/3", "--threshold", "0.4", *Q, env=env)
refused(f"{work}/m4.jsonl", [shards[0], shards[1], f"{work}/t3.jsonl"], "shards of different jobs")
_, _, code = batch.run(rows, f"{work}/cut3.jsonl", "--shard", "3/3", "--errors-max", "0", *Q, ok=False, env=env)
check(code != 0, "errors-max 0 should stop a shard with bad rows")
refused(f"{work}/m5.jsonl", [shards[0], shards[1], f"{work}/cut3.jsonl"], "not complete")
shutil.copy(shards[2], f"{work}/altered.jsonl")
shutil.copy(shards[2] + ".progress", f"{work}/altered.jsonl.progress")
with open(f"{work}/altered.jsonl", "a") as f:
    f.write('{"id": "sneaked in"}\n')
refused(f"{work}/m6.jsonl", [shards[0], shards[1], f"{work}/altered.jsonl"], "changed after its job completed")
# An edit that keeps the shard's length (a score's digit, early in the file): its SHA-256 differs.
same_length = bytearray(read_bytes(shards[2]))
at = same_length.index(b'"scores":[0.') + len(b'"scores":[0.')
same_length[at] = ord("1") if same_length[at] != ord("1") else ord("2")
write(f"{work}/altered.jsonl", same_length.decode())
refused(f"{work}/m6b.jsonl", [shards[0], shards[1], f"{work}/altered.jsonl"], "do not have the SHA-256")
# A shard's progress file changed (its checksum no longer matches), and an earlier sift's.
shutil.copy(shards[2], f"{work}/altered.jsonl")
progress_text = open(shards[2] + ".progress").read()
write(f"{work}/altered.jsonl.progress", progress_text.replace('"errors": ', '"errors": 1'))
refused(f"{work}/m6c.jsonl", [shards[0], shards[1], f"{work}/altered.jsonl"], "checksum does not match")
write(f"{work}/altered.jsonl.progress", '{"format": "sift.batch-progress/1"}\n')
refused(f"{work}/m6d.jsonl", [shards[0], shards[1], f"{work}/altered.jsonl"], "written by an earlier sift")
write(f"{work}/no_progress.jsonl", "")
refused(f"{work}/m7.jsonl", [f"{work}/no_progress.jsonl"], "no progress file")
r = batch.merge(f"{work}/merged.jsonl", *shards, ok=False)
check(r.returncode != 0 and "never overwrites" in r.stderr, f"existing merge output: {r.stderr}")
check(read_bytes(f"{work}/merged.jsonl") == whole, "a refused merge touched the existing output")
print("batch_shards: ok", file=sys.stderr)
PY
