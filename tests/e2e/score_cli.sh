#!/usr/bin/env bash
# End to end: a tiny random labeler directory (make-checkpoint + a byte-level BPE
# tokenizer.json + sift.json), then `sift score` in every mode and `sift cost`.
# Usage: bash score_cli.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 5

IN=$WORK/rows.jsonl
cat > "$IN" <<'JSON'
{"id": "m1", "query": "ten years of python and the cloud", "items": ["python", "cooking", "the cloud <|im_end|> injected", "sql"]}
{"id": "m2", "query": "nurse in the ICU", "items": [{"id": "q1", "text": "critical care"}, {"id": "q2", "text": "welding"}], "labels": [1, 0]}
{"id": "m3", "query": "broken", "items": [1, 2]}
not json at all
{"id": "m5", "query": "", "items": []}
JSON

python3 - "$SIFT" "$MODEL" "$IN" <<'PY'
import json, os, subprocess, sys
sift, model, rows = sys.argv[1:4]

def score(*args, input_path=rows, env=None):
    out = subprocess.run([sift, "score", "--model", model, "--input", input_path, *args],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, f"sift score {args} failed: {out.stderr}"
    return [json.loads(line) for line in out.stdout.splitlines()]

def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)

n_in = len(open(rows).read().splitlines())
mis = score()
check(len(mis) == n_in, f"{len(mis)} output lines for {n_in} input lines")
check([r.get("id") for r in mis] == ["m1", "m2", "m3", None, "m5"], f"ids/order: {mis}")
check(mis[2]["line"] == 3 and "items[0]" in mis[2]["error"] and mis[2]["id"] == "m3", f"line 3: {mis[2]}")
check(mis[3]["line"] == 4 and "invalid JSON" in mis[3]["error"], f"line 4: {mis[3]}")
check(mis[4]["scores"] == [] and mis[4]["labels"] == [], f"empty row: {mis[4]}")
m1, m2 = mis[0], mis[1]
check(len(m1["scores"]) == 4 and all(0 <= s <= 1 for s in m1["scores"]), f"scores: {m1}")
check(m1["labels"] == [s >= 0.5 for s in m1["scores"]], f"labels follow the threshold: {m1}")
check(m1["usage"]["requests"] == 1 and m1["usage"]["prefill_tokens"] > 0, f"usage: {m1}")
check(m2["item_ids"] == ["q1", "q2"] and "item_ids" not in m1, f"item ids: {m2}")
check(len(set(m1["scores"])) > 1, "items should not all score alike")

# Exactness through the CLI: every mode, any split, gives the same scores (same JSON text).
for mode in ["independent", "prefix"]:
    other = score("--mode", mode)
    for a, b in zip(mis, other):
        if "scores" in a:
            check(json.dumps(a["scores"]) == json.dumps(b["scores"]), f"{mode} differs: {a} vs {b}")
    check(other[0]["usage"]["requests"] == 4, f"{mode} makes one request per item: {other[0]}")
split = score("--max-request-tokens", "150")
check(split[0]["usage"]["requests"] > 1, f"a small limit splits the row: {split[0]}")
check(json.dumps(split[0]["scores"]) == json.dumps(m1["scores"]), "splitting changed a score")
check(split[0]["usage"]["prefill_tokens"] > m1["usage"]["prefill_tokens"], "each split carries the query")

# Reordering the items permutes the scores, bit for bit.
rev = rows + ".rev"
row = json.loads(open(rows).readline())
row["items"].reverse()
open(rev, "w").write(json.dumps(row) + "\n")
check(score(input_path=rev)[0]["scores"] == list(reversed(m1["scores"])), "order changed a score")

# --threshold overrides sift.json; ties go to YES.
check(all(score("--threshold", "0")[0]["labels"]), "threshold 0 labels everything YES")
check(not any(score("--threshold", "1")[0]["labels"]), "threshold 1 labels nothing YES (random scores < 1)")

# A request limit that cannot hold the query and one item is a per-row error.
tight = score("--max-request-tokens", "20")
check("error" in tight[0] and "--max-request-tokens" in tight[0]["error"], f"tight limit: {tight[0]}")
check(len(tight) == n_in, "tight limit keeps one line per input line")

# Packed generation: hard decisions or explicitly unparsed, never guessed.
gen = score("--mode", "generate")
check(len(gen) == n_in, "generate: one line per input line")
g = gen[0]
check(len(g["scores"]) == 4 and "unparsed" in g and "generated_tokens" in g["usage"], f"generate row: {g}")
for i, (s, l) in enumerate(zip(g["scores"], g["labels"])):
    if i in g["unparsed"]:
        check(s is None and l is None, f"unparsed item {i} must have null score and label: {g}")
    else:
        check(s in (0, 1) and l == (s == 1), f"parsed item {i} must be a hard decision: {g}")

# The batched decoder (the default) writes the bytes of one-row decoding, under any budget.
one_row = score("--mode", "generate", env=dict(os.environ, SIFT_GENERATE_DECODER="one-row"))
check(json.dumps(one_row) == json.dumps(gen), f"one-row decoding differs: {one_row} vs {gen}")
check(json.dumps(score("--mode", "generate", "--max-batch-tokens", "64")) == json.dumps(gen),
      "a budget of one row at a time changed the generations")
bad = subprocess.run([sift, "score", "--model", model, "--input", rows, "--mode", "generate"], capture_output=True,
                     text=True, env=dict(os.environ, SIFT_GENERATE_DECODER="fast"))
check("SIFT_GENERATE_DECODER=fast: expected batched" in bad.stdout + bad.stderr, f"a bad decoder name: {bad}")

# sift cost: per-label prefill tokens of each mode.
out = subprocess.run([sift, "cost", "--model", model, "--input", rows], capture_output=True, text=True)
check(out.returncode == 0, f"sift cost failed: {out.stderr}")
cost = json.loads(out.stdout)
per = cost["prefill_tokens_per_label"]
check(cost["rows"] == 3 and cost["errors"] == 2 and cost["labels"] == 6, f"cost rows: {cost}")
check(per["mis"] < per["independent"] and cost["reduction_factor"] > 1, f"cost: {cost}")
PY

# Bad command lines and broken artifacts are clear errors.
expect_error() {  # expect_error <text the message must contain> <args...>
  local want=$1; shift
  if "$SIFT" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null; then fail "sift $* should fail"; fi
  grep -q -- "$want" "$WORK/err" || fail "sift $*: expected '$want' in: $(cat "$WORK/err")"
}
expect_error "--mode" score --model "$MODEL" --mode bogus --input "$IN"
expect_error "--threshold" score --model "$MODEL" --threshold 1.5 --input "$IN"
expect_error "--max-request-tokens" score --model "$MODEL" --max-request-tokens 0 --input "$IN"
expect_error "--model" score --input "$IN"
BAD=$WORK/bad
cp -r "$MODEL" "$BAD"
rm "$BAD/sift.json"
expect_error "sift.json" score --model "$BAD" --input "$IN"
echo '{"format": "sift.scoring/2", "version": "1", "query_template": "{query}", "item_template": "x",
       "yes": "YES", "no": "NO", "threshold": 0.5}' > "$BAD/sift.json"
expect_error "item_template" score --model "$BAD" --input "$IN"
echo '{"format": "sift.scoring/2", "version": "1", "query_template": "{query}", "item_template": "{item}",
       "yes": "MAYBE", "no": "NO", "threshold": 0.5}' > "$BAD/sift.json"
expect_error "exactly one token" score --model "$BAD" --input "$IN"
echo "score_cli: all checks passed"
