#!/usr/bin/env bash
# Retrains the bundled labeler, models/default-labeler, with sift alone (the recipe of
# models/default-labeler/README.md): about 26 minutes on 2 idle cores (training 25).
#   bash tools/default_labeler/train.sh [OUT_DIR]      (default: models/default-labeler)
# 1. the synthetic world: 40,000 members, seed 7 (BM25 top-20 candidates, 5% label noise)
# 2. a byte-level BPE of 3,000 tokens trained on the training split (no --prefix-space: each
#    prompt part is tokenized as one rendered text, so " Apache" after "Qualification:" is the
#    same id as " Apache" inside the profile)
# 3. label-only training of a fresh Qwen3 (tools/default_labeler/config.json), MIS-packed
# 4. the threshold calibrated on the validation split (best F1)
# 5. evaluation on the held-out test split -> OUT/eval_test.json
# 6. examples/sample.jsonl: the first 40 test rows (what `make demo` labels)
set -euo pipefail
cd "$(dirname "$0")/../.."
export OMP_WAIT_POLICY=passive  # libgomp spinning fights libtorch's threads
sift=${SIFT:-build/sift}
out=${1:-models/default-labeler}
work=build/default-labeler-work
mkdir -p "$work"

"$sift" synth --out "$work/data" --members 40000 --seed 7
"$sift" tokenizer train --vocab-size 3000 --input "$work/data/train.jsonl" --out "$work/tokenizer.json"
rm -rf "$out"
"$sift" train --train "$work/data/train.jsonl" --validation "$work/data/validation.jsonl" --out "$out" \
  --config tools/default_labeler/config.json --tokenizer "$work/tokenizer.json" \
  --pack --epochs 4 --batch-size 200 --lr 3e-3 --seed 1 --threads 2 --save-every 500
rm -rf "$out/checkpoint"  # the resumable training state, not part of the labeler
"$sift" calibrate --model "$out" --input "$work/data/validation.jsonl" --target f1 --in-place
"$sift" eval --model "$out" --input "$work/data/test.jsonl" --shuffles 1 | tee "$out/eval_test.json"
if [ "$out" = models/default-labeler ]; then head -n 40 "$work/data/test.jsonl" > examples/sample.jsonl; fi
