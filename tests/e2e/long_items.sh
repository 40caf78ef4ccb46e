#!/usr/bin/env bash
# End to end: long items (--long-items, docs/scoring.md#long-items) on the bundled labeler.
#   chunk: a document of 20 windows scores, bit for bit, the greatest of its windows' scores,
#   each window's text (from the spans the output gives) scored as an ordinary item, through
#   sift score, sift batch and /v1/rerank on a real sift serve (/v1/rerank chunks by default,
#   /v1/label when asked); its windows run in one request beside the query, where 20 rows of
#   one window each run the query 20 times;
#   error: the row's error line names the item and the way out; truncate: usage.truncated_tokens;
#   hostile sizes: stride 0 and a window over the request limit are usage errors, a 10 MB item
#   is its row's error (too many windows), /v1/score refuses chunk with 400.
# Usage: bash long_items.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$SRC/models/default-labeler" "$WORK" <<'PY'
import json, subprocess, sys
from serve_client import Server, check
sift, model, work = sys.argv[1:4]

SKILLS = ["Python", "welding", "Kubernetes", "accounting", "Go", "nursing", "SQL"]
def long_document(sentences):  # as tests/scoring/test_long_items.cpp: 42 sentences, 20 windows of 64 tokens
    return "".join(f"In year {i} the member worked with {SKILLS[i * 5 % 7]} and {SKILLS[i * 3 % 7]}. "
                   for i in range(sentences))

QUERY = "Ten years of Python and Go"
DOC = long_document(42)
CHUNK = ["--long-items", "chunk", "--max-item-tokens", "64", "--max-request-tokens", "100000"]

RUNS = [0]
def run(cmd, rows, *args, expect=0):
    RUNS[0] += 1
    path = f"{work}/rows{RUNS[0]}.jsonl"
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    out = f"{work}/out{RUNS[0]}.jsonl"
    p = subprocess.run([sift, cmd, "--model", model, "--input", path, "--output", out, *args],
                       capture_output=True, text=True)
    check(p.returncode == expect, f"sift {cmd} {args}: exit {p.returncode}: {p.stderr}")
    return [json.loads(line) for line in open(out)] if p.returncode == 0 else p.stderr

def windows_alone(spans):
    """Each window's text scored as an ordinary item (no chunking): their scores."""
    texts = [DOC[b:e] for b, e in spans]
    [line] = run("score", [{"query": QUERY, "items": texts}])
    return line["scores"]

# 1. sift score: the document's score is the greatest of its windows', bit for bit.
[line] = run("score", [{"id": "d", "query": QUERY, "items": ["Python", DOC]}], *CHUNK)
check(line["windows"][0]["item"] == 1 and len(line["windows"][0]["spans"]) == 20, f"20 windows: {line}")
spans, best = line["windows"][0]["spans"], line["windows"][0]["best"]
check(spans[0][0] == 0 and spans[-1][1] == len(DOC), f"the windows cover the document: {spans}")
alone = windows_alone(spans)
check(line["scores"][1] == max(alone) and alone.index(max(alone)) == best, f"max of windows: {line['scores']} vs {alone}")
check(min(alone) != max(alone), f"the windows should score differently: {alone}")
usage = line["usage"]
check(usage["window"] == 64 and usage["windows"] == 20 and usage["requests"] == 1, f"usage: {usage}")

# One request (the query once) against 20 rows of one window each (the query 20 times).
separate = run("score", [{"query": QUERY, "items": [DOC[b:e]]} for b, e in spans], "--kv-cache-mb", "0")
[together] = run("score", [{"query": QUERY, "items": [DOC]}], *CHUNK, "--kv-cache-mb", "0")
query_tokens = (sum(r["usage"]["prefill_tokens"] for r in separate) - together["usage"]["prefill_tokens"]) // 19
check(query_tokens > 0, f"20 separate requests run the query 19 more times: {together['usage']} vs {separate}")

# 2. sift batch writes the same scores and windows.
[batched] = run("batch", [{"id": "d", "query": QUERY, "items": ["Python", DOC]}], *CHUNK)
check(batched["scores"] == line["scores"] and batched["windows"] == line["windows"], f"batch: {batched}")

# 3. error (the default): the row's error line, the other rows scored; truncate counts the cut.
lines = run("score", [{"query": QUERY, "items": [DOC]}, {"query": QUERY, "items": ["Python"]}], "--max-item-tokens", "64")
check("item 0 is" in lines[0]["error"] and "--max-item-tokens 64" in lines[0]["error"]
      and "--long-items chunk" in lines[0]["error"], f"error: {lines[0]}")
check("scores" in lines[1], f"the short row is scored: {lines[1]}")
[cut] = run("score", [{"query": QUERY, "items": [DOC]}], "--long-items", "truncate", "--max-item-tokens", "64")
check(cut["usage"]["truncated_tokens"] > 0 and "windows" not in cut, f"truncate: {cut}")

# 4. Hostile sizes: clear errors, no runaway.
err = run("score", [{"query": QUERY, "items": [DOC]}], "--long-items", "chunk", "--window-stride", "0", expect=2)
check("--window-stride" in err, f"stride 0: {err}")
err = run("score", [{"query": QUERY, "items": [DOC]}], "--long-items", "chunk", "--max-item-tokens", "5000", expect=2)
check("--max-item-tokens 5000 is more than a request holds" in err, f"window over the limit: {err}")
lines = run("score", [{"query": QUERY, "items": ["x" * (10 << 20)]}, {"query": QUERY, "items": ["Python"]}], *CHUNK)
check("more than --max-windows 256" in lines[0]["error"] and "scores" in lines[1], f"10 MB item: {lines[0]}")

# 5. sift serve: /v1/rerank chunks by default, and scores the document as sift score does.
with Server(sift, model, "--threads", "1", "--max-item-tokens", "64") as server:
    status, _, body = server.post("/v1/rerank", {"query": QUERY, "documents": [DOC, "Python"]})
    check(status == 200, f"rerank: {status} {body}")
    doc = next(r for r in body["results"] if r["index"] == 0)
    check(doc["windows"]["spans"] == spans and doc["relevance_score"] == max(alone), f"rerank: {doc} vs {alone}")
    check(body["usage"]["windows"] == 20, f"rerank usage: {body['usage']}")
    status, _, each = server.post("/v1/rerank", {"query": QUERY, "documents": [DOC[b:e] for b, e in spans]})
    check(status == 200 and max(r["relevance_score"] for r in each["results"]) == doc["relevance_score"],
          f"rerank of the windows alone: {each}")
    # /v1/label: error by default (400 naming the item), chunk when asked.
    status, _, body = server.post("/v1/label", {"query": QUERY, "items": ["Python", DOC]})
    check(status == 400 and body["error"]["param"] == "items" and "items[1] is" in body["error"]["message"], f"label: {body}")
    status, _, body = server.post("/v1/label", {"query": QUERY, "items": ["Python", DOC], "long_items": "chunk"})
    check(status == 200 and body["scores"][1] == max(alone) and body["windows"][0]["best"] == best, f"label chunk: {body}")
    status, _, body = server.post("/v1/rerank", {"query": QUERY, "documents": [DOC], "long_items": "error"})
    check(status == 400 and "documents[0] is" in body["error"]["message"], f"rerank long_items error: {body}")
    status, _, body = server.post("/v1/score", {"query": QUERY, "items": [DOC], "label_token_ids": [1], "long_items": "chunk"})
    check(status == 400 and body["error"]["param"] == "long_items", f"/v1/score chunk: {body}")
    status, _, body = server.post("/v1/rerank", {"query": QUERY, "documents": [DOC], "long_items": "pieces"})
    check(status == 400 and body["error"]["param"] == "long_items", f"a bad long_items: {body}")
print("long_items: ok")
PY
