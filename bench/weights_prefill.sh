#!/usr/bin/env bash
# Prefill speed and memory of one checkpoint with its weights held in F32, as the checkpoint
# stores them (auto: a BF16 file stays BF16) and in Q8, interleaved (bench/README.md,
# "Weights in memory"). Not part of `make test`.
#
#   bash bench/weights_prefill.sh MODEL_DIR [REPS] [TOKENS] [BUILD_DIR]
#
# Each repetition runs build/bench/bench_prefill once per weight type (one causal prefill of
# TOKENS tokens, default 512; 3 repetitions by default); prints per type the median of
# tokens/s, the peak RSS after the load and at the end, and the ratios to F32, with the load
# average of the machine at each repetition.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODEL=${1:?usage: bench/weights_prefill.sh MODEL_DIR [REPS] [TOKENS] [BUILD_DIR]}
REPS=${2:-3}
TOKENS=${3:-512}
BENCH=${4:-$ROOT/build}/bench/bench_prefill
[ -x "$BENCH" ] || { echo "weights_prefill.sh: $BENCH not built" >&2; exit 1; }
[[ $REPS =~ ^[1-9][0-9]*$ && $TOKENS =~ ^[1-9][0-9]*$ ]] || { echo "weights_prefill.sh: REPS and TOKENS are positive integers" >&2; exit 2; }
export OMP_WAIT_POLICY=passive
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

for rep in $(seq 1 "$REPS"); do
  echo "repetition $rep/$REPS, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  for weights in f32 auto q8; do
    "$BENCH" "$MODEL" --tokens "$TOKENS" --repeats 1 --weights "$weights" \
      | sed "s/^/$weights /" >> "$OUT"
  done
done

/usr/bin/python3 - "$OUT" "$TOKENS" <<'PYEOF'
import re, statistics, sys
lines = open(sys.argv[1]).read().splitlines()
tokens = sys.argv[2]
runs = {}
for line in lines:
    weights, text = line.split(" ", 1)
    r = runs.setdefault(weights, {"rate": [], "resident": [], "after_load": [], "peak": [], "sgemm": []})
    if m := re.search(r"weights \w+, ([0-9.]+) GiB resident; peak RSS after load ([0-9.]+) GiB", text):
        r["resident"].append(float(m[1])), r["after_load"].append(float(m[2]))
    elif m := re.match(rf"\| {tokens} \| [0-9.]+ \| ([0-9.]+) \|", text):
        r["rate"].append(float(m[1]))
    elif m := re.match(r"peak RSS ([0-9.]+) GiB", text):
        r["peak"].append(float(m[1]))
    elif m := re.match(r"openblas sgemm \S+ ([0-9.]+) GFLOP/s", text):
        r["sgemm"].append(float(m[1]))
med = {w: {k: statistics.median(v) for k, v in r.items() if v} for w, r in runs.items()}
f32 = med["f32"]
print(f"| weights | resident GiB | peak RSS after load, GiB | peak RSS, GiB | prefill {tokens} tokens/s | vs f32 (RSS after load, tokens/s) |")
print("|---|---|---|---|---|---|")
for w in ("f32", "auto", "q8"):
    m = med[w]
    print(f"| {w} | {m['resident']:.2f} | {m['after_load']:.2f} | {m['peak']:.2f} | {m['rate']:.0f} | "
          f"{m['after_load'] / f32['after_load']:.2f}x, {m['rate'] / f32['rate']:.2f}x |")
print(f"OpenBLAS sgemm 2048^3 in the same runs (median): {statistics.median(sum((r['sgemm'] for r in runs.values()), [])):.1f} GFLOP/s")
PYEOF
