# Sourced by the e2e scripts: make_tiny_labeler SIFT SRC DIR SEED writes a tiny random labeler
# into DIR: a Qwen3 checkpoint (make-checkpoint, preset tiny, vocab 512), the byte-level BPE
# tokenizer of tests/scoring/data, and a chat-layout sift.json (version "e2e-1", plus a
# "note" field that later versions must keep) with its self-test probes, as `sift init` writes
# a labeler (`sift selftest --write`: built-in texts, scored on these weights).
make_tiny_labeler() {
  local sift=$1 src=$2 dir=$3 seed=$4
  "$sift" make-checkpoint --out "$dir" --arch qwen3 --preset tiny --vocab 512 --seed "$seed" >/dev/null
  cp "$src/tests/scoring/data/byte_bpe_tokenizer.json" "$dir/tokenizer.json"
  cat > "$dir/sift.json" <<'JSON'
{"format": "sift.scoring/2", "version": "e2e-1",
 "query_template": "<|im_start|>user\nDoes the profile support the qualification?\nProfile: {query}\n",
 "item_template": "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n",
 "yes": "YES", "no": "NO", "threshold": 0.5, "note": "kept across versions"}
JSON
  "$sift" selftest --model "$dir" --write >/dev/null 2>&1
}
