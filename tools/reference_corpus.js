"use strict";
// The deterministic test corpus shared by the Hugging Face reference scripts
// (tokenizer_reference.js, prompt_reference.js): many scripts, code, long numbers, whitespace
// runs, NFD text, emoji, special-token look-alikes. generateCorpus(seed, n) is a pure function.

function generateCorpus(seed, n) {
  const random = mulberry32(seed);
  function mulberry32(a) {
    return () => {
      a |= 0; a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
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
  function generate(n) {
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

  return generate(n);
}

module.exports = { generateCorpus };
