#!/usr/bin/env bash
# make demo: label the committed sample of synthetic profiles (examples/sample.jsonl, the first
# 40 rows of the bundled labeler's held-out test split) with models/default-labeler through the
# scoring engine (multi-item scoring); print labels/s, the agreement with the sample's
# reference labels, and a few profiles with the qualifications the labeler accepted.
set -euo pipefail
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}  # libgomp spinning fights OpenBLAS threads on a busy machine
cd "$(dirname "$0")/.."
sift=${SIFT:-build/sift}
sample=examples/sample.jsonl
labeler=models/default-labeler
work=build/demo
mkdir -p "$work"
if [ ! -f "$labeler/sift.json" ]; then
  echo "demo: $labeler/sift.json is missing; retrain it with: bash tools/default_labeler/train.sh" >&2
  exit 1
fi

echo "demo: labeling $(wc -l < "$sample") profiles from $sample with $labeler (mode mis)"
"$sift" eval --model "$labeler" --input "$sample" --shuffles 1 > "$work/eval.json"
"$sift" score --model "$labeler" --input "$sample" --output "$work/scores.jsonl" 2>/dev/null
/usr/bin/python3 - "$work/eval.json" "$sample" "$work/scores.jsonl" <<'PY'
import json, sys
metrics = json.load(open(sys.argv[1]))
rows = [json.loads(l) for l in open(sys.argv[2])]
scored = [json.loads(l) for l in open(sys.argv[3])]
print(f"labels/s: {metrics['labels_per_second']:.0f}")
print(f"agreement: {metrics['agreement']:.2f}")
print(f"order inconsistency: {metrics['order_inconsistency']:.4f}")
for row, out in list(zip(rows, scored))[:3]:
    accepted = [item["text"] for item, label in zip(row["items"], out["labels"]) if label]
    print("\n--- " + row["query"][:300].replace("\n", " ") + " ...")
    print("accepted: " + (", ".join(accepted) if accepted else "(none)"))
PY
