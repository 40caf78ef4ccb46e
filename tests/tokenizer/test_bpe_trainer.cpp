// Byte-level BPE training: merges on hand-computed corpora, tie-breaking, single-token
// words, errors; and a V=1000 vocabulary trained on a generated corpus that sift's Tokenizer
// and Hugging Face tokenizers (tools/tokenizer_ids.js, the Node binding) encode alike.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "core/error.h"
#include "tokenizer/bpe_corpus.h"
#include "tokenizer/bpe_trainer.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

BpeTrainerOptions options(int64_t vocab_size, std::vector<std::string> special_tokens = {},
                          std::vector<std::string> single_token_words = {}) {
  BpeTrainerOptions o;
  o.vocab_size = vocab_size;
  o.special_tokens = std::move(special_tokens);
  o.single_token_words = std::move(single_token_words);
  return o;
}

TrainedBpe train_on(const std::vector<std::string>& documents, BpeTrainerOptions options) {
  BpeTrainer trainer(std::move(options));
  for (const std::string& document : documents) trainer.add_document(document);
  return trainer.train();
}

std::unique_ptr<Tokenizer> load(const TrainedBpe& bpe) {
  return Tokenizer::from_json_string(trained_bpe_to_tokenizer_json(bpe).dump(), "trained");
}

std::vector<int32_t> encode(const Tokenizer& tokenizer, std::string_view text) {
  return tokenizer.encode(text, {.add_special_tokens = false, .special_text = SpecialText::Recognise});
}

TEST(BpeTrainer, PrefixSpaceMakesAWordTheSameIdAtTheStartOfAText) {
  const std::vector<std::string> corpus = {"Spark and Python", "Python\nSpark, Kafka", "used Spark daily"};
  BpeTrainerOptions with = options(280, {}, {"YES"});
  with.prefix_space = true;
  const TrainedBpe spaced = train_on(corpus, with);
  EXPECT_TRUE(spaced.prefix_space);
  EXPECT_EQ(trained_bpe_to_tokenizer_json(spaced)["pre_tokenizer"]["pretokenizers"][1]["add_prefix_space"], true);
  const auto tokenizer = load(spaced);
  const std::vector<int32_t> alone = encode(*tokenizer, "Spark");
  EXPECT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone, encode(*tokenizer, " Spark"));
  // After a newline and after a comma's space, the same id as at the start.
  const std::vector<int32_t> line = encode(*tokenizer, "Python\nSpark");
  EXPECT_EQ(line.back(), alone[0]);
  EXPECT_EQ(encode(*tokenizer, "YES").size(), 1u);  // the single-token word, with its space

  // Without the option the first word of a text is another token.
  const auto plain = load(train_on(corpus, options(280)));
  EXPECT_NE(encode(*plain, "Spark"), encode(*plain, " Spark"));
}

TEST(BpeTrainer, MergesTheMostFrequentPairFirst) {
  // Words: "abab", " abab", " cd" (once each).
  //   counts: (a,b) 4, (b,a) 2, (' ',a) 1, (' ',c) 1, (c,d) 1 -> merge a b = "ab" (256)
  //   then:   (ab,ab) 2, (' ',ab) 1, (' ',c) 1, (c,d) 1      -> merge ab ab = "abab" (257)
  const TrainedBpe bpe = train_on({"abab abab cd"}, options(258));
  ASSERT_EQ(bpe.merges.size(), 2u);
  EXPECT_EQ(bpe.merges[0], (std::pair<int32_t, int32_t>{'a', 'b'}));
  EXPECT_EQ(bpe.merges[1], (std::pair<int32_t, int32_t>{256, 256}));
  ASSERT_EQ(bpe.tokens.size(), 258u);
  EXPECT_EQ(bpe.tokens['a'], "a");
  EXPECT_EQ(bpe.tokens[256], "ab");
  EXPECT_EQ(bpe.tokens[257], "abab");
  EXPECT_EQ(bpe.vocab_size(), 258);
}

TEST(BpeTrainer, TiesGoToTheLexicographicallySmallestPair) {
  // Words "xy", " ba": every pair counts 1. (' ', b) < (b, a) < (x, y) by bytes, so " b"
  // first; then (" b", a) and (x, y) tie and " b" < "x".
  const TrainedBpe bpe = train_on({"xy ba"}, options(259));
  ASSERT_EQ(bpe.merges.size(), 3u);
  EXPECT_EQ(bpe.tokens[256], " b");
  EXPECT_EQ(bpe.tokens[257], " ba");
  EXPECT_EQ(bpe.tokens[258], "xy");
}

TEST(BpeTrainer, CountsWeighRepeatedWords) {
  // "cd" three times outweighs "ab" once, whatever the order of the documents.
  const TrainedBpe bpe = train_on({"ab", "cd", "cd", "cd"}, options(257));
  EXPECT_EQ(bpe.tokens[256], "cd");
}

TEST(BpeTrainer, OverlappingRunsAreCountedAndMergedLeftToRight) {
  // "aaaa": (a,a) x3 -> "aa"; the word becomes [aa, aa]: (aa, aa) once -> "aaaa".
  const TrainedBpe bpe = train_on({"aaaa"}, options(258));
  EXPECT_EQ(bpe.tokens[256], "aa");
  EXPECT_EQ(bpe.tokens[257], "aaaa");
  EXPECT_EQ(encode(*load(bpe), "aaaa"), std::vector<int32_t>{257});
  EXPECT_EQ(encode(*load(bpe), "aaa"), (std::vector<int32_t>{256, 'a'}));
}

TEST(BpeTrainer, SingleTokenWordsComeFirstAndStayWhole) {
  const TrainedBpe bpe =
      train_on({"the cat sat on the mat", "ABBA CABS"}, options(270, {"<|im_end|>"}, {"YES", "NO", "AB", "CAB"}));
  // YES: (Y,E) (YE,S); NO: (N,O); AB: (A,B); CAB: C + AB.
  ASSERT_GE(bpe.merges.size(), 5u);
  EXPECT_EQ(bpe.tokens[bpe.merges[0].first] + bpe.tokens[bpe.merges[0].second], "YE");
  EXPECT_EQ(bpe.tokens[bpe.merges[1].first] + bpe.tokens[bpe.merges[1].second], "YES");
  EXPECT_EQ(bpe.tokens[bpe.merges[2].first] + bpe.tokens[bpe.merges[2].second], "NO");
  EXPECT_EQ(bpe.tokens[bpe.merges[4].first], "C");
  EXPECT_EQ(bpe.tokens[bpe.merges[4].second], "AB");
  const auto tokenizer = load(bpe);
  for (const char* word : {"YES", "NO", "AB", "CAB"}) EXPECT_EQ(encode(*tokenizer, word).size(), 1u) << word;
  EXPECT_EQ(tokenizer->vocab_size(), 270);
  EXPECT_EQ(encode(*tokenizer, "<|im_end|>"), std::vector<int32_t>{269});
}

TEST(BpeTrainer, ClearErrors) {
  auto message = [](std::vector<std::string> documents, BpeTrainerOptions options) -> std::string {
    try {
      train_on(documents, options);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_THAT(message({"x"}, options(257, {"<a>", "<b>"})), HasSubstr("too small"));
  EXPECT_THAT(message({"x"}, options(300, {"<a>", "<a>"})), HasSubstr("twice"));
  EXPECT_THAT(message({"x"}, options(300, {""})), HasSubstr("must not be empty"));
  EXPECT_THAT(message({"ab ab"}, options(300)), HasSubstr("runs out of pairs"));
  EXPECT_THAT(message({"x"}, options(300, {}, {"a b"})),
              HasSubstr("split by the pre-tokenizer"));
  EXPECT_THAT(message({"x"}, options(257, {}, {"YES"})), HasSubstr("too small"));
  EXPECT_THAT(message({"ok", std::string("bad \xff byte")}, options(300)), HasSubstr("invalid UTF-8"));
}

// ---- a generated corpus -------------------------------------------------------------------

class TextGenerator {
 public:
  explicit TextGenerator(uint32_t seed) : random_(seed) {}

  // A profile-like line: words, numbers, punctuation, a few other scripts and symbols.
  std::string sentence() {
    static const std::vector<std::string> words = {
        "the", "data", "engineer", "with", "years", "of", "experience", "in", "Python", "Kubernetes", "AWS",
        "Apache", "Spark", "PySpark", "EKS", "ACLS", "certified", "nurse", "ICU", "critical", "care", "team",
        "led", "built", "pipelines", "machine", "learning", "SQL", "no", "experience", "with", "Java", "managed",
        "café", "résumé", "naïve", "Straße", "Привет", "мир", "東京", "日本語", "안녕하세요", "مرحبا", "שלום",
        "I'm", "we've", "they'll", "it's", "don't", "C++", "C#", "Node.js", "e-commerce", "full-stack"};
    static const std::vector<std::string> glue = {" ", " ", " ", " ", ", ", ". ", "; ", " - ", ": ", " (", ") ",
                                                  "  ", "\t", " / ", "! ", "? ", " & ", " 👍 ", " — "};
    std::string text;
    const int n = pick(3, 25);
    for (int i = 0; i < n; ++i) {
      if (i > 0) text += glue[pick(0, static_cast<int>(glue.size()) - 1)];
      const int kind = pick(0, 9);
      if (kind == 0) text += std::to_string(pick(0, 2030));
      else if (kind <= 4) text += made_up_word();
      else text += words[pick(0, static_cast<int>(words.size()) - 1)];
    }
    return text;
  }

  // A made-up word of 1-4 syllables, sometimes capitalised: many distinct words.
  std::string made_up_word() {
    static const std::vector<std::string> syllables = {
        "ka", "lo", "mi", "ner", "tra", "ex", "pro", "dat", "ion", "ing", "er", "con", "sys", "ter", "qu", "al",
        "ver", "ti", "fi", "cat", "ops", "dev", "net", "ware", "lab", "el", "sco", "re", "an", "ly", "sis", "ment"};
    std::string word;
    const int n = pick(1, 4);
    for (int i = 0; i < n; ++i) word += syllables[pick(0, static_cast<int>(syllables.size()) - 1)];
    if (pick(0, 4) == 0) word[0] = static_cast<char>(word[0] - 'a' + 'A');
    return word;
  }

  // Anything: code points from blocks PCRE2 (Unicode 14) and HF's Oniguruma agree on,
  // whitespace runs, digits, special tokens, emoji sequences.
  std::string wild() {
    static const std::vector<std::pair<char32_t, char32_t>> blocks = {
        {0x20, 0x7e},     {0x80, 0x24f},     {0x370, 0x52f},   {0x591, 0x6ff},   {0x900, 0xdff},
        {0x1e00, 0x1fff}, {0x2000, 0x2bff},  {0x3000, 0x30ff}, {0x4e00, 0x9fff}, {0xac00, 0xd7a3},
        {0xfb00, 0xfdff}, {0x1f300, 0x1f5ff}};
    static const std::vector<std::string> pieces = {" ", "  ", "\n", "\r\n", "\t", "   \n", "\u00a0", "\u3000",
                                                    "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_", "'s",
                                                    "'LL", "1234567", "👨‍👩‍👧", "🏳️‍🌈", "e\u0301"};
    std::string text;
    const int n = pick(1, 30);
    for (int i = 0; i < n; ++i) {
      if (pick(0, 3) == 0) {
        text += pieces[pick(0, static_cast<int>(pieces.size()) - 1)];
      } else {
        const auto [lo, hi] = blocks[pick(0, static_cast<int>(blocks.size()) - 1)];
        const char32_t c = lo + static_cast<char32_t>(pick(0, static_cast<int>(hi - lo)));
        if (c >= 0xd800 && c <= 0xdfff) continue;
        utf8::append(text, c);
      }
    }
    return text;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random_); }
  std::mt19937 random_;
};

class TrainedVocabulary : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("sift_bpe_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    TextGenerator generator(2024);
    for (int i = 0; i < 6000; ++i) corpus_.push_back(generator.sentence());
    options_ = options(1000, {"<|endoftext|>", "<|im_start|>", "<|im_end|>"}, {"YES", "NO"});
    bpe_ = new TrainedBpe(train_on(corpus_, options_));
    text_ = trained_bpe_to_tokenizer_json(*bpe_).dump(2);
    std::ofstream(dir_ / "tokenizer.json") << text_;
    tokenizer_ = Tokenizer::load(dir_ / "tokenizer.json").release();

    // Held-out text: new sentences, and wild strings the corpus never had.
    TextGenerator held_out(77);
    for (int i = 0; i < 1500; ++i) tests_.push_back(held_out.sentence());
    for (int i = 0; i < 1500; ++i) tests_.push_back(held_out.wild());
    tests_.insert(tests_.end(), {"", " ", "YES", "NO", " YES", "yes", "<|im_start|>user\nYES<|im_end|>"});
  }
  static void TearDownTestSuite() {
    delete tokenizer_;
    delete bpe_;
    std::filesystem::remove_all(dir_);
  }
  static inline std::filesystem::path dir_;
  static inline std::vector<std::string> corpus_, tests_;
  static inline BpeTrainerOptions options_;
  static inline TrainedBpe* bpe_ = nullptr;
  static inline std::string text_;
  static inline Tokenizer* tokenizer_ = nullptr;
};

TEST_F(TrainedVocabulary, HasExactlyTheRequestedSize) {
  EXPECT_EQ(bpe_->vocab_size(), 1000);
  EXPECT_EQ(tokenizer_->vocab_size(), 1000);
  const nlohmann::json json = nlohmann::json::parse(text_);
  EXPECT_EQ(json["model"]["vocab"].size() + json["added_tokens"].size(), 1000u);
  EXPECT_EQ(json["added_tokens"][2]["content"], "<|im_end|>");
  EXPECT_EQ(json["added_tokens"][2]["id"], 999);
  EXPECT_TRUE(json["added_tokens"][2]["special"].get<bool>());
  EXPECT_EQ(json["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"], std::string(kPreTokenizerRegex));
  EXPECT_EQ(*tokenizer_->token_to_id("<|im_end|>"), 999);
  EXPECT_EQ(encode(*tokenizer_, "YES").size(), 1u);
  EXPECT_EQ(encode(*tokenizer_, "NO").size(), 1u);
}

TEST_F(TrainedVocabulary, CompressesTheText) {
  size_t n_bytes = 0, n_tokens = 0;
  for (size_t i = 0; i < 500; ++i) {
    n_bytes += tests_[i].size();
    n_tokens += encode(*tokenizer_, tests_[i]).size();
  }
  EXPECT_LT(static_cast<double>(n_tokens), 0.5 * static_cast<double>(n_bytes)) << "merges should be learned";
}

TEST_F(TrainedVocabulary, DecodeGivesBackTheText) {
  size_t n_bad = 0;
  for (const std::string& text : tests_) {
    if (tokenizer_->decode(encode(*tokenizer_, text)) != text && ++n_bad <= 5)
      ADD_FAILURE() << "round trip of " << nlohmann::json(text).dump();
  }
  EXPECT_EQ(n_bad, 0u);
}

TEST_F(TrainedVocabulary, IsDeterministic) {
  // Same corpus: same bytes. Reordered documents: same counts, so the same file too.
  EXPECT_EQ(trained_bpe_to_tokenizer_json(train_on(corpus_, options_)).dump(2), text_);
  std::vector<std::string> reversed(corpus_.rbegin(), corpus_.rend());
  EXPECT_EQ(trained_bpe_to_tokenizer_json(train_on(reversed, options_)).dump(2), text_);
}

TEST_F(TrainedVocabulary, HuggingFaceGivesTheSameIds) {
  ASSERT_GE(tests_.size(), 2000u);
  {
    std::ofstream texts(dir_ / "texts.jsonl");
    for (const std::string& text : tests_) texts << nlohmann::json{{"text", text}}.dump() << "\n";
  }
  const std::string command = "node '" + std::string(SIFT_SOURCE_DIR) + "/tools/tokenizer_ids.js' '" +
                              (dir_ / "tokenizer.json").string() + "' '" + (dir_ / "texts.jsonl").string() + "' '" +
                              (dir_ / "hf.jsonl").string() + "' > '" + (dir_ / "node.log").string() + "' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << "Hugging Face tokenizers failed (needs node and `npm ci`); "
                                                "its output: "
                                             << std::ifstream(dir_ / "node.log").rdbuf();
  std::ifstream hf(dir_ / "hf.jsonl");
  std::string line;
  size_t n_bad = 0, n_checked = 0;
  for (const std::string& text : tests_) {
    ASSERT_TRUE(std::getline(hf, line));
    const nlohmann::json expected = nlohmann::json::parse(line);
    const std::vector<int32_t> ids = encode(*tokenizer_, text);
    ++n_checked;
    if ((ids != expected["ids"].get<std::vector<int32_t>>() || tokenizer_->decode(ids) != expected["decoded"]) &&
        ++n_bad <= 5) {
      ADD_FAILURE() << "mismatch for " << nlohmann::json(text).dump() << "\n  sift: " << nlohmann::json(ids).dump()
                    << "\n  hf:   " << expected["ids"].dump();
    }
  }
  EXPECT_EQ(n_bad, 0u) << "of " << n_checked;
  ASSERT_TRUE(std::getline(hf, line));
  EXPECT_EQ(nlohmann::json::parse(line)["vocab_size"], 1000) << "HF's vocabulary size, added tokens included";
}

// ---- corpus files -------------------------------------------------------------------------

class CorpusFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("sift_bpe_corpus_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::vector<std::string> read(const std::filesystem::path& path, int64_t max_line_bytes = kDefaultMaxLineBytes) {
    std::vector<std::string> documents;
    stats_ = read_corpus_file(path.string(), max_line_bytes, [&](std::string_view d) { documents.emplace_back(d); });
    return documents;
  }
  std::filesystem::path dir_;
  CorpusStats stats_;
};

TEST_F(CorpusFiles, TextIsOneDocumentPerLine) {
  std::ofstream(dir_ / "a.txt") << "first line\r\n\nsecond {\"query\": 1}\n";
  EXPECT_EQ(read(dir_ / "a.txt"), (std::vector<std::string>{"first line", "second {\"query\": 1}"}));
  EXPECT_EQ(stats_.format, CorpusFormat::Text);
  EXPECT_EQ(stats_.lines, 3);
}

TEST_F(CorpusFiles, LinesEndByTheOneLineRule) {  // "\n", "\r\n" or a bare "\r"; no ending at the end
  std::ofstream(dir_ / "cr.txt") << "one\rtwo\r\nthree\n\rfour";
  EXPECT_EQ(read(dir_ / "cr.txt"), (std::vector<std::string>{"one", "two", "three", "four"}));
  EXPECT_EQ(stats_.lines, 5);
  std::ofstream(dir_ / "cr.data") << "\r{\"query\": \"a\"}\r{\"text\": \"b\"}\r";
  EXPECT_EQ(read(dir_ / "cr.data"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(stats_.format, CorpusFormat::Jsonl);
}

TEST_F(CorpusFiles, JsonLinesGiveQueriesAndItemTexts) {
  std::ofstream(dir_ / "rows.data")
      << R"({"id": 1, "query": "a profile", "items": [{"id": "q1", "text": "Spark"}, "SQL"], "labels": [1, 0]})"
      << "\n"
      << R"({"text": "free text"})" << "\n";
  EXPECT_EQ(read(dir_ / "rows.data"), (std::vector<std::string>{"a profile", "Spark", "SQL", "free text"}));
  EXPECT_EQ(stats_.format, CorpusFormat::Jsonl);
}

TEST_F(CorpusFiles, TheFormatComesFromTheStreamItReads) {  // no second open: a pipe is read once
  std::istringstream rows("\n  \n{\"query\": \"q\", \"items\": [\"i\"]}\n{\"text\": \"t\"}\n");
  std::vector<std::string> documents;
  const CorpusStats stats =
      read_corpus(rows, "stdin", kDefaultMaxLineBytes, [&](std::string_view d) { documents.emplace_back(d); });
  EXPECT_EQ(documents, (std::vector<std::string>{"q", "i", "t"}));
  EXPECT_EQ(stats.format, CorpusFormat::Jsonl);
  EXPECT_EQ(stats.lines, 4);
  std::istringstream text("plain words\n{\"query\": \"not a row here\"}\n");
  documents.clear();
  EXPECT_EQ(read_corpus(text, "stdin", kDefaultMaxLineBytes, [&](std::string_view d) { documents.emplace_back(d); })
                .format,
            CorpusFormat::Text);
  EXPECT_EQ(documents, (std::vector<std::string>{"plain words", "{\"query\": \"not a row here\"}"}));
}

TEST_F(CorpusFiles, ALineOverTheLimitIsAnErrorNamingFileAndLine) {
  std::ofstream(dir_ / "long.txt") << "short\n" << std::string(100, 'x') << "\nafter\n";
  try {
    read(dir_ / "long.txt", 64);
    FAIL() << "a line over --max-line-bytes must be an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("long.txt:2: line of 100 bytes is longer than --max-line-bytes 64"));
  }
  EXPECT_EQ(read(dir_ / "long.txt", 100).size(), 3u);  // at the limit: a line
}

TEST_F(CorpusFiles, ErrorsNameFileAndLine) {
  std::ofstream(dir_ / "bad.jsonl") << R"({"query": "ok"})" << "\n" << R"({"query": 5})" << "\n";
  try {
    read(dir_ / "bad.jsonl");
    FAIL() << "a non-string query must be an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.jsonl:2"));
  }
  std::ofstream(dir_ / "utf.txt") << "fine\nbroken \xc3\x28 text\n";
  BpeTrainer trainer(options(300));
  try {
    read_corpus_file((dir_ / "utf.txt").string(), kDefaultMaxLineBytes,
                     [&](std::string_view d) { trainer.add_document(d); });
    FAIL() << "invalid UTF-8 must be an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("utf.txt:2"), HasSubstr("invalid UTF-8")));
  }
}

}  // namespace
}  // namespace sift
