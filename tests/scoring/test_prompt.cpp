#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "fake_tokenizer.h"
#include "scoring/prompt.h"

namespace sift {
namespace {

using testing::byte_ids;
using testing::FakeTokenizer;
using ::testing::HasSubstr;

ScoringArtifact chat_artifact() {
  ScoringArtifact a;
  a.version = "1";
  a.query_template = "<|im_start|>Q:{query}|";
  a.item_template = "I:{item}<|im_end|>";
  a.generate_item_template = "{index}. {item}\n";
  a.generate_answer_template = "A:";
  return a;
}

void append(std::vector<int32_t>& out, const std::vector<int32_t>& ids) { out.insert(out.end(), ids.begin(), ids.end()); }

std::vector<int32_t> concat(std::initializer_list<std::vector<int32_t>> parts) {
  std::vector<int32_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(Prompt, QueryPartIsBosTemplateAndPlainUserText) {
  FakeTokenizer tokenizer;
  PromptEncoder prompts(tokenizer, chat_artifact());
  // The special token in the template is recognised (id 1), the one in the user text is not.
  EXPECT_EQ(prompts.query_tokens("a<|im_end|>"),
            concat({{0, 1}, byte_ids("Q:"), byte_ids("a<|im_end|>"), byte_ids("|")}));
}

TEST(Prompt, ItemPartHasNoBosAndEndsAtTheTemplateEnd) {
  FakeTokenizer tokenizer;
  PromptEncoder prompts(tokenizer, chat_artifact());
  EXPECT_EQ(prompts.item_tokens("x<|im_start|>"), concat({byte_ids("I:"), byte_ids("x<|im_start|>"), {2}}));
  // The batch form gives the same ids.
  std::vector<std::vector<int32_t>> batch = prompts.item_tokens_batch({"x<|im_start|>", "", "yz"});
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[0], prompts.item_tokens("x<|im_start|>"));
  EXPECT_EQ(batch[1], concat({byte_ids("I:"), {2}}));
  EXPECT_EQ(batch[2], prompts.item_tokens("yz"));
}

TEST(Prompt, EachPartIsTokenizedAsOneRenderedText) {
  // "YES" is one token when encoded whole. Split across the template/user boundary of one
  // part it is still one token: the part is rendered first, then tokenized as one text.
  FakeTokenizer tokenizer;
  ScoringArtifact a = chat_artifact();
  a.item_template = "Y{item}";
  a.query_template = "{query}N";
  PromptEncoder prompts(tokenizer, a);
  EXPECT_EQ(prompts.item_tokens("ES"), std::vector<int32_t>{3});
  EXPECT_EQ(prompts.query_tokens("").back(), byte_ids("N")[0]);
  // ... but the query part and an item part never merge: "N" + "O" stays two tokens.
  a.item_template = "{item}";
  PromptEncoder parts(tokenizer, a);
  std::vector<int32_t> prompt = parts.query_tokens("");
  append(prompt, parts.item_tokens("O"));
  EXPECT_EQ(prompt, concat({{0}, byte_ids("NO")}));
}

TEST(Prompt, SpecialTokensOnlyWhereTheTemplateWroteThem) {
  FakeTokenizer tokenizer;
  ScoringArtifact a = chat_artifact();
  // A special token half in the template and half in the user text is plain text ...
  a.item_template = "<|im_{item}<|im_end|>";
  PromptEncoder prompts(tokenizer, a);
  EXPECT_EQ(prompts.item_tokens("end|>"), concat({byte_ids("<|im_end|>"), {2}}));
  // ... and so is one wholly inside the user text, even right next to the template's own.
  EXPECT_EQ(prompts.item_tokens("<|im_end|>"), concat({byte_ids("<|im_"), byte_ids("<|im_end|>"), {2}}));
}

TEST(Prompt, NoBosWhenTheTokenizerAddsNone) {
  FakeTokenizer tokenizer(/*with_bos=*/false);
  PromptEncoder prompts(tokenizer, chat_artifact());
  EXPECT_EQ(prompts.query_tokens("a"), concat({{1}, byte_ids("Q:a|")}));
}

TEST(Prompt, GenerateItemLinesAreNumbered) {
  FakeTokenizer tokenizer;
  PromptEncoder prompts(tokenizer, chat_artifact());
  EXPECT_EQ(prompts.generate_item_tokens(12, "ab"), byte_ids("12. ab\n"));
  EXPECT_EQ(prompts.generate_answer_tokens(), byte_ids("A:"));
}

TEST(Prompt, AnswerStringsMustBeOneTokenEach) {
  FakeTokenizer tokenizer;
  ScoringArtifact a = chat_artifact();
  AnswerTokenIds ids = resolve_answer_tokens(tokenizer, a, "m/sift.json");
  EXPECT_EQ(ids.yes, 3);
  EXPECT_EQ(ids.no, 4);
  a.yes = "<|im_end|>";  // an added token is fine: one token
  EXPECT_EQ(resolve_answer_tokens(tokenizer, a, "m/sift.json").yes, 2);
  a.yes = "MAYBE";
  try {
    resolve_answer_tokens(tokenizer, a, "m/sift.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("m/sift.json"));
    EXPECT_THAT(e.what(), HasSubstr("\"yes\""));
    EXPECT_THAT(e.what(), HasSubstr("5 tokens"));
  }
  a.yes = "NO";
  a.no = "NO";
  EXPECT_THROW(resolve_answer_tokens(tokenizer, a, "m/sift.json"), Error);
}

}  // namespace
}  // namespace sift
