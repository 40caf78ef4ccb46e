#!/usr/bin/env bash
# Distillation against hard labels, one teacher: the bundled labeler (models/default-labeler)
# labels a synthetic world (`sift score --echo`), and two students of the same shape start
# from the same fresh weights (--config/--tokenizer, --seed) with the same steps:
#   soft  sift train --targets scores   (the teacher's P(YES), binary cross-entropy)
#   hard  sift train --targets labels   (the teacher's labels at its threshold, the same rows)
# Each student is scored on the world's test split at the threshold it was written with (soft:
# the teacher's; hard: 0.5, train's default) and compared with the teacher's labels, the
# split's reference labels and its clean truth. Prints a markdown table (every seed, medians).
#   bash bench/distill.sh [STEPS] [SEEDS...]        (default: 100 steps, seeds 1 2 3)
# Environment: SIFT (default build/sift), MEMBERS (world size, default 2000), BATCH (default 64),
# LR (default 3e-3), THREADS (default 2), WORK (default build/distill-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
export OMP_WAIT_POLICY=passive
sift=${SIFT:-build/sift}
steps=${1:-100}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && seeds=("$@") || seeds=(1 2 3)
members=${MEMBERS:-2000}
batch=${BATCH:-64}
lr=${LR:-3e-3}
threads=${THREADS:-2}
work=${WORK:-build/distill-bench}
teacher=models/default-labeler
rm -rf "$work"
mkdir -p "$work"

"$sift" synth --out "$work/world" --members "$members" --seed 11
for split in train test; do
  "$sift" --threads "$threads" score --model "$teacher" --input "$work/world/$split.jsonl" --echo \
    --output "$work/teacher_$split.jsonl"
done

common=(--train "$work/teacher_train.jsonl" --config "$teacher/config.json" --tokenizer "$teacher/tokenizer.json"
        --artifact "$teacher/sift.json" --pack --steps "$steps" --batch-size "$batch" --lr "$lr" -q)
for seed in "${seeds[@]}"; do
  for targets in scores labels; do
    out="$work/student_${targets}_seed$seed"
    start=$(date +%s)
    "$sift" --threads "$threads" train --targets "$targets" --seed "$seed" --out "$out" "${common[@]}" > "$out.report.json"
    echo "$(( $(date +%s) - start ))" > "$out.seconds"
    "$sift" --threads "$threads" score --model "$out" --input "$work/world/test.jsonl" --output "$out.test.jsonl"
  done
done

python3 - "$work" "$steps" "${seeds[@]}" <<'PY'
import json, statistics, sys
work, steps, seeds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = [json.loads(l) for l in open(f"{work}/world/test.jsonl")]
teacher = [json.loads(l) for l in open(f"{work}/teacher_test.jsonl")]
def flat(lines, field): return [v for l in lines for v in l[field]]
ref, truth = flat(rows, "labels"), flat(rows, "truth")
t_labels, t_scores = flat(teacher, "labels"), flat(teacher, "scores")
agree = lambda a, b: sum(int(x) == int(y) for x, y in zip(a, b)) / len(a)
print(f"test split: {len(rows)} rows, {len(ref)} pairs; teacher: agreement with reference labels "
      f"{agree(t_labels, ref):.4f}, with truth {agree(t_labels, truth):.4f}\n")
print("| student | seed | teacher agreement | reference agreement | truth agreement | mean abs(student - teacher) P(YES) | train seconds |")
print("|---|---|---|---|---|---|---|")
summary = {}
for targets in ("scores", "labels"):
    for seed in seeds:
        out = f"{work}/student_{targets}_seed{seed}"
        scored = [json.loads(l) for l in open(out + ".test.jsonl")]
        labels, scores = flat(scored, "labels"), flat(scored, "scores")
        gap = sum(abs(a - b) for a, b in zip(scores, t_scores)) / len(scores)
        m = (agree(labels, t_labels), agree(labels, ref), agree(labels, truth), gap)
        summary.setdefault(targets, []).append(m)
        secs = open(out + ".seconds").read().strip()
        name = "soft (--targets scores)" if targets == "scores" else "hard (--targets labels)"
        print(f"| {name} | {seed} | {m[0]:.4f} | {m[1]:.4f} | {m[2]:.4f} | {m[3]:.4f} | {secs} |")
for targets, ms in summary.items():
    med = [statistics.median(m[k] for m in ms) for k in range(4)]
    name = "soft" if targets == "scores" else "hard"
    print(f"| **{name}, median** | | **{med[0]:.4f}** | **{med[1]:.4f}** | **{med[2]:.4f}** | **{med[3]:.4f}** | |")
PY
