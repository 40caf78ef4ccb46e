#!/usr/bin/env bash
# A long document by windows (--long-items chunk): a document of about 20,000 tokens against a
# query of a few hundred, scored as 20 windows in ONE request (the query once), against the
# same 20 windows as 20 rows of one item each (20 requests, one a forward call, no cache: the
# query runs in every one), and by
# windows at the default request limit (one window a request, the query's keys from the
# query-KV cache). Prints prefill tokens (usage.prefill_tokens, and those run: less the
# cached), seconds, and fails unless the document's score is bit for bit the greatest of the
# 20 rows' scores. Token counts do not depend on the machine; seconds do.
# Usage: bash bench/long_items.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$build/sift" "$work" <<'PY'
import json, re, subprocess, sys, time
sift, work = sys.argv[1:3]
model = "models/default-labeler"
skills = ["Python", "welding", "Kubernetes", "accounting", "Go", "nursing", "SQL", "Rust", "payroll"]
doc = "".join(f"In {1990 + i % 30} the member worked on project {i} with {skills[i * 5 % 9]} and {skills[i * 7 % 9]}. "
              for i in range(750))
query = "".join(f"Requirement {i}: several years of {skills[i % 9]} in production. " for i in range(25))
window = ["--long-items", "chunk", "--max-item-tokens", "1310"]

def score(rows, *args):
    """(lines, seconds, prompt tokens run): `sift -v` logs the tokens the cache served."""
    with open(f"{work}/in.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    start = time.perf_counter()
    p = subprocess.run([sift, "score", "--model", model, "--input", f"{work}/in.jsonl", "--output", f"{work}/out.jsonl",
                        "--threads", "1", "-v", *args], check=True, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    m = re.search(r"(\d+) prompt tokens, (\d+) of them reused", p.stderr)
    return [json.loads(l) for l in open(f"{work}/out.jsonl")], seconds, int(m[1]) - int(m[2])

[one], t_one, run_one = score([{"query": query, "items": [doc]}], *window, "--max-request-tokens", "30000", "--kv-cache-mb", "0")
spans = one["windows"][0]["spans"]
# One row a forward call (two do not fit 2048 tokens) and no cache: each runs its query.
rows, t_rows, run_rows = score([{"query": query, "items": [doc[b:e]]} for b, e in spans], "--max-batch-tokens", "2048",
                               "--kv-cache-mb", "0")
[split], t_split, run_split = score([{"query": query, "items": [doc]}], *window)
query_len = len(json.loads(subprocess.run([sift, "prompt", "--model", model], input=json.dumps({"query": query, "items": ["x"]}),
                                          capture_output=True, text=True, check=True).stdout)["query_ids"])
doc_len = len(json.loads(subprocess.run([sift, "prompt", "--model", model], input=json.dumps({"query": "", "items": [doc]}),
                                        capture_output=True, text=True, check=True).stdout)["item_ids"][0])
best = max(r["scores"][0] for r in rows)
assert one["scores"][0] == best == split["scores"][0], (one["scores"], best, split["scores"])
print(f"document {doc_len} tokens, query {query_len} tokens, {len(spans)} windows of at most {one['usage']['window']} "
      f"(stride {one['usage']['stride']})")
print(f"{'plan':<44} {'requests':>8} {'prefill':>8} {'run':>8} {'seconds':>8}")
n = len(spans)
for name, lines, t, run in [(f"{n} windows, one request", [one], t_one, run_one),
                            (f"{n} rows of one window, {n} requests", rows, t_rows, run_rows),
                            (f"{n} windows, request limit 2048, KV cache", [split], t_split, run_split)]:
    prefill = sum(l["usage"]["prefill_tokens"] for l in lines)
    print(f"{name:<44} {sum(l['usage']['requests'] for l in lines):>8} {prefill:>8} {run:>8} {t:>8.2f}")
print("the document's score is bit for bit the greatest of its windows' scored alone")
PY
