#!/usr/bin/env node
// Hugging Face tokenizers' throughput on a JSON-lines corpus {"text": ...}, for the side-by-side
// in bench/tokenizer_vs_reference.sh. Single-threaded: run with RAYON_NUM_THREADS=1.
//   node bench/tokenizer_reference_bench.js tokenizer.json corpus.jsonl RUNS
"use strict";
const fs = require("fs");
const { Tokenizer } = require("@anush008/tokenizers");

async function main() {
  const [tokenizerPath, corpusPath, runs = "3"] = process.argv.slice(2);
  const tokenizer = Tokenizer.fromFile(tokenizerPath);
  const texts = fs.readFileSync(corpusPath, "utf8").split("\n").filter((l) => l).map((l) => JSON.parse(l).text);
  const nBytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const seconds = [];
  for (let run = 0; run <= Number(runs); run++) {  // run 0 warms the cache and is not counted
    const start = process.hrtime.bigint();
    for (let i = 0; i < texts.length; i += 256) await tokenizer.encodeBatch(texts.slice(i, i + 256), { addSpecialTokens: true });
    if (run > 0) seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  seconds.sort((a, b) => a - b);
  const median = seconds[Math.floor(seconds.length / 2)];
  console.log(JSON.stringify({ bytes: nBytes, texts: texts.length, median_seconds: median, mb_per_s: nBytes / median / 1e6 }));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
