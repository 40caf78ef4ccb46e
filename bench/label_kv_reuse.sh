#!/usr/bin/env bash
# The query-KV reuse of `sift label`'s rounds: the same profiles labeled by this
# tree's sift and by OLD_SIFT (a sift that prefills the profile again every round, e.g. one
# built from commit 0b5ae54), in one run, interleaved, each into a fresh SQLite store, with
# every round judged (--stop-below 0, --max-rounds 5, --k 20). Prints prefill tokens and
# labels/s (median of REPEATS) for each, and the ratios; the stored scores must be equal.
# Usage: bash bench/label_kv_reuse.sh OLD_SIFT [BUILD_DIR] [MEMBERS] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
build=${2:-build}
members=${3:-1000}
repeats=${4:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
"$build/sift" synth --out "$work/world" --members "$members" --candidates 100 --seed 7 2>/dev/null
python3 - "$build/sift" "$old" "$work" "$repeats" <<'PY'
import json, statistics, subprocess, sys
new, old, work, repeats = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = [json.loads(l) for l in open(f"{work}/world/test.jsonl")]
with open(f"{work}/profiles.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps({"id": r["id"], "text": r["query"]}) + "\n")
runs = {"reuse (this tree)": new, "prefill every round (old)": old}
summaries, exports = {k: [] for k in runs}, {}
for rep in range(repeats):
    for name, sift in runs.items():
        store = f"{work}/store-{rep}-{len(summaries[name])}-{abs(hash(name))}.db"
        out = subprocess.run([sift, "--threads", "2", "label", "--model", "models/default-labeler",
                              "--catalog", f"{work}/world/catalog.jsonl", "--profiles", f"{work}/profiles.jsonl",
                              "--store", store, "--k", "20", "--max-rounds", "5", "--stop-below", "0", "--quiet"],
                             check=True, capture_output=True, text=True)
        summaries[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
        exp = subprocess.run([sift, "labels", "export", "--store", store], check=True, capture_output=True, text=True)
        exports.setdefault(name, sorted((j["member"], j["qualification"], j["score"]) for j in map(json.loads, exp.stdout.splitlines())))
a, b = exports.values()
assert a == b, "stored scores differ between the two binaries"
print(f"{len(rows)} profiles, {summaries[next(iter(runs))][0]['pairs_judged']} pairs, median of {repeats}, 2 threads")
print("| run | rounds | prefill tokens | labels/s (median) |")
print("|---|---|---|---|")
rate = {}
for name, s in summaries.items():
    rate[name] = statistics.median(x["labels_per_second"] for x in s)
    print(f"| {name} | {s[0]['rounds']} | {s[0]['prefill_tokens']:,} | {rate[name]:.0f} |")
(n_new, s_new), (n_old, s_old) = summaries.items()
print(f"prefill tokens old / new = {s_old[0]['prefill_tokens'] / s_new[0]['prefill_tokens']:.2f}x; "
      f"labels/s new / old = {rate[n_new] / rate[n_old]:.2f}x; stored scores identical: yes")
PY
