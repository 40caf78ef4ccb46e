#!/usr/bin/env node
// Ids and decoded text from Hugging Face tokenizers itself (the @anush008/tokenizers Node
// binding) for any tokenizer.json, so tests can check sift's Tokenizer against it on files
// made at test time (e.g. by `sift tokenizer train`).
//
//   node tools/tokenizer_ids.js TOKENIZER_JSON TEXTS_JSONL OUT_JSONL
//
// TEXTS_JSONL: one {"text": "..."} per line. OUT_JSONL: one line per text,
//   {"ids": encode(text, add_special_tokens=false) (special tokens in the text recognised),
//    "decoded": decode(ids, skip_special_tokens=false)}
// then a last line {"vocab_size": n} (added tokens included).
"use strict";
const fs = require("fs");
const { Tokenizer } = require("@anush008/tokenizers");

async function main() {
  const [tokenizerPath, textsPath, outPath] = process.argv.slice(2);
  if (!outPath) {
    console.error("usage: tokenizer_ids.js TOKENIZER_JSON TEXTS_JSONL OUT_JSONL");
    process.exit(2);
  }
  const tokenizer = Tokenizer.fromFile(tokenizerPath);
  const texts = fs.readFileSync(textsPath, "utf8").split("\n").filter((line) => line.length > 0)
    .map((line) => JSON.parse(line).text);
  const lines = [];
  for (let i = 0; i < texts.length; i += 500) {
    const batch = texts.slice(i, i + 500);
    const encodings = await tokenizer.encodeBatch(batch, { addSpecialTokens: false });
    const ids = encodings.map((e) => Array.from(e.getIds()));
    const decoded = await tokenizer.decodeBatch(ids, false);
    ids.forEach((x, k) => lines.push(JSON.stringify({ ids: x, decoded: decoded[k] })));
  }
  lines.push(JSON.stringify({ vocab_size: tokenizer.getVocabSize(true) }));
  fs.writeFileSync(outPath, lines.join("\n") + "\n");
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
