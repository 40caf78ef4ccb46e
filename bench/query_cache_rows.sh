#!/usr/bin/env bash
# The query-KV cache on `sift batch` and `sift score` input whose rows repeat a query: the label
# loop's rounds written as rows (each of MEMBERS synthetic profiles against ROUNDS lists of 10
# candidates). Each command runs twice, with --kv-cache-mb 0 and 64, at the default call size
# and at --max-batch-tokens 400 (about one row a call, so only the cache can reuse a query);
# prints the prompt tokens, the tokens reused and the share of prompt tokens not run, and
# fails unless both runs of a command wrote the same bytes and the cache reused exactly the
# query tokens of every round after a profile's first (counted from `sift prompt`'s ids).
# Token counts, not times: they do not depend on the machine or its load.
# Usage: bash bench/query_cache_rows.sh [BUILD_DIR] [MEMBERS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
members=${2:-300}
rounds=${3:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/sift" synth --out "$work/world" --members "$members" --candidates 100 --seed 7 2>/dev/null
python3 - "$build/sift" "$work" "$rounds" <<'PY'
import json, re, subprocess, sys
sift, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
members = [json.loads(l) for l in open(f"{work}/world/test.jsonl")]
with open(f"{work}/rows.jsonl", "w") as f:
    for m in members:
        items = [i if isinstance(i, str) else i["text"] for i in m["items"]]
        for r in range(rounds):
            chunk = items[(10 * r) % len(items):][:10]
            f.write(json.dumps({"id": f"{m['id']}-{r + 1}", "query": m["query"], "items": chunk}) + "\n")
model = "models/default-labeler"
# What the cache should save: the query tokens of each row whose query an earlier row had.
prompts = subprocess.run([sift, "prompt", "--model", model, "--input", f"{work}/rows.jsonl"], check=True,
                         capture_output=True, text=True).stdout.splitlines()
seen, repeated = set(), 0
for line in map(json.loads, prompts):
    key = tuple(line["query_ids"])
    repeated += len(key) if key in seen else 0
    seen.add(key)
print(f"{len(members)} profiles x {rounds} rounds of 10 candidates, one row each")
print("| command | call size | --kv-cache-mb | prompt tokens | reused | not run |")
print("|---|---|---|---|---|---|")
for command in ("batch", "score"):
    for calls in ([], ["--max-batch-tokens", "400"]):
        outputs = []
        for mb in ("0", "64"):
            out = f"{work}/{command}-{len(calls)}-{mb}.jsonl"
            args = [sift, "--threads", "2", "-q", command, "--model", model, "--input", f"{work}/rows.jsonl",
                    "--output", out, "--kv-cache-mb", mb, *calls]
            if command == "batch":
                summary = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
                prompt, reused = summary["prefill_tokens"], summary["cached_tokens"]
            else:  # sift score says it in its debug log
                log = subprocess.run([sift, "-v", *args[1:]], check=True, capture_output=True, text=True).stderr
                prompt, reused = map(int, re.search(r"(\d+) prompt tokens, (\d+) of them reused", log).groups())
            outputs.append(open(out, "rb").read())
            if mb != "0":
                assert reused == repeated, f"sift {command} {calls}: {reused} tokens reused, {repeated} repeated"
            size = "400" if calls else "default"
            print(f"| sift {command} | {size} | {mb} | {prompt:,} | {reused:,} | {reused / prompt:.1%} |")
        assert outputs[0] == outputs[1], f"sift {command} {calls}: the cache changed the output"
print(f"outputs: the same bytes with and without the cache; the cache reused the {repeated:,} repeated query tokens")
PY
