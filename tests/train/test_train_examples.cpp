// Turning labeled rows into prompts under the scoring contract, and the rows too long to train on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "scoring/prompt.h"
#include "tiny_tokenizer.h"
#include "train/default_artifact.h"
#include "train/examples.h"
#include "train/sequence_layout.h"

namespace sift::train {
namespace train_examples {  // named: the trainer's tests are compiled as one unit

namespace fs = std::filesystem;

TEST(DefaultArtifact, AnswersAreOneTokenEachAndThresholdIsHalf) {
  const auto tokenizer = Tokenizer::from_json_string(testing::tiny_tokenizer_json().dump(), "tiny");
  const ScoringArtifact artifact = default_artifact(*tokenizer, "v-test");
  EXPECT_EQ(artifact.yes, " YES");
  EXPECT_EQ(artifact.no, " NO");
  EXPECT_EQ(artifact.threshold, 0.5);
  EXPECT_EQ(artifact.version, "v-test");
  const AnswerTokenIds answer = resolve_answer_tokens(*tokenizer, artifact, "test");
  EXPECT_EQ(tokenizer->decode({answer.yes}), " YES");
  EXPECT_EQ(tokenizer->decode({answer.no}), " NO");
}

TEST(EncodeRows, PromptIsQueryTokensThenItemTokensAndTargetsFollowLabels) {
  const auto tokenizer = Tokenizer::from_json_string(testing::tiny_tokenizer_json().dump(), "tiny");
  const ScoringArtifact artifact = default_artifact(*tokenizer, "v");
  const PromptEncoder encoder(*tokenizer, artifact);
  const AnswerTokenIds answer = resolve_answer_tokens(*tokenizer, artifact, "test");
  // Labels as `sift score` writes them (booleans) train like 0/1.
  const std::vector<LabeledRow> rows = {
      parse_labeled_row(R"({"query": "Senior data engineer", "items": ["Apache Spark", "Welding"], "labels": [true, 0]})")};
  const std::vector<EncodedRow> encoded = encode_rows(rows, encoder, answer, {.max_positions = 4096}).rows;
  ASSERT_EQ(encoded.size(), 1u);
  EXPECT_EQ(encoded[0].query, encoder.query_tokens("Senior data engineer"));
  EXPECT_EQ(encoded[0].items[1], encoder.item_tokens("Welding"));
  EXPECT_EQ(encoded[0].targets, (std::vector<int32_t>{answer.yes, answer.no}));
  // The single-candidate sequence is exactly the text scoring would see, answer read at its end.
  const SequenceLayout s = single_candidate_layout(encoded[0].query, encoded[0].items[0], encoded[0].targets[0]);
  EXPECT_EQ(tokenizer->decode(s.ids),
            "Profile:\nSenior data engineer\nDoes the profile support the qualification? Answer YES or NO.\n"
            "Qualification: Apache Spark\nAnswer:");
  EXPECT_EQ(s.readout, (std::vector<int32_t>{static_cast<int32_t>(s.ids.size()) - 1}));
}

// A row whose prompt or training sequence is too long is left out with its reason (the
// attention of a training sequence costs its length squared).
TEST(EncodeRows, TooLongRowsAreLeftOutNamingTheLengths) {
  const auto tokenizer = Tokenizer::from_json_string(testing::tiny_tokenizer_json().dump(), "tiny");
  const ScoringArtifact artifact = default_artifact(*tokenizer, "v");
  const PromptEncoder encoder(*tokenizer, artifact);
  const AnswerTokenIds answer = resolve_answer_tokens(*tokenizer, artifact, "test");
  std::vector<LabeledRow> rows = {
      parse_labeled_row(R"({"query": "short", "items": ["a", "b"], "labels": [1, 0]})"),
      parse_labeled_row(R"({"query": ")" + std::string(400, 'x') + R"(", "items": ["a"], "labels": [1]})"),
      parse_labeled_row(R"({"query": "short", "items": [")" + std::string(150, 'y') + R"(", "b"], "labels": [1, 0]})")};
  for (size_t r = 0; r < rows.size(); ++r) rows[r].line = static_cast<int64_t>(r + 1);
  const int64_t short_row = static_cast<int64_t>(encoder.query_tokens("short").size() + encoder.item_tokens("a").size());

  EncodedRows e = encode_rows(rows, encoder, answer, {.max_positions = 300, .max_sequence_tokens = 4096});
  ASSERT_EQ(e.rows.size(), 2u);
  ASSERT_EQ(e.errors.size(), 1u);
  EXPECT_EQ(e.errors[0].line, 2);
  EXPECT_NE(e.errors[0].message.find("more than the model's 300 positions"), std::string::npos) << e.errors[0].message;

  e = encode_rows(rows, encoder, answer, {.max_positions = 4096, .max_sequence_tokens = short_row + 10});
  ASSERT_EQ(e.rows.size(), 1u);
  EXPECT_EQ(e.rows[0].line, 1);
  EXPECT_NE(e.errors[1].message.find("more than --max-sequence-tokens"), std::string::npos) << e.errors[1].message;

  // Packed, a row is one sequence: the query and all its items.
  e = encode_rows(rows, encoder, answer, {.max_positions = 4096, .max_sequence_tokens = short_row, .pack = true});
  ASSERT_EQ(e.rows.size(), 0u);
  EXPECT_NE(e.errors[0].message.find("the packed row is"), std::string::npos) << e.errors[0].message;
}

}  // namespace train_examples
}  // namespace sift::train
