#!/usr/bin/env bash
# make demo: label the committed sample of synthetic profiles (examples/sample.jsonl) with the
# scoring engine (multi-item scoring), print labels/s, the agreement with the sample's
# reference labels, and a few profiles with the qualifications the labeler accepted.
#
# The labeler is models/default-labeler when it exists. Until a trained one is bundled, the demo
# builds an UNTRAINED one (a small tokenizer trained on the sample + random Qwen3 weights), so
# it shows the whole path working but its agreement is that of chance.
set -euo pipefail
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}  # libgomp spinning fights OpenBLAS threads on a busy machine
cd "$(dirname "$0")/.."
sift=${SIFT:-build/sift}
sample=examples/sample.jsonl
work=build/demo
mkdir -p "$work"

labeler=models/default-labeler
if [ ! -f "$labeler/sift.json" ]; then
  labeler=$work/untrained-labeler
  echo "demo: no trained labeler is bundled yet; using an UNTRAINED one (random weights): expect chance agreement"
  mkdir -p "$labeler"
  "$sift" tokenizer train --vocab-size 1024 --input "$sample" --out "$labeler/tokenizer.json" >/dev/null 2>&1
  "$sift" make-checkpoint --out "$labeler" --arch qwen3 --preset tiny --vocab 1024 --seed 1 >/dev/null
  cat > "$labeler/sift.json" <<'JSON'
{"format": "sift.scoring/1", "version": "demo-untrained",
 "query_template": "Profile:\n{query}\nDoes the profile support the qualification? Answer YES or NO.\n",
 "item_template": "Qualification: {item}\nAnswer:", "yes": "YES", "no": "NO", "threshold": 0.5}
JSON
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
