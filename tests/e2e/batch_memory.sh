#!/usr/bin/env bash
# End to end: `sift batch`'s memory is bounded by its queues, not by its input. Peak RSS
# (the kernel's high-water mark of each run, from wait4) labeling 1,000,000 rows stays
# within 8 MiB of labeling 1,000 (the queues fill up between the two) and within 2 MiB of
# labeling 100,000 (the queues are full in both): a leak of a few bytes a row fails it.
# The labeler is as small as a checkpoint gets (hidden 16, one layer, prompts "{query}" and
# "{item}") and --max-batch-tokens 512 keeps the queues small, so a million rows take ~10 s.
# Under AddressSanitizer, whose quarantine keeps freed memory resident by design, RSS says
# nothing about sift: the script exits 77 (skipped).
# Usage: bash batch_memory.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
# (ldd's output is read whole: `ldd | grep -q` under pipefail fails when grep exits first.)
if [[ "$(ldd "$SIFT")" == *libasan* ]]; then
  echo "batch_memory: SKIPPED: $SIFT is built with AddressSanitizer: its RSS is not sift's" >&2
  exit 77
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$SIFT" make-checkpoint --out "$WORK/labeler" --arch qwen3 --hidden 16 --layers 1 --heads 2 --kv-heads 1 \
  --head-dim 8 --intermediate 32 --vocab 512 --seed 3 >/dev/null
cp "$SRC/tests/scoring/data/byte_bpe_tokenizer.json" "$WORK/labeler/tokenizer.json"
cat > "$WORK/labeler/sift.json" <<'JSON'
{"format": "sift.scoring/2", "version": "memory-1", "query_template": "{query}", "item_template": "{item}",
 "yes": "YES", "no": "NO", "threshold": 0.5}
JSON

OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, os, random, subprocess, sys
sift, work = sys.argv[1:3]
MiB = 1024  # ru_maxrss is in KiB

def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)

words = "python go rust java sql docker aws data backend engineer senior lead".split()
rng = random.Random(1)
def write_rows(path, n):
    with open(path, "w") as f:
        for i in range(n):
            query = " ".join(rng.choice(words) for _ in range(3))
            f.write('{"id": %d, "query": "%s", "items": ["%s", "%s"]}\n' % (i, query, rng.choice(words), rng.choice(words)))

def peak_rss_kib(n):
    """sift batch on n rows: its peak RSS (KiB), after checking it labeled them all."""
    rows, out = f"{work}/rows{n}.jsonl", f"{work}/out{n}.jsonl"
    write_rows(rows, n)
    with open(f"{work}/stdout", "w+") as stdout, open(f"{work}/stderr", "w+") as stderr:
        proc = subprocess.Popen([sift, "batch", "--model", f"{work}/labeler", "--input", rows, "--output", out,
                                 "--quiet", "--threads", "1", "--tokenize-threads", "1", "--max-batch-tokens", "512"],
                                stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage
        proc.returncode = os.waitstatus_to_exitcode(status)
        stdout.seek(0), stderr.seek(0)
        check(proc.returncode == 0, f"sift batch on {n} rows: {stderr.read()}")
        summary = json.loads(stdout.read())
    check(summary["rows"] == n and summary["labels"] == 2 * n and summary["errors"] == 0, f"{n} rows: {summary}")
    for path in (rows, out, out + ".progress"):
        os.remove(path)
    return usage.ru_maxrss

rss = {n: peak_rss_kib(n) for n in (1000, 100000, 1000000)}
print("batch_memory: peak RSS " + ", ".join(f"{n} rows {kib / MiB:.1f} MiB" for n, kib in rss.items()), file=sys.stderr)
check(rss[1000000] - rss[1000] < 8 * MiB, f"1,000,000 rows took {(rss[1000000] - rss[1000]) / MiB:.1f} MiB more than 1,000")
check(rss[1000000] - rss[100000] < 2 * MiB, f"1,000,000 rows took {(rss[1000000] - rss[100000]) / MiB:.1f} MiB more than 100,000")
PY
echo "batch_memory: ok"
