#!/usr/bin/env node
// Golden ids for sift's tokenizer parity test, computed by Hugging Face tokenizers itself
// (the @anush008/tokenizers Node binding).
//
//   node tools/tokenizer_reference.js OUT_DIR [--seed N] [--count N] [--variant-count N] [--corpus-only]
//
// Writes OUT_DIR/corpus.jsonl (the generated strings), one OUT_DIR/<name>.json per tokenizer
// under test, OUT_DIR/<name>.jsonl with one line per string:
//   {"text", "ids_special", "ids_plain", "ids_user", "decoded", "decoded_skip"}
//     ids_special  encode(text, add_special_tokens=true)   special tokens in the text recognised
//     ids_plain    encode(text, add_special_tokens=false)  special tokens in the text recognised
//     ids_user     encode(text, add_special_tokens=true) with special tokens in the text taken
//                  as plain text (HF encode_special_tokens=true, which this binding cannot set;
//                  computed on a copy of the tokenizer whose special tokens cannot match)
//     decoded      decode(ids_special, skip_special_tokens=false); decoded_skip: =true
// and OUT_DIR/manifest.json listing the tokenizers. The tokenizers are the Qwen3 and Llama 3
// files from node_modules, variants of them that exercise other components, and the small
// hand-written files in tests/tokenizer/data/.
"use strict";
const fs = require("fs");
const path = require("path");
const { Tokenizer } = require("@anush008/tokenizers");

const args = process.argv.slice(2);
const outDir = args[0];
if (!outDir) {
  console.error("usage: tokenizer_reference.js OUT_DIR [--seed N] [--count N] [--variant-count N]");
  process.exit(2);
}
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const seed = option("--seed", 20240611);
const count = option("--count", 12000);
// The Qwen3 and Llama 3 files get the whole corpus; the component variants its first part.
const variantCount = option("--variant-count", 3000);
const fullCorpus = new Set(["qwen3", "llama3", "llama3_bos"]);

const { generateCorpus } = require("./reference_corpus");

// ---- tokenizers under test --------------------------------------------------------------
const { root, readJson, qwen3, llama3, llama3Bos, variant, byteLevel, encodeAll, plainTextTokenizer } = require("./reference_tokenizers");
const splitThenBytes = (split) => ({ type: "Sequence", pretokenizers: [split, byteLevel(false, false)] });
const maxId = (t) => Math.max(...t.added_tokens.map((a) => a.id));
const addedToken = (id, content, flags) =>
  Object.assign({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: false }, flags);

const tokenizers = {
  qwen3,
  llama3,
  llama3_bos: llama3Bos,
  // GPT-2 style: NFD then ByteLevel with its own regex and a prefix space; added-token flags.
  qwen3_gpt2_flags: variant(qwen3, {
    normalizer: { type: "NFD" },
    pre_tokenizer: byteLevel(true, true),
    added_tokens: qwen3.added_tokens.concat([
      addedToken(maxId(qwen3) + 1, "<mask>", { lstrip: true, special: true }),
      addedToken(maxId(qwen3) + 2, "[SEP]", { rstrip: true, special: true }),
      addedToken(qwen3.model.vocab["hello"], "hello", { single_word: true, normalized: true }),  // also a model token
      addedToken(maxId(qwen3) + 3, "été", { normalized: true }),
    ]),
  }),
  qwen3_normalizers: variant(qwen3, {
    normalizer: { type: "Sequence", normalizers: [{ type: "NFKC" }, { type: "Lowercase" }, { type: "Strip", strip_left: true, strip_right: true },
      { type: "Replace", pattern: { Regex: "\\s{2,}" }, content: " " }, { type: "Replace", pattern: { String: "é" }, content: "e" },
      { type: "Prepend", prepend: "^" }] },
    added_tokens: qwen3.added_tokens.concat([addedToken(maxId(qwen3) + 1, "ÉTÉ", { normalized: true, special: true })]),
  }),
  qwen3_split_removed: variant(qwen3, { pre_tokenizer: splitThenBytes({ type: "Split", pattern: { Regex: "\\s+|\\d" }, behavior: "Removed", invert: false }) }),
  qwen3_split_merged_prev: variant(qwen3, { pre_tokenizer: splitThenBytes({ type: "Split", pattern: { Regex: "\\s+|\\d" }, behavior: "MergedWithPrevious", invert: false }) }),
  qwen3_split_merged_next: variant(qwen3, { pre_tokenizer: splitThenBytes({ type: "Split", pattern: { String: " " }, behavior: "MergedWithNext", invert: false }) }),
  qwen3_split_contiguous: variant(qwen3, { pre_tokenizer: splitThenBytes({ type: "Split", pattern: { Regex: "[aeiou]|\\p{N}" }, behavior: "Contiguous", invert: false }) }),
  qwen3_split_invert: variant(qwen3, { pre_tokenizer: splitThenBytes({ type: "Split", pattern: { Regex: "\\p{L}+" }, behavior: "Isolated", invert: true }) }),
  qwen3_split_invert_removed: variant(qwen3, { pre_tokenizer: splitThenBytes({ type: "Split", pattern: { Regex: "\\w+" }, behavior: "Removed", invert: true }) }),
  qwen3_digits_whitespace: variant(qwen3, { pre_tokenizer: { type: "Sequence", pretokenizers: [
    { type: "Digits", individual_digits: true }, { type: "Whitespace" }, byteLevel(false, false)] } }),
  qwen3_digits_whitespacesplit: variant(qwen3, { pre_tokenizer: { type: "Sequence", pretokenizers: [
    { type: "WhitespaceSplit" }, { type: "Digits", individual_digits: false }, byteLevel(false, false)] } }),
};
for (const file of fs.readdirSync(path.join(root, "tests/tokenizer/data")).sort()) {
  if (file.endsWith(".json")) tokenizers[path.basename(file, ".json")] = readJson(path.join(root, "tests/tokenizer/data", file));
}

// ---- goldens ----------------------------------------------------------------------------

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const corpus = generateCorpus(seed, count);
  fs.writeFileSync(path.join(outDir, "corpus.jsonl"), corpus.map((text) => JSON.stringify({ text })).join("\n") + "\n");
  if (args.includes("--corpus-only")) return;
  const manifest = [];
  for (const [name, config] of Object.entries(tokenizers)) {
    const texts = fullCorpus.has(name) ? corpus : corpus.slice(0, variantCount);
    const jsonPath = path.join(outDir, `${name}.json`);
    fs.writeFileSync(jsonPath, JSON.stringify(config));
    const tokenizer = Tokenizer.fromString(JSON.stringify(config));
    const special = await encodeAll(tokenizer, texts, true);
    const plain = await encodeAll(tokenizer, texts, false);
    const user = await plainTextTokenizer(config).encodeAll(texts, true);
    const decoded = await tokenizer.decodeBatch(special, false);
    const decodedSkip = await tokenizer.decodeBatch(special, true);
    const lines = texts.map((text, i) => JSON.stringify({ text, ids_special: special[i], ids_plain: plain[i], ids_user: user[i],
      decoded: decoded[i], decoded_skip: decodedSkip[i] }));
    fs.writeFileSync(path.join(outDir, `${name}.jsonl`), lines.join("\n") + "\n");
    manifest.push({ name, tokenizer: `${name}.json`, golden: `${name}.jsonl`, lossless: name === "llama3" || name === "llama3_bos" });
    console.log(`${name}: ${texts.length} strings`);
  }
  fs.writeFileSync(path.join(outDir, "manifest.json"), JSON.stringify(manifest, null, 1));
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
