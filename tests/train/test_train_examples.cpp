// Reading the synthetic JSONL and turning rows into prompts under the scoring contract.
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
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("sift_train_examples_" + std::to_string(::getpid()) + name);
  std::ofstream(path) << text;
  return path;
}

TEST(LabeledRows, ParsesItemsAsObjectsOrStringsAndReadsOnlyTheReferenceLabels) {
  const LabeledRow row = parse_labeled_row(
      R"({"id": "m1", "query": "Skills: Python", "items": [{"id": "q1", "text": "Python"}, "Java"],
          "labels": [1, 0], "truth": [0, 0]})");
  EXPECT_EQ(row.query, "Skills: Python");
  EXPECT_EQ(row.items, (std::vector<std::string>{"Python", "Java"}));
  EXPECT_EQ(row.labels, (std::vector<int8_t>{1, 0}));
}

TEST(LabeledRows, BadRowsAreClearErrors) {
  EXPECT_NE(error_of([] { parse_labeled_row(R"({"query": "q", "items": ["a"]})"); }).find("\"labels\""),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_labeled_row(R"({"query": "q", "items": ["a"], "labels": [2]})"); }).find("labels[0] is 2"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_labeled_row(R"({"query": "q", "items": ["a"], "labels": [true]})"); }).find("0 or 1"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_labeled_row(R"({"query": "q", "items": ["a", "b"], "labels": [1]})"); })
                .find("\"labels\" has 1 entries but \"items\" has 2"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_labeled_row(R"({"items": ["a"], "labels": [1]})"); }).find("query"), std::string::npos);
}

TEST(LabeledRows, FileErrorsNameTheFileAndLine) {
  const fs::path path = write_file("bad.jsonl",
                                   "{\"query\": \"q\", \"items\": [\"a\"], \"labels\": [1]}\n"
                                   "\n"
                                   "{\"query\": \"q\", \"items\": [\"a\"], \"labels\": [1]\n");
  const std::string message = error_of([&] { read_labeled_rows(path); });
  EXPECT_NE(message.find(path.string() + ":3:"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid JSON"), std::string::npos) << message;
  EXPECT_NE(error_of([] { read_labeled_rows("/nonexistent/train.jsonl"); }).find("/nonexistent/train.jsonl"),
            std::string::npos);
  const fs::path empty = write_file("empty.jsonl", "\n");
  EXPECT_NE(error_of([&] { read_labeled_rows(empty); }).find("no rows"), std::string::npos);
  fs::remove(path);
  fs::remove(empty);
}

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
  const std::vector<LabeledRow> rows = {{"Senior data engineer", {"Apache Spark", "Welding"}, {1, 0}}};
  const std::vector<EncodedRow> encoded = encode_rows(rows, encoder, answer);
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

}  // namespace
}  // namespace sift::train
