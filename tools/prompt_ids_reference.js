#!/usr/bin/env node
// The prompt ids Hugging Face tokenizers gives for scoring rows under a labeler's sift.json,
// by the prompt contract (reference_tokenizers.js encodePromptParts): the independent half of
// the float64 scoring reference test (tests/e2e/score_reference.sh).
//
//   node tools/prompt_ids_reference.js TOKENIZER_JSON SIFT_JSON ROWS_JSONL
//
// ROWS_JSONL: {"query", "items": [string...]} per line. Prints one JSON line per row:
//   {"query_ids": [...], "item_ids": [[...] per item], "yes": id, "no": id}
"use strict";
const fs = require("fs");
const { Tokenizer } = require("@anush008/tokenizers");
const { readJson, encodeAll, encodePromptParts } = require("./reference_tokenizers");

async function main() {
  const [tokenizerPath, siftJsonPath, rowsPath] = process.argv.slice(2);
  if (!rowsPath) throw new Error("usage: prompt_ids_reference.js TOKENIZER_JSON SIFT_JSON ROWS_JSONL");
  const config = readJson(tokenizerPath);
  const artifact = readJson(siftJsonPath);
  const rows = fs.readFileSync(rowsPath, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const parts = [];
  for (const row of rows) {
    parts.push({ template: artifact.query_template, user: row.query, isQuery: true });
    for (const item of row.items) parts.push({ template: artifact.item_template, user: item, isQuery: false });
  }
  const ids = await encodePromptParts(config, parts);
  const tokenizer = Tokenizer.fromString(JSON.stringify(config));
  const [yes, no] = await encodeAll(tokenizer, [artifact.yes, artifact.no], false);
  if (yes.length !== 1 || no.length !== 1) throw new Error("yes/no must be one token each");
  let next = 0;
  for (const row of rows) {
    const line = { query_ids: ids[next++], item_ids: row.items.map(() => ids[next++]), yes: yes[0], no: no[0] };
    process.stdout.write(JSON.stringify(line) + "\n");
  }
}
main().catch((e) => {
  console.error(e.message || e);
  process.exit(1);
});
