#!/usr/bin/env node
// Qwen3-Reranker's prompt ids as its model card's reference code computes them, with Hugging
// Face tokenizers (npm binding): the independent half of tests/e2e/init_presets.sh, which
// checks that `sift init --preset qwen3-reranker` makes sift score exactly these prompts.
//
//   node tools/qwen3_reranker_reference.js TOKENIZER_JSON ROWS_JSONL [INSTRUCTION]
//
// The model card (Qwen/Qwen3-Reranker-*): prefix and suffix are tokenized apart, the pair
// text between them as one text:
//   prefix = '<|im_start|>system\nJudge whether the Document meets the requirements based on
//             the Query and the Instruct provided. Note that the answer can only be "yes" or
//             "no".<|im_end|>\n<|im_start|>user\n'
//   text   = "<Instruct>: {instruction}\n<Query>: {query}\n<Document>: {doc}"
//   suffix = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
//   ids    = encode(prefix) ++ encode(text) ++ encode(suffix)
//   score  = softmax([logit(no), logit(yes)])[1] at the last position, with
//            yes/no = convert_tokens_to_ids("yes"/"no")
// ROWS_JSONL: {"query", "items": [string...]} per line. Prints one JSON line per row:
//   {"prompts": [[ids of item i's whole prompt] per item], "yes": id, "no": id}
"use strict";
const fs = require("fs");
const { Tokenizer } = require("@anush008/tokenizers");

const PREFIX = "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the " +
  "Instruct provided. Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n<|im_start|>user\n";
const SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
const DEFAULT_INSTRUCTION = "Given a web search query, retrieve relevant passages that answer the query";

async function ids(tokenizer, text, addSpecialTokens) {
  return Array.from((await tokenizer.encode(text, null, { addSpecialTokens })).getIds());
}

async function main() {
  const [tokenizerPath, rowsPath, instruction = DEFAULT_INSTRUCTION] = process.argv.slice(2);
  if (!rowsPath) throw new Error("usage: qwen3_reranker_reference.js TOKENIZER_JSON ROWS_JSONL [INSTRUCTION]");
  const tokenizer = Tokenizer.fromString(fs.readFileSync(tokenizerPath, "utf8"));
  const prefix = await ids(tokenizer, PREFIX, false);
  const suffix = await ids(tokenizer, SUFFIX, false);
  const rows = fs.readFileSync(rowsPath, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  for (const row of rows) {
    const prompts = [];
    for (const doc of row.items) {
      // The card's tokenizer(pairs, ...) call: add_special_tokens left at its default (true).
      const text = `<Instruct>: ${instruction}\n<Query>: ${row.query}\n<Document>: ${doc}`;
      prompts.push([...prefix, ...(await ids(tokenizer, text, true)), ...suffix]);
    }
    const line = { prompts, yes: tokenizer.tokenToId("yes"), no: tokenizer.tokenToId("no") };
    process.stdout.write(JSON.stringify(line) + "\n");
  }
}
main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
