// LoadedLabeler::score_row and the `sift score` stream on a tiny random checkpoint with a fake
// tokenizer: the prompt contract end to end, thresholds, error lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "../scoring/fake_tokenizer.h"
#include "model/session.h"
#include "api/labeler_of.h"
#include "scoring/loaded_labeler.h"
#include "scoring/readout.h"
#include "io/line_reader.h"
#include "workflows/score_stream.h"
#include "../scoring/scoring_checkpoints.h"

namespace sift {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

ScoringOptions options_with(std::optional<ScoringMode> mode, std::optional<double> threshold,
                            std::optional<int64_t> max_request_tokens) {
  ScoringOptions options;
  if (mode) options.mode = *mode;
  options.threshold = threshold;
  options.max_request_tokens = max_request_tokens;
  return options;
}

// The labeler of these tests: a chat-like layout, threshold 0.5, for the fake tokenizer.
ScoringArtifact test_artifact() {
  ScoringArtifact a;
  a.version = "t1";
  a.query_template = "<|im_start|>P:{query}\n";
  a.item_template = "C:{item}<|im_end|>";
  a.threshold = 0.5;
  a.generate_item_template = "{index}. {item}\n";
  a.generate_answer_template = "A:";
  return a;
}

class LabelerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto dir = testing::write_scoring_test_checkpoint("qwen3", DType::F32);
    labeler_ = std::make_unique<LoadedLabeler>(Model::load(dir), std::make_unique<testing::FakeTokenizer>(),
                                               test_artifact(), "t/sift.json");
  }
  void TearDown() override { testing::remove_scoring_test_checkpoints(); }
  std::unique_ptr<LoadedLabeler> labeler_;
};

TEST_F(LabelerTest, ScoresFollowThePromptContract) {
  const std::vector<std::string> items = {"alpha", "beta<|im_end|>", "gamma"};
  RowResult row = labeler_->score_row("a profile", items, {});
  ASSERT_EQ(row.scores.size(), 3u);
  // By hand: [BOS, im_start, "P:a profile\n"] ++ ["C:", item, im_end], read at the last token.
  const auto& model = labeler_->model();
  for (size_t i = 0; i < items.size(); ++i) {
    std::vector<int32_t> prompt = {0, 1};
    for (int32_t id : testing::byte_ids("P:a profile\nC:" + items[i])) prompt.push_back(id);
    prompt.push_back(2);
    std::vector<int32_t> positions(prompt.size());
    for (size_t t = 0; t < prompt.size(); ++t) positions[t] = static_cast<int32_t>(t);
    const int32_t last[1] = {static_cast<int32_t>(prompt.size() - 1)};
    const int32_t vocab[2] = {labeler_->answer_ids().yes, labeler_->answer_ids().no};
    const Segment whole[1] = {{0, static_cast<int32_t>(prompt.size()), 0, 0}};
    ForwardResult logits = model.forward({prompt, positions, whole, last, vocab});
    EXPECT_EQ(*row.scores[i], yes_probability(logits.row(0)[0], logits.row(0)[1])) << "item " << i;
    EXPECT_EQ(*row.labels[i], *row.scores[i] >= 0.5);
  }
  EXPECT_EQ(row.requests, 1);
  EXPECT_FALSE(row.generation.has_value()) << "a generation only in mode generate";
}

TEST(BrokenCheckpoint, NonFiniteLogitsAreTheRowsErrorNeverALabel) {
  // A final norm of FLT_MAX: the hidden state overflows to +-inf, the logits are not finite.
  const auto dir = testing::write_scoring_test_checkpoint("qwen3", DType::F32, 12);
  testing::overwrite_f32_tensor(dir / "model.safetensors", "model.norm.weight", std::numeric_limits<float>::max());
  const LoadedLabeler engine(Model::load(dir), std::make_unique<testing::FakeTokenizer>(), test_artifact(),
                             "t/sift.json");
  for (ScoringMode mode : {ScoringMode::Mis, ScoringMode::Independent, ScoringMode::Prefix}) {
    try {
      engine.score_row("a profile", {"alpha", "beta"}, options_with(mode, {}, {}));
      ADD_FAILURE() << scoring_mode_name(mode) << ": scored";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::MatchesRegex("item 0 scored (nan|-?inf): the model's logits are not finite"))
          << scoring_mode_name(mode);
    }
  }
  testing::remove_scoring_test_checkpoints();
}

TEST_F(LabelerTest, ThresholdOverrideAndModes) {
  const std::vector<std::string> items = {"alpha", "beta", "gamma", "delta"};
  RowResult mis = labeler_->score_row("p", items, {});
  for (ScoringMode mode : {ScoringMode::Independent, ScoringMode::Prefix}) {
    RowResult other = labeler_->score_row("p", items, options_with(mode, {}, {}));
    EXPECT_EQ(other.scores, mis.scores) << scoring_mode_name(mode);
    EXPECT_EQ(other.requests, 4);
  }
  RowResult everything = labeler_->score_row("p", items, options_with({}, 0.0, {}));
  for (const auto& label : everything.labels) EXPECT_TRUE(*label);
  RowResult nothing = labeler_->score_row("p", items, options_with({}, 1.0, {}));
  for (const auto& label : nothing.labels) EXPECT_FALSE(*label);
  RowResult split = labeler_->score_row("p", items, options_with({}, {}, 30));
  EXPECT_GT(split.requests, 1);
  EXPECT_EQ(split.scores, mis.scores);
  EXPECT_THROW(labeler_->score_row("p", items, options_with({}, {}, 5)), Error);
}

TEST_F(LabelerTest, AThresholdOutsideZeroOneIsTheCallersOptionError) {
  // Checked once, in the engine, for every caller (the C++ API, Python, sift score): NaN, a
  // value outside [0, 1] or an infinity never labels a row, in any mode.
  const std::vector<std::string> items = {"alpha", "beta"};
  for (double bad : {std::nan(""), 2.0, -0.5, std::numeric_limits<double>::infinity()})
    for (ScoringMode mode : {ScoringMode::Mis, ScoringMode::Prefix, ScoringMode::Generate}) {
      Session session(labeler_->model());
      const TextRow row{"p", items};
      try {
        labeler_->score_rows(session, {&row, 1}, options_with(mode, bad, {}));
        ADD_FAILURE() << "threshold " << bad << " accepted in mode " << scoring_mode_name(mode);
      } catch (const OptionError& e) {
        EXPECT_THAT(e.what(), HasSubstr("threshold must be a number in [0, 1], got ")) << e.what();
      }
      EXPECT_THROW(labeler_->threshold(options_with(mode, bad, {})), OptionError);
    }
  EXPECT_EQ(labeler_->threshold(options_with({}, 1.0, {})), 1.0);
  EXPECT_EQ(labeler_->threshold({}), 0.5);  // sift.json's
  EXPECT_THROW(labeler_->limits(options_with({}, {}, 0)), OptionError);  // a bad limit is the caller's too
}

TEST_F(LabelerTest, RowsGroupedIntoCallsScoreAsEachAlone) {
  // The default call budget is min(request limit, a cache of activations): with a request
  // limit of 40 tokens the rows below fall into groups of one to three rows, and the longest
  // runs alone, split into requests. Every row scores as it does alone.
  ScoringOptions options = options_with({}, {}, 40);
  EXPECT_EQ(labeler_->call_tokens(options), 40);
  ScoringOptions explicit_budget = options;
  explicit_budget.max_batch_tokens = 25;
  EXPECT_EQ(labeler_->call_tokens(explicit_budget), 25);
  EXPECT_GT(labeler_->call_tokens({}), 1000);  // a tiny model: many rows a call

  const std::vector<std::vector<std::string>> items = {
      {"a"}, {"bb", "c"}, {"alpha", "beta", "gamma", "delta", "epsilon"}, {"d"}, {"e", "f"}, {"g"}};
  std::vector<TextRow> rows;
  for (const auto& row_items : items) rows.push_back({"q", row_items});
  Session session(labeler_->model());
  const std::vector<RowResult> together = labeler_->score_rows(session, rows, options);
  ASSERT_EQ(together.size(), rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    const RowResult alone = labeler_->score_row("q", items[r], options);
    EXPECT_EQ(together[r].scores, alone.scores) << "row " << r;
    EXPECT_EQ(together[r].requests, alone.requests) << "row " << r;
    EXPECT_TRUE(together[r].error.empty()) << together[r].error;
  }
  EXPECT_GT(together[2].requests, 1);  // the long row was split, as alone
}

TEST_F(LabelerTest, AnswerTokensMustBeInTheModelVocabulary) {
  ScoringArtifact a = labeler_->artifact();
  a.yes = "\xff";  // fake id 255 + 16 = 271: in the fake vocabulary, fine for a 1024-row model
  EXPECT_NO_THROW(LoadedLabeler(Model::load(testing::write_scoring_test_checkpoint("qwen2", DType::F32)),
                          std::make_unique<testing::FakeTokenizer>(), a, "t/sift.json"));
}

TEST_F(LabelerTest, StreamWritesOneLinePerInputLineInOrder) {
  std::istringstream in(
      "{\"id\": 1, \"query\": \"p\", \"items\": [\"a\", \"b\"]}\n"
      "{\"id\": 2, \"query\": \"p\"}\n"
      "\n"
      "{\"id\": 4, \"query\": \"p\", \"items\": [{\"id\": \"x\", \"text\": \"c\"}]}\r\n"
      "{\"id\": 5, \"query\": \"" + std::string(3000, 'z') + "\", \"items\": [\"a\"]}\r"
      "{\"id\": 1e999, \"query\": \"p\", \"items\": [\"a\"]}\r"
      "{\"id\": 7, \"query\": \"" + std::string(5000, 'y') + "\", \"items\": [\"a\"]}");
  std::string out;
  LineReader reader(in, 4000);
  const Labeler labeler = labeler_of(std::move(labeler_));
  StreamStats stats = score_stream(labeler, reader, [&out](std::string_view lines) { out += lines; },
                                   options_with({}, {}, 2048));
  std::vector<json> lines;
  std::istringstream written(out);
  for (std::string line; std::getline(written, line);) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(stats.lines, 7);
  EXPECT_EQ(stats.errors, 5);
  EXPECT_EQ(stats.labels, 3);
  EXPECT_EQ(lines[0]["id"], 1);
  EXPECT_EQ(lines[0]["scores"].size(), 2u);
  EXPECT_EQ(lines[1]["line"], 2);
  EXPECT_EQ(lines[1]["id"], 2);
  EXPECT_THAT(lines[1]["error"].get<std::string>(), HasSubstr("\"items\""));
  EXPECT_EQ(lines[2]["line"], 3);
  EXPECT_THAT(lines[2]["error"].get<std::string>(), HasSubstr("empty line"));
  EXPECT_EQ(lines[3]["item_ids"], json::parse("[\"x\"]"));
  EXPECT_EQ(lines[3]["artifact"], json::parse(R"({"version": "t1", "threshold": 0.5})"));
  EXPECT_EQ(lines[4]["line"], 5);
  EXPECT_THAT(lines[4]["error"].get<std::string>(), HasSubstr("more than the request limit of 2048"));
  EXPECT_EQ(lines[5]["line"], 6);  // after a bare "\r"
  EXPECT_EQ(lines[5]["error"], "invalid JSON at column 8: the number 1e999 is beyond the range of a double");
  // Line 7 is over the line limit (4000 bytes): its error, not parsed, so no id is echoed.
  EXPECT_EQ(lines[6]["line"], 7);
  EXPECT_FALSE(lines[6].contains("id"));
  EXPECT_EQ(lines[6]["error"], "line of 5038 bytes is longer than --max-line-bytes 4000 (not parsed)");
}

}  // namespace
}  // namespace sift
