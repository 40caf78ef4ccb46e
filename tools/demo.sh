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

# The labeling loop: profiles in (examples/profiles.jsonl: the sample's first 5 profiles), BM25
# candidates from the catalog (examples/catalog.jsonl, `sift synth`'s) judged in rounds of K,
# stopping after a round that accepts less than --stop-below, labels stored in SQLite; a
# second run finds nothing changed and does no model work.
profiles=examples/profiles.jsonl
catalog=examples/catalog.jsonl
store=$work/labels.db
rm -f "$store" "$store-wal" "$store-shm"
echo
echo "demo: sift label: 5 profiles, rounds of 10 candidates, stop after a round accepting < 20%, store $store"
"$sift" label --model "$labeler" --catalog "$catalog" --profiles "$profiles" --store "$store" \
  --k 10 --max-rounds 5 --stop-below 0.2 >/dev/null
echo "demo: the same command again:"
"$sift" label --model "$labeler" --catalog "$catalog" --profiles "$profiles" --store "$store" \
  --k 10 --max-rounds 5 --stop-below 0.2 >/dev/null
member=$(/usr/bin/python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())['id'])" "$profiles")
echo "demo: sift labels get --store $store --member $member"
"$sift" labels get --store "$store" --member "$member" > "$work/member.json"
/usr/bin/python3 - "$work/member.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print(f"  {m['member']}: {m['rounds']} rounds, stopped: {m['stop_reason']}; artifact {m['artifact_version']}, "
      f"threshold {m['threshold']:.3f}")
for j in m["judgments"]:
    print(f"  round {j['round']}  #{j['rank']:<2}  {'YES' if j['label'] else 'no '}  {j['score']:.3f}  {j['name']}")
PY
