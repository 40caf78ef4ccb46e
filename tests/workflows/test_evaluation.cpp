// Evaluation: metrics on hand-made inputs, order comparison by item identity, labeled-row
// parsing errors, and a tiny random labeler whose MIS labels never change under shuffles.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "workflows/evaluation.h"
#include "workflows/evaluation_run.h"
#include "io/line_reader.h"
#include "workflows/labeled_rows.h"
#include "sift/labeler.h"
#include "../scoring/scoring_checkpoints.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr std::optional<bool> kYes = true, kNo = false, kUnparsed = std::nullopt;

TEST(LabelCounts, HandComputedMetrics) {
  // predicted Y N Y ? N  vs  reference Y Y N Y N  (? = unparsed)
  //   agree: items 0 and 4 -> 2/5; tp = 1 (item 0), fp = 1 (item 2), fn = 2 (items 1 and 3)
  //   precision 1/2, recall 1/3, F1 = 2 / (2 + 1 + 2) = 0.4
  LabelCounts counts;
  const std::vector<std::optional<bool>> predicted = {kYes, kNo, kYes, kUnparsed, kNo};
  add_labels(counts, predicted, std::vector<bool>{true, true, false, true, false});
  EXPECT_EQ(counts.n_items, 5);
  EXPECT_EQ(counts.n_unparsed, 1);
  EXPECT_DOUBLE_EQ(counts.agreement(), 0.4);
  EXPECT_DOUBLE_EQ(counts.precision(), 0.5);
  EXPECT_DOUBLE_EQ(counts.recall(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(counts.f1(), 0.4);

  // A second row accumulates: Y vs N -> fp.
  add_labels(counts, std::vector<std::optional<bool>>{kYes}, std::vector<bool>{false});
  EXPECT_EQ(counts.n_items, 6);
  EXPECT_DOUBLE_EQ(counts.agreement(), 2.0 / 6);
  EXPECT_DOUBLE_EQ(counts.precision(), 1.0 / 3);
}

TEST(LabelCounts, EmptyDenominatorsGiveZero) {
  LabelCounts counts;
  add_labels(counts, std::vector<std::optional<bool>>{kNo, kNo}, std::vector<bool>{false, false});
  EXPECT_EQ(counts.agreement(), 1.0);
  EXPECT_EQ(counts.precision(), 0.0);
  EXPECT_EQ(counts.recall(), 0.0);
  EXPECT_EQ(counts.f1(), 0.0);
  EXPECT_EQ(LabelCounts{}.agreement(), 0.0);
  EXPECT_THROW(add_labels(counts, std::vector<std::optional<bool>>{kNo}, std::vector<bool>{}), Error);
}

TEST(ShuffledOrder, IsASeededPermutation) {
  const std::vector<size_t> order = shuffled_order(20, 7, 3, 0);
  EXPECT_EQ(std::set<size_t>(order.begin(), order.end()).size(), 20u);
  EXPECT_EQ(*std::max_element(order.begin(), order.end()), 19u);
  EXPECT_EQ(order, shuffled_order(20, 7, 3, 0));
  EXPECT_NE(order, shuffled_order(20, 7, 3, 1));
  EXPECT_NE(order, shuffled_order(20, 8, 3, 0));
  EXPECT_NE(order, shuffled_order(20, 7, 4, 0));
  EXPECT_TRUE(shuffled_order(0, 1, 2, 3).empty());
  EXPECT_EQ(shuffled_order(1, 1, 2, 3), std::vector<size_t>{0});
}

TEST(OrderConsistency, MatchesItemsByIdentityNotPosition) {
  // Unshuffled labels Y N N; the shuffle puts items in the order 1 2 0 and every item keeps
  // its label: by identity nothing changed (by position, two would have).
  const std::vector<std::optional<bool>> labels = {kYes, kNo, kNo};
  const std::vector<std::optional<double>> scores = {0.9, 0.1, 0.2};
  OrderConsistency consistency;
  add_order_comparison(consistency, labels, scores, std::vector<std::optional<bool>>{kNo, kNo, kYes},
                       std::vector<std::optional<double>>{0.1, 0.2, 0.9}, std::vector<size_t>{1, 2, 0});
  EXPECT_EQ(consistency.n_compared, 3);
  EXPECT_EQ(consistency.n_changed, 0);
  EXPECT_EQ(consistency.n_score_changed, 0);

  // Item 1 flips to Y, item 2's score moves a little without its label changing.
  add_order_comparison(consistency, labels, scores, std::vector<std::optional<bool>>{kYes, kNo, kYes},
                       std::vector<std::optional<double>>{0.6, 0.25, 0.9}, std::vector<size_t>{1, 2, 0});
  EXPECT_EQ(consistency.n_compared, 6);
  EXPECT_EQ(consistency.n_changed, 1);
  EXPECT_EQ(consistency.n_score_changed, 2);
  EXPECT_DOUBLE_EQ(consistency.max_score_change, 0.5);
  EXPECT_DOUBLE_EQ(consistency.rate(), 1.0 / 6);
}

TEST(OrderConsistency, ParsedUnparsedFlipsCount) {
  OrderConsistency consistency;
  add_order_comparison(consistency, std::vector<std::optional<bool>>{kUnparsed, kYes, kUnparsed},
                       std::vector<std::optional<double>>{std::nullopt, 1.0, std::nullopt},
                       std::vector<std::optional<bool>>{kYes, kNo, kUnparsed},
                       std::vector<std::optional<double>>{1.0, 0.0, std::nullopt}, std::vector<size_t>{1, 0, 2});
  // item 1: Y -> Y; item 0: unparsed -> N (changed); item 2: unparsed -> unparsed.
  EXPECT_EQ(consistency.n_compared, 3);
  EXPECT_EQ(consistency.n_changed, 1);
  EXPECT_EQ(consistency.n_score_changed, 0);
}

std::string parse_error(const std::string& line) {
  try {
    parse_labeled_row(line);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(LabeledRows, ParsesLabelsAndTruth) {
  const LabeledRow row = parse_labeled_row(
      R"({"id": 3, "query": "q", "items": ["a", {"id": "b", "text": "bee"}], "labels": [1, false], "truth": [0, 1]})");
  EXPECT_EQ(row.row.items, (std::vector<std::string>{"a", "bee"}));
  EXPECT_EQ(row.labels, (std::vector<bool>{true, false}));
  ASSERT_TRUE(row.truth);
  EXPECT_EQ(*row.truth, (std::vector<bool>{false, true}));
  EXPECT_FALSE(parse_labeled_row(R"({"query": "q", "items": [], "labels": []})").truth);
}

TEST(LabeledRows, ErrorsSayWhatIsWrong) {
  EXPECT_THAT(parse_error(R"({"query": "q", "items": ["a"]})"), HasSubstr("missing field \"labels\""));
  EXPECT_THAT(parse_error(R"({"query": "q", "items": ["a", "b"], "labels": [1]})"),
              HasSubstr("1 labels but the row has 2 items"));
  EXPECT_THAT(parse_error(R"({"query": "q", "items": ["a"], "labels": [2]})"), HasSubstr("labels[0] must be 0 or 1"));
  EXPECT_THAT(parse_error(R"({"query": "q", "items": ["a"], "labels": [1], "truth": [1, 0]})"),
              HasSubstr("\"truth\" has 2 labels"));
  EXPECT_THAT(parse_error(R"({"items": ["a"], "labels": [1]})"), HasSubstr("\"query\""));
  EXPECT_THAT(parse_error("{not json"), HasSubstr("invalid JSON at column 3: invalid literal"));
}

// Every field of a row given every hostile type: each is that line's error, never a crash
// or an abort of the whole read, and the good rows around it are read.
TEST(LabeledRows, HostileFieldsAreErrorsOfTheirLineOnly) {
  const std::vector<std::string> hostile = {"1e999", "-1e400", "null", "true", "[]", "{}", "\"s\"", "-1", "2",
                                            "1.5", std::string(100, '[') + std::string(100, ']'), "\"\\ud800\""};
  const std::string good = R"({"id": 1, "query": "q", "items": ["a"], "labels": [1]})";
  std::string text = good + "\n";
  int64_t expected_errors = 0;
  for (const char* field : {"id", "query", "items", "labels", "truth"}) {
    for (const std::string& value : hostile) {
      nlohmann::json row = nlohmann::json::parse(good);
      row.erase(field);
      std::string line = row.dump();
      line.insert(1, fmt::format("\"{}\": {}, ", field, value));
      text += line + "\n";
      try {
        parse_labeled_row(line);
      } catch (const Error&) {
        ++expected_errors;
      }
    }
  }
  text += good + "\n";
  std::istringstream in(text);
  LineReader reader(in);
  const LabeledRows read = read_labeled_rows(reader, "hostile.jsonl");
  EXPECT_EQ(static_cast<int64_t>(read.errors.size()), expected_errors);
  EXPECT_GE(expected_errors, 50);  // most hostile values are errors; an id may be anything
  EXPECT_EQ(read.rows.size() + read.errors.size(), 2 + 5 * hostile.size());
  EXPECT_EQ(read.rows.front().line, 1);
  EXPECT_EQ(read.rows.back().line, static_cast<int64_t>(2 + 5 * hostile.size()));
}

class LabelerEvaluation : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = testing::write_scoring_test_checkpoint("qwen3", DType::F32, 21);
    std::filesystem::copy_file(std::filesystem::path(SIFT_SOURCE_DIR) / "tests/scoring/data/byte_bpe_tokenizer.json",
                               dir_ / "tokenizer.json", std::filesystem::copy_options::overwrite_existing);
    std::ofstream(dir_ / "sift.json") << R"({"format": "sift.scoring/2", "version": "eval-test",
      "query_template": "<|im_start|>user\nDoes the profile support it?\nProfile: {query}\n",
      "item_template": "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n",
      "yes": "YES", "no": "NO", "threshold": 0.5})";
    labeler_ = new Labeler(Labeler::load(dir_));

    rows_path_ = dir_ / "rows.jsonl";
    std::ofstream rows(rows_path_);
    rows << R"({"query": "ten years of python and sql", "items": ["python", "sql", "cooking", "welding", "spark", "excel"], "labels": [1, 1, 0, 0, 1, 0], "truth": [1, 1, 0, 0, 0, 0]})" "\n"
         << "\n"
         << R"({"query": "icu nurse", "items": ["critical care", "nursing", "rust", "acls", "go"], "labels": [1, 1, 0, 1, 0]})" "\n"
         << R"({"query": "single", "items": ["only one"], "labels": [0]})" "\n"
         << R"({"query": "chef in paris, french and english", "items": ["french", "english", "cooking", "german"], "labels": [1, 1, 1, 0], "truth": [1, 1, 1, 0]})" "\n";
  }
  static void TearDownTestSuite() {
    delete labeler_;
    testing::remove_scoring_test_checkpoints();
  }
  static inline std::filesystem::path dir_, rows_path_;
  static inline Labeler* labeler_ = nullptr;
};

TEST_F(LabelerEvaluation, ReadsRowsSkippingBlankLines) {
  const std::vector<LabeledRow> rows = read_labeled_rows(rows_path_.string()).rows;
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].line, 3);
  size_t items = 0;
  for (const LabeledRow& row : rows) items += row.row.items.size();
  EXPECT_EQ(items, 16u);
  const std::filesystem::path empty = dir_ / "empty.jsonl";
  std::ofstream(empty) << "\n\n";
  EXPECT_THAT([&] { read_labeled_rows(empty.string()); }, ThrowsMessage<Error>(HasSubstr("empty input")));
  const std::filesystem::path bad = dir_ / "bad.jsonl";
  std::ofstream(bad) << R"({"query": "q", "items": ["a"], "labels": [1]})" "\n" R"({"query": "q", "items": ["a"]})";
  const LabeledRows read = read_labeled_rows(bad.string());
  ASSERT_EQ(read.rows.size(), 1u);
  ASSERT_EQ(read.errors.size(), 1u);
  EXPECT_EQ(read.errors[0].line, 2);
  EXPECT_THAT(read.errors[0].message, HasSubstr("missing field \"labels\""));
  std::ofstream(bad) << R"({"query": "q"})";
  EXPECT_THAT([&] { read_labeled_rows(bad.string()); },
              ThrowsMessage<Error>(HasSubstr("none of its 1 rows could be read; line 1: missing field \"items\"")));
}

TEST_F(LabelerEvaluation, MisLabelsNeverChangeUnderShuffles) {
  const std::vector<LabeledRow> rows = read_labeled_rows(rows_path_.string()).rows;
  for (ScoringMode mode : {ScoringMode::Mis, ScoringMode::Independent}) {
    EvalOptions options;
    options.scoring.mode = mode;
    options.shuffles = 3;
    options.seed = 5;
    const EvalReport report = evaluate(*labeler_, rows, options);
    EXPECT_EQ(report.reference.n_items, 16);
    EXPECT_EQ(report.order.n_compared, (6 + 5 + 4) * 3) << "rows of one item have no order";
    EXPECT_EQ(report.order.n_changed, 0) << scoring_mode_name(mode);
    EXPECT_EQ(report.order.n_score_changed, 0) << scoring_mode_name(mode) << ": scores must be bitwise equal";
    EXPECT_EQ(report.order.rate(), 0.0);
    ASSERT_TRUE(report.truth);
    EXPECT_EQ(report.truth->n_items, 10);
    EXPECT_GT(report.labels_per_second(), 0.0);
    EXPECT_EQ(report.reference.n_unparsed, 0);
  }
}

// The shuffled labels are matched back to their items' reference labels: mis labels do not
// depend on the order, so over K shuffles they agree K times as often as unshuffled, item by
// item (a reference left in the original order would disagree where the shuffle moved a label).
TEST_F(LabelerEvaluation, ShuffledAgreementMatchesLabelsBackByItem) {
  const std::vector<LabeledRow> rows = read_labeled_rows(rows_path_.string()).rows;
  EvalOptions options;
  options.shuffles = 3;
  options.seed = 5;
  // The threshold at the median score: about half the labels YES, so a label matched to the
  // wrong item would show.
  std::vector<double> scores;
  for (const LabeledRow& row : rows)
    for (const std::optional<double>& score : labeler_->score(row.row.query, row.row.items, options.scoring).scores)
      scores.push_back(*score);
  std::sort(scores.begin(), scores.end());
  options.scoring.threshold = scores[scores.size() / 2];
  const EvalReport report = evaluate(*labeler_, rows, options);
  ASSERT_GT(report.reference.true_positives + report.reference.false_positives, 4);
  ASSERT_LT(report.reference.true_positives + report.reference.false_positives, 12);
  EXPECT_EQ(report.shuffled_reference.n_items, 16 * 3) << "every item of every shuffle, rows of one item too";
  EXPECT_EQ(report.shuffled_reference.n_agree, 3 * report.reference.n_agree);
  EXPECT_EQ(report.shuffled_reference.true_positives, 3 * report.reference.true_positives);
  EXPECT_EQ(report.shuffled_reference.false_positives, 3 * report.reference.false_positives);
  ASSERT_TRUE(report.shuffled_truth);
  EXPECT_EQ(report.shuffled_truth->n_agree, 3 * report.truth->n_agree);
  const nlohmann::ordered_json json = eval_report_to_json(report);
  EXPECT_DOUBLE_EQ(json["shuffled_agreement"].get<double>(), report.reference.agreement());
  EXPECT_DOUBLE_EQ(json["shuffled_truth_agreement"].get<double>(), report.truth->agreement());

  options.shuffles = 0;
  const nlohmann::ordered_json none = eval_report_to_json(evaluate(*labeler_, rows, options));
  EXPECT_TRUE(none["shuffled_agreement"].is_null());
  EXPECT_TRUE(none["shuffled_truth_agreement"].is_null());
}

TEST_F(LabelerEvaluation, MetricsFollowTheLabelsOfScoreRow) {
  const std::vector<LabeledRow> rows = read_labeled_rows(rows_path_.string()).rows;
  EvalOptions options;
  options.shuffles = 0;
  const EvalReport report = evaluate(*labeler_, rows, options);
  LabelCounts expected;
  for (const LabeledRow& row : rows)
    add_labels(expected, labeler_->score(row.row.query, row.row.items, options.scoring).labels, row.labels);
  EXPECT_EQ(report.reference.n_agree, expected.n_agree);
  EXPECT_EQ(report.reference.true_positives, expected.true_positives);
  EXPECT_EQ(report.order.n_compared, 0);
  EXPECT_TRUE(eval_report_to_json(report)["order_inconsistency"].is_null());

  options.scoring.threshold = 0.0;  // everything YES: recall 1, precision = share of YES references
  const EvalReport all_yes = evaluate(*labeler_, rows, options);
  EXPECT_EQ(all_yes.reference.recall(), 1.0);
  EXPECT_DOUBLE_EQ(all_yes.reference.precision(), 9.0 / 16);
  EXPECT_DOUBLE_EQ(all_yes.truth->agreement(), 5.0 / 10);
}

TEST_F(LabelerEvaluation, RowsTheEngineCannotScoreAreLeftOutAndListed) {
  std::vector<LabeledRow> rows = read_labeled_rows(rows_path_.string()).rows;
  LabeledRow too_long = rows[0];
  too_long.line = 99;
  too_long.row.query = std::string(1000, 'x');
  rows.insert(rows.begin() + 1, too_long);
  EvalOptions options;
  options.shuffles = 1;
  options.scoring.max_request_tokens = 200;
  const EvalReport report = evaluate(*labeler_, rows, options);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].line, 99);
  EXPECT_THAT(report.errors[0].message, HasSubstr("--max-request-tokens"));
  EXPECT_EQ(report.n_rows, 4);
  EXPECT_EQ(report.reference.n_items, 16) << "the failed row's items are not counted";
  EXPECT_EQ(report.order.n_compared, 6 + 5 + 4);
  EXPECT_EQ(eval_report_to_json(report, 2)["errors"], 3);
}

TEST_F(LabelerEvaluation, GenerateReportsUnparsedAndInconsistency) {
  std::vector<LabeledRow> rows = read_labeled_rows(rows_path_.string()).rows;
  EvalOptions options;
  options.scoring.mode = ScoringMode::Generate;
  options.shuffles = 2;
  const EvalReport report = evaluate(*labeler_, rows, options);
  EXPECT_EQ(report.reference.n_items, 16);
  EXPECT_EQ(report.order.n_compared, (6 + 5 + 4) * 2);
  EXPECT_GE(report.order.rate(), 0.0);
  EXPECT_LE(report.order.rate(), 1.0);
  const nlohmann::ordered_json json = eval_report_to_json(report);
  EXPECT_EQ(json["mode"], "generate");
  EXPECT_TRUE(json["threshold"].is_null()) << "generate makes hard decisions";
  EXPECT_EQ(json["n_unparsed"], report.reference.n_unparsed);
  for (const char* key : {"agreement", "precision", "recall", "f1", "truth_agreement", "order_inconsistency",
                          "labels_per_second"})
    EXPECT_TRUE(json.contains(key)) << key;
}

}  // namespace
}  // namespace sift
