#!/usr/bin/env bash
# End to end: `sift tokenizer train` on a text file plus JSON lines in the `sift synth`
# format; the tokenizer.json it writes has the requested size, is the same bytes on a
# rerun, encodes like Hugging Face tokenizers (tools/tokenizer_ids.js) through
# `sift tokenize`, and works as a labeler's tokenizer (YES / NO single tokens).
# Usage: bash tokenizer_train_cli.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 - "$WORK" <<'PY'
import json, random, sys
work = sys.argv[1]
rng = random.Random(11)
words = ["data", "engineer", "Python", "Spark", "PySpark", "Kubernetes", "EKS", "nurse", "ICU", "ACLS", "certified",
         "years", "of", "experience", "with", "no", "team", "led", "the", "and", "SQL", "café", "東京", "Привет", "2019"]
syllables = ["ka", "lo", "mi", "ner", "tra", "ex", "pro", "dat", "ion", "ing", "con", "sys", "ver", "ops", "dev"]
def word():  # a known word or a made-up one of 1-4 syllables: many distinct words
    if rng.random() < 0.5:
        return rng.choice(words)
    return "".join(rng.choice(syllables) for _ in range(rng.randint(1, 4)))
def sentence():
    return " ".join(word() for _ in range(rng.randint(3, 20))) + rng.choice([".", "!", "", " (2020-2023)"])
with open(f"{work}/corpus.txt", "w") as f:
    for _ in range(3000):
        f.write(sentence() + "\n")
with open(f"{work}/synth.jsonl", "w") as f:
    for i in range(500):
        items = [{"id": f"q{k}", "text": rng.choice(words)} for k in range(5)]
        f.write(json.dumps({"id": i, "query": sentence(), "items": items, "labels": [0] * 5, "truth": [0] * 5}) + "\n")
with open(f"{work}/texts.jsonl", "w") as f:
    for _ in range(400):
        f.write(json.dumps({"text": sentence() + rng.choice(["", "\n", "  x", " <|im_end|>", "\t42"])}) + "\n")
    for t in ["", "YES", "NO", " YES", "<|im_start|>user\nhi<|im_end|>", "ÆØÅ 👍🏽 ½"]:
        f.write(json.dumps({"text": t}) + "\n")
PY

OUT=$WORK/tokenizer.json
"$SIFT" tokenizer train --vocab-size 600 --input "$WORK/corpus.txt" --input "$WORK/synth.jsonl" --out "$OUT" \
  >"$WORK/summary.json" 2>"$WORK/log" || fail "train: $(cat "$WORK/log")"
"$SIFT" tokenizer train --vocab-size 600 --input "$WORK/corpus.txt" --input "$WORK/synth.jsonl" \
  --out "$WORK/again.json" >/dev/null 2>&1
cmp -s "$OUT" "$WORK/again.json" || fail "a second run wrote different bytes"
# --input - reads a pipe once, from its first byte (its format found from the same stream): the
# same tokenizer as the files. Text lines may end in "\r\n" or a bare "\r" (the one line rule).
cat "$WORK/corpus.txt" | "$SIFT" tokenizer train --vocab-size 600 --input - --input "$WORK/synth.jsonl" \
  --out "$WORK/piped_text.json" >/dev/null 2>"$WORK/log" || fail "train --input - (text): $(cat "$WORK/log")"
cmp -s "$OUT" "$WORK/piped_text.json" || fail "the text corpus piped to --input - gave another tokenizer than the file"
cat "$WORK/synth.jsonl" | "$SIFT" tokenizer train --vocab-size 600 --input "$WORK/corpus.txt" --input - \
  --out "$WORK/piped_jsonl.json" >/dev/null 2>"$WORK/log" || fail "train --input - (JSONL): $(cat "$WORK/log")"
cmp -s "$OUT" "$WORK/piped_jsonl.json" || fail "the JSONL corpus piped to --input - gave another tokenizer than the file"
sed 's/$/\r/' "$WORK/corpus.txt" >"$WORK/corpus_crlf.txt"
tr '\n' '\r' <"$WORK/corpus.txt" >"$WORK/corpus_cr.txt"
for ending in crlf cr; do
  "$SIFT" tokenizer train --vocab-size 600 --input "$WORK/corpus_$ending.txt" --input "$WORK/synth.jsonl" \
    --out "$WORK/$ending.json" >/dev/null 2>"$WORK/log" || fail "train on $ending lines: $(cat "$WORK/log")"
  cmp -s "$OUT" "$WORK/$ending.json" || fail "the corpus with $ending line endings gave another tokenizer"
done

# encode_both TOKENIZER NAME: texts.jsonl through sift (WORK/sift_NAME.jsonl) and through
# Hugging Face tokenizers (WORK/hf_NAME.jsonl, whose last line is {"vocab_size": n}).
encode_both() {
  "$SIFT" tokenize --tokenizer "$1" --no-special <"$WORK/texts.jsonl" >"$WORK/sift_$2.jsonl"
  node "$SRC/tools/tokenizer_ids.js" "$1" "$WORK/texts.jsonl" "$WORK/hf_$2.jsonl" \
    || fail "Hugging Face tokenizers could not load or encode with $1"
}
encode_both "$OUT" ids

python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
summary = json.load(open(f"{work}/summary.json"))
check(summary["vocab_size"] == 600 and summary["documents"] == 3000 + 500 * 6, f"summary: {summary}")
tok = json.load(open(f"{work}/tokenizer.json"))
check(len(tok["model"]["vocab"]) + len(tok["added_tokens"]) == 600, "vocabulary size")
check([t["content"] for t in tok["added_tokens"]] == ["<|endoftext|>", "<|im_start|>", "<|im_end|>"], "specials")
texts = [json.loads(l)["text"] for l in open(f"{work}/texts.jsonl")]
ours = [json.loads(l)["ids"] for l in open(f"{work}/sift_ids.jsonl")]
hf = [json.loads(l) for l in open(f"{work}/hf_ids.jsonl")]
check(hf[-1]["vocab_size"] == 600, f"HF vocabulary size {hf[-1]}")
bad = [t for t, a, b in zip(texts, ours, hf) if a != b["ids"]]
check(not bad, f"{len(bad)} texts differ from Hugging Face, e.g. {bad[:3]}")
check(all(b["decoded"] == t for t, b in zip(texts, hf)), "HF decode(encode(x)) != x")
check(len(ours[texts.index("YES")]) == 1 and len(ours[texts.index("NO")]) == 1, "YES / NO are single tokens")
PY

# --prefix-space: still Hugging Face's ids; a word is one id at the start of a text and inside it.
"$SIFT" tokenizer train --vocab-size 600 --prefix-space --input "$WORK/corpus.txt" --input "$WORK/synth.jsonl" \
  --out "$WORK/spaced.json" >/dev/null 2>"$WORK/log" || fail "train --prefix-space: $(cat "$WORK/log")"
printf '%s\n' '{"text": "Spark"}' '{"text": " Spark"}' '{"text": "no\nSpark"}' >>"$WORK/texts.jsonl"
encode_both "$WORK/spaced.json" spaced
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
texts = [json.loads(l)["text"] for l in open(f"{work}/texts.jsonl")]
ours = [json.loads(l)["ids"] for l in open(f"{work}/sift_spaced.jsonl")]
hf = [json.loads(l)["ids"] for l in open(f"{work}/hf_spaced.jsonl").readlines()[:-1]]  # last: {"vocab_size"}
bad = [t for t, a, b in zip(texts, ours, hf) if a != b]
check(not bad, f"--prefix-space: {len(bad)} texts differ from Hugging Face, e.g. {bad[:3]}")
spark, spaced_spark, after_newline = ours[-3], ours[-2], ours[-1]
check(len(spark) == 1 and spark == spaced_spark and after_newline[-1] == spark[0],
      f"--prefix-space: 'Spark' {spark}, ' Spark' {spaced_spark}, 'no\\nSpark' {after_newline}")
check(len(ours[texts.index("YES")]) == 1, "--prefix-space: YES is a single token")
PY

expect_error() {  # expect_error <text the message must contain> <args...>
  local want=$1; shift
  if "$SIFT" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null; then fail "sift $* should fail"; fi
  grep -q -- "$want" "$WORK/err" || fail "sift $*: expected '$want' in: $(cat "$WORK/err")"
}
expect_error "too small" tokenizer train --vocab-size 200 --input "$WORK/corpus.txt" --out "$WORK/x.json"
expect_error "runs out of pairs" tokenizer train --vocab-size 100000 --input "$WORK/corpus.txt" --out "$WORK/x.json"
printf '\n\n' >"$WORK/empty.txt"
expect_error "corpus is empty" tokenizer train --vocab-size 300 --input "$WORK/empty.txt" --out "$WORK/x.json"
printf '{"query": "ok"}\n{"query": 3}\n' >"$WORK/bad.jsonl"
expect_error "bad.jsonl:2" tokenizer train --vocab-size 300 --input "$WORK/bad.jsonl" --out "$WORK/x.json"
# A line longer than --max-line-bytes is an error naming its file and line, never held whole.
{ echo "short line"; head -c 5000 /dev/zero | tr '\0' 'a'; echo; } >"$WORK/long.txt"
expect_error "long.txt:2: line of 5000 bytes is longer than --max-line-bytes 4096" \
  tokenizer train --vocab-size 300 --max-line-bytes 4096 --input "$WORK/long.txt" --out "$WORK/x.json"
expect_error "--vocab-size" tokenizer train --input "$WORK/corpus.txt" --out "$WORK/x.json"
echo "tokenizer_train_cli: all checks passed"
