#!/usr/bin/env bash
# The recall-for-cost trade of `sift label`'s rounds (paper §2.1): on held-out synthetic
# profiles, with the bundled labeler, for --stop-below in {0, 0.1, 0.2, 0.3} and --k in
# {10, 20} (--max-rounds 5): pairs judged, recall and precision against the synthetic truth,
# labels/s (median of REPEATS runs, each into a fresh SQLite store).
#
# The world is `sift synth --seed 7` (the labeler's training seed) with BM25 top-100
# candidates per member; its test split is held out from the labeler's training (members
# are split by index, the same way for any --members). Truth is known for the top 100, the
# most 5 rounds of 20 can reach; recall = accepted true / true in the top 100.
# Usage: bash bench/label_rounds.sh [BUILD_DIR] [MEMBERS] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
members=${2:-4000}
repeats=${3:-3}
work=$build/bench/label_rounds
mkdir -p "$work"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
"$build/sift" synth --out "$work/world" --members "$members" --candidates 100 --seed 7 2>/dev/null
python3 - "$build/sift" "$work" "$repeats" <<'PY'
import json, os, statistics, subprocess, sys
sift, work, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(l) for l in open(f"{work}/world/test.jsonl")]
truth = {r["id"]: {item["id"] for item, t in zip(r["items"], r["truth"]) if t} for r in rows}
profiles = f"{work}/profiles.jsonl"
with open(profiles, "w") as f:
    for r in rows:
        f.write(json.dumps({"id": r["id"], "text": r["query"]}) + "\n")
n_true = sum(len(t) for t in truth.values())
summary = json.load(open(f"{work}/world/summary.json"))
print(f"{len(rows)} held-out profiles, {n_true} true qualifications in their top 100 "
      f"(truth recall@100 of BM25: {summary['truth_recall_at_k']:.3f}); load average {os.getloadavg()[0]:.1f}")
print()
print("| K | stop below | pairs judged | pairs / profile | rounds / profile | recall | precision | labels/s |")
print("|---|---|---|---|---|---|---|---|")
for k in (10, 20):
    for stop_below in (0, 0.1, 0.2, 0.3):
        rates = []
        for repeat in range(repeats):
            store = f"{work}/k{k}_s{stop_below}_{repeat}.db"
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(store + suffix):
                    os.remove(store + suffix)
            out = subprocess.run([sift, "label", "--model", "models/default-labeler", "--catalog",
                                  f"{work}/world/catalog.jsonl", "--profiles", profiles, "--store", store,
                                  "--k", str(k), "--max-rounds", "5", "--stop-below", str(stop_below), "--quiet"],
                                 capture_output=True, text=True, check=True)
            run = json.loads(out.stdout)
            rates.append(run["labels_per_second"])
        export = subprocess.run([sift, "labels", "export", "--store", store], capture_output=True, text=True,
                                check=True).stdout.splitlines()
        accepted = [json.loads(l) for l in export]
        accepted = [(r["member"], r["qualification"]) for r in accepted if r["label"]]
        hits = sum(q in truth[m] for m, q in accepted)
        print(f"| {k} | {stop_below} | {run['pairs_judged']:,} | {run['pairs_judged'] / len(rows):.1f} | "
              f"{run['rounds'] / len(rows):.2f} | {hits / n_true:.3f} | {hits / max(1, len(accepted)):.3f} | "
              f"{statistics.median(rates):,.0f} |", flush=True)
PY
