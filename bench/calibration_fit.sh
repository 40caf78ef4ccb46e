#!/usr/bin/env bash
# Calibration maps on the bundled labeler: fit each `sift calibrate --fit` method on the
# validation split of the labeler's own synthetic world (`sift synth --members 4000 --seed 7`:
# seed 7 is its training seed and members are split by index, so validation and test are
# held out from training), then `sift eval` the copies on the test split: ECE (15 equal-width
# bins) and Brier of the raw scores and of each map's probabilities. Deterministic; all rows.
# Usage: bash bench/calibration_fit.sh [BUILD_DIR]
set -euo pipefail
BUILD=${1:-build}
SIFT=$(realpath "$BUILD/sift")
SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$SIFT" synth --out "$WORK/world" --members 4000 --seed 7 >/dev/null 2>&1
printf '| fit | validation ECE before -> after | validation Brier before -> after | test ECE | test Brier |\n|---|---|---|---|---|\n'
raw=$("$SIFT" eval --model "$SRC/models/default-labeler" --input "$WORK/world/test.jsonl" --shuffles 0 2>/dev/null)
python3 -c '
import json, sys
c = json.loads(sys.argv[1])["calibration"]["raw"]
print("| none (raw P(YES)) | | | %.4f | %.4f |" % (c["ece"], c["brier"]))' "$raw"
for method in temperature platt isotonic; do
  fit=$("$SIFT" calibrate --model "$SRC/models/default-labeler" --input "$WORK/world/validation.jsonl" --fit "$method" \
        --out "$WORK/$method" 2>/dev/null)
  test=$("$SIFT" eval --model "$WORK/$method" --input "$WORK/world/test.jsonl" --shuffles 0 2>/dev/null)
  python3 -c '
import json, sys
m = json.loads(sys.argv[2])["calibration_map"]; c = json.loads(sys.argv[3])["calibration"]["calibrated"]
b, a = m["before"], m["after"]
print("| %s | %.4f -> %.4f | %.4f -> %.4f | %.4f | %.4f |"
      % (sys.argv[1], b["ece"], a["ece"], b["brier"], a["brier"], c["ece"], c["brier"]))' "$method" "$fit" "$test"
done
