// Component tests on small hand-written tokenizer.json snippets. Every expected token list
// was checked against Hugging Face tokenizers (the @anush008/tokenizers Node binding).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tokenizer/tokenizer.h"

namespace sift {
namespace {

using nlohmann::json;

// A BPE over single characters of "ab-c ▁" with merges a+- (rank 0), -+b, a+b, -+-.
json tiny_tokenizer(json pre_tokenizer, json normalizer = nullptr, json added_tokens = json::array()) {
  json vocab = {{"a", 0}, {"b", 1}, {"-", 2}, {"c", 3}, {" ", 4}, {"a-", 5}, {"-b", 6}, {"ab", 7}, {"--", 8}};
  return {{"version", "1.0"},
          {"added_tokens", added_tokens},
          {"normalizer", normalizer},
          {"pre_tokenizer", pre_tokenizer},
          {"post_processor", nullptr},
          {"decoder", nullptr},
          {"model",
           {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array({"a -", "- b", "a b", "- -"})}}}};
}

std::vector<std::string> tokens_of(const json& config, const std::string& text,
                                   SpecialText special_text = SpecialText::AsPlainText) {
  const auto tokenizer = Tokenizer::from_json_string(config.dump(), "test");
  std::vector<std::string> tokens;
  for (const int32_t id : tokenizer->encode(text, {true, special_text})) tokens.push_back(*tokenizer->id_to_token(id));
  return tokens;
}

using Tokens = std::vector<std::string>;

json split(const std::string& behavior, bool invert = false) {
  return {{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", invert}};
}

TEST(TokenizerSplit, EachBehaviour) {
  EXPECT_EQ(tokens_of(tiny_tokenizer(nullptr), "a-b"), (Tokens{"a-", "b"}));
  EXPECT_EQ(tokens_of(tiny_tokenizer(split("Removed")), "a-b"), (Tokens{"a", "b"}));
  EXPECT_EQ(tokens_of(tiny_tokenizer(split("Isolated")), "a-b"), (Tokens{"a", "-", "b"}));
  EXPECT_EQ(tokens_of(tiny_tokenizer(split("MergedWithPrevious")), "a-b"), (Tokens{"a-", "b"}));
  EXPECT_EQ(tokens_of(tiny_tokenizer(split("MergedWithNext")), "a-b"), (Tokens{"a", "-b"}));
  EXPECT_EQ(tokens_of(tiny_tokenizer(split("Contiguous")), "a--b"), (Tokens{"a", "--", "b"}));
  EXPECT_EQ(tokens_of(tiny_tokenizer(split("Isolated")), "a--b"), (Tokens{"a", "-", "-", "b"}));
  // invert: "a" and "b" are the matches; Removed drops them and keeps each dash apart.
  EXPECT_EQ(tokens_of(tiny_tokenizer(split("Removed", true)), "a--b"), (Tokens{"-", "-"}));
}

TEST(TokenizerSplit, RegexPattern) {
  const json pre = {{"type", "Split"}, {"pattern", {{"Regex", "[ab]+"}}}, {"behavior", "Isolated"}, {"invert", false}};
  EXPECT_EQ(tokens_of(tiny_tokenizer(pre), "ab-c"), (Tokens{"ab", "-", "c"}));
}

TEST(TokenizerNormalizers, ReplacePrependLowercaseStrip) {
  const json normalizer = {{"type", "Sequence"},
                           {"normalizers",
                            {{{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}},
                             {{"type", "Lowercase"}},
                             {{"type", "Replace"}, {"pattern", {{"String", "c"}}}, {"content", "-"}},
                             {{"type", "Prepend"}, {"prepend", "a"}}}}};
  EXPECT_EQ(tokens_of(tiny_tokenizer(nullptr, normalizer), "  BC \t"), (Tokens{"ab", "-"}));
}

json added(int id, const std::string& content, json flags) {
  json token = {{"id", id},         {"content", content}, {"single_word", false}, {"lstrip", false},
                {"rstrip", false},  {"normalized", false}, {"special", true}};
  token.update(flags);
  return token;
}

TEST(TokenizerAddedTokens, SpecialTextRecognisedOnlyWhenAsked) {
  const json config = tiny_tokenizer(nullptr, nullptr, json::array({added(9, "<|im_end|>", json::object())}));
  EXPECT_EQ(tokens_of(config, "a<|im_end|>b", SpecialText::Recognise), (Tokens{"a", "<|im_end|>", "b"}));
  // AsPlainText: the text goes through the model, which drops the characters it does not
  // know (no unk token here), so "a" and "b" meet and merge.
  EXPECT_EQ(tokens_of(config, "a<|im_end|>b", SpecialText::AsPlainText), (Tokens{"ab"}));
}

TEST(TokenizerAddedTokens, NonSpecialAreAlwaysRecognised) {
  const json config = tiny_tokenizer(nullptr, nullptr, json::array({added(9, "cc", {{"special", false}})}));
  EXPECT_EQ(tokens_of(config, "acca"), (Tokens{"a", "cc", "a"}));
}

TEST(TokenizerAddedTokens, LstripRstripSingleWord) {
  const json config = tiny_tokenizer(nullptr, nullptr,
                                     json::array({added(9, "L", {{"lstrip", true}}), added(10, "R", {{"rstrip", true}}),
                                                  added(11, "W", {{"single_word", true}})}));
  const auto recognise = SpecialText::Recognise;
  EXPECT_EQ(tokens_of(config, "a  L b", recognise), (Tokens{"a", "L", " ", "b"}));
  EXPECT_EQ(tokens_of(config, "a R  b", recognise), (Tokens{"a", " ", "R", "b"}));
  EXPECT_EQ(tokens_of(config, "a W b", recognise), (Tokens{"a", " ", "W", " ", "b"}));
  EXPECT_EQ(tokens_of(config, "aW b", recognise), (Tokens{"a", " ", "b"}));  // W inside a word: not the token
}

TEST(TokenizerAddedTokens, NormalizedTokensMatchNormalizedText) {
  const json config = tiny_tokenizer(nullptr, json{{"type", "Lowercase"}},
                                     json::array({added(9, "CC", {{"normalized", true}, {"special", false}})}));
  EXPECT_EQ(tokens_of(config, "aCcb"), (Tokens{"a", "CC", "b"}));
}

TEST(TokenizerBpe, ByteFallbackAndUnk) {
  json config = tiny_tokenizer(nullptr);
  config["model"]["vocab"]["<0xC3>"] = 20;
  config["model"]["vocab"]["<0xA9>"] = 21;
  config["model"]["vocab"]["<unk>"] = 22;
  config["model"]["byte_fallback"] = true;
  config["model"]["unk_token"] = "<unk>";
  EXPECT_EQ(tokens_of(config, "aéb"), (Tokens{"a", "<0xC3>", "<0xA9>", "b"}));
  EXPECT_EQ(tokens_of(config, "axyb"), (Tokens{"a", "<unk>", "<unk>", "b"}));
  config["model"]["fuse_unk"] = true;
  EXPECT_EQ(tokens_of(config, "axyb"), (Tokens{"a", "<unk>", "b"}));
}

TEST(TokenizerBpe, MergesAsPairsAndIgnoreMerges) {
  json config = tiny_tokenizer(nullptr);
  config["model"]["merges"] = json::array({json::array({"a", "b"}), json::array({"-", "-"})});
  EXPECT_EQ(tokens_of(config, "ab--"), (Tokens{"ab", "--"}));
  config["model"]["merges"] = json::array();
  EXPECT_EQ(tokens_of(config, "ab"), (Tokens{"a", "b"}));
  config["model"]["ignore_merges"] = true;
  EXPECT_EQ(tokens_of(config, "ab"), (Tokens{"ab"}));
}

TEST(TokenizerPostProcessor, TemplateAddsPrefixAndSuffix) {
  json config = tiny_tokenizer(nullptr, nullptr,
                               json::array({added(9, "<s>", json::object()), added(10, "</s>", json::object())}));
  config["post_processor"] = {
      {"type", "TemplateProcessing"},
      {"single", {{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                  {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}}},
      {"pair", json::array()},
      {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {9}}, {"tokens", {"<s>"}}}},
                          {"</s>", {{"id", "</s>"}, {"ids", {10}}, {"tokens", {"</s>"}}}}}}};
  const auto tokenizer = Tokenizer::from_json_string(config.dump(), "test");
  EXPECT_EQ(tokenizer->encode("a", {true}), (std::vector<int32_t>{9, 0, 10}));
  EXPECT_EQ(tokenizer->encode("a", {false}), (std::vector<int32_t>{0}));
  EXPECT_EQ(tokenizer->prefix_special_ids(), (std::vector<int32_t>{9}));
  EXPECT_EQ(tokenizer->decode({9, 0, 10}, false), "<s> a </s>");  // no decoder: tokens joined by spaces
  EXPECT_EQ(tokenizer->decode({9, 0, 10}, true), "a");
}

TEST(TokenizerErrors, UnknownComponentIsNamed) {
  const auto message = [](const json& config) {
    try {
      Tokenizer::from_json_string(config.dump(), "my.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(tiny_tokenizer(json{{"type", "Punctuation"}})),
            "my.json: pre_tokenizer: unsupported pre-tokenizer type \"Punctuation\"");
  EXPECT_EQ(message(tiny_tokenizer(nullptr, json{{"type", "Sequence"}, {"normalizers", {{{"type", "BertNormalizer"}}}}})),
            "my.json: normalizer.normalizers[0]: unsupported normalizer type \"BertNormalizer\"");
  json unigram = tiny_tokenizer(nullptr);
  unigram["model"]["type"] = "Unigram";
  EXPECT_EQ(message(unigram), "my.json: model: unsupported model type \"Unigram\" (only BPE)");
  json decoder = tiny_tokenizer(nullptr);
  decoder["decoder"] = {{"type", "WordPiece"}};
  EXPECT_EQ(message(decoder), "my.json: decoder: unsupported decoder type \"WordPiece\"");
}

TEST(TokenizerErrors, BadJsonAndMissingFields) {
  EXPECT_THROW(Tokenizer::from_json_string("{\"model\": ", "bad.json"), Error);
  EXPECT_THROW(Tokenizer::from_json_string("{}", "empty.json"), Error);
  EXPECT_THROW(Tokenizer::load("/nonexistent/tokenizer.json"), Error);
}

TEST(TokenizerErrors, InvalidUtf8NamesTheOffset) {
  const auto tokenizer = Tokenizer::from_json_string(tiny_tokenizer(nullptr).dump(), "test");
  try {
    tokenizer->encode(std::string("ab\xC3(", 4));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid UTF-8 at byte offset 2");
  }
  EXPECT_THROW(tokenizer->encode("\xED\xA0\x80"), Error);  // a surrogate
  EXPECT_THROW(tokenizer->encode("\xC0\xAF"), Error);      // an overlong form
}

TEST(TokenizerBatch, MatchesSingleEncodes) {
  const auto tokenizer = Tokenizer::from_json_string(tiny_tokenizer(split("Isolated")).dump(), "test");
  std::vector<std::string> texts;
  for (int i = 0; i < 200; ++i) texts.push_back(std::string(static_cast<size_t>(i % 7), 'a') + "-b" + std::to_string(i));
  const auto batch = tokenizer->encode_batch(texts);
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(batch[i], tokenizer->encode(texts[i]));
}

}  // namespace
}  // namespace sift
