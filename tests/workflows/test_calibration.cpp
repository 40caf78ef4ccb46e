// Threshold calibration: the precision-recall curve and the point chosen for each target,
// on small curves computed by hand; the curve files; sift.json as a new version.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "io/atomic_file.h"
#include "scoring/artifact.h"
#include "workflows/artifact_update.h"
#include "workflows/calibration.h"
#include "workflows/pr_curve_files.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// 8 items, 4 YES. By hand, label = score >= t:
//   t    tp fp  precision  recall  F1 = 2tp / (2tp + fp + fn)   agreement = (tp + 4 - fp) / 8
//   0.9   1  0  1          0.25    2/5   = 0.4                  5/8
//   0.8   1  1  0.5        0.25    2/6   = 0.333                4/8
//   0.7   2  2  0.5        0.5     4/8   = 0.5                  4/8   (two items tie at 0.7: both YES)
//   0.5   3  2  0.6        0.75    6/9   = 0.667                5/8
//   0.3   3  3  0.5        0.75    6/10  = 0.6                  4/8
//   0.2   4  3  0.571      1       8/11  = 0.727                5/8
//   0.1   4  4  0.5        1       8/12  = 0.667                4/8
const std::vector<double> kScores = {0.7, 0.1, 0.9, 0.3, 0.5, 0.8, 0.2, 0.7};
const std::vector<bool> kReference = {true, false, true, false, true, false, true, false};

PrCurve example_curve() { return precision_recall_curve(kScores, kReference); }

double chosen_threshold(const std::string& target) {
  return choose_operating_point(example_curve(), parse_calibration_target(target)).threshold;
}

TEST(PrecisionRecallCurve, OnePointPerDistinctScoreWithHandComputedCounts) {
  const PrCurve curve = example_curve();
  EXPECT_EQ(curve.n_items, 8);
  EXPECT_EQ(curve.n_positive, 4);
  ASSERT_EQ(curve.points.size(), 7u);
  const std::vector<double> thresholds = {0.9, 0.8, 0.7, 0.5, 0.3, 0.2, 0.1};
  const std::vector<int64_t> tp = {1, 1, 2, 3, 3, 4, 4}, fp = {0, 1, 2, 2, 3, 3, 4};
  const std::vector<double> f1 = {2.0 / 5, 2.0 / 6, 4.0 / 8, 6.0 / 9, 6.0 / 10, 8.0 / 11, 8.0 / 12};
  const std::vector<double> agreement = {5.0 / 8, 4.0 / 8, 4.0 / 8, 5.0 / 8, 4.0 / 8, 5.0 / 8, 4.0 / 8};
  for (size_t k = 0; k < thresholds.size(); ++k) {
    const PrPoint& p = curve.points[k];
    EXPECT_EQ(p.threshold, thresholds[k]);
    EXPECT_EQ(p.true_positives, tp[k]) << "t=" << p.threshold;
    EXPECT_EQ(p.false_positives, fp[k]) << "t=" << p.threshold;
    EXPECT_DOUBLE_EQ(p.precision, static_cast<double>(tp[k]) / static_cast<double>(tp[k] + fp[k]));
    EXPECT_DOUBLE_EQ(p.recall, static_cast<double>(tp[k]) / 4.0);
    EXPECT_DOUBLE_EQ(p.f1, f1[k]);
    EXPECT_DOUBLE_EQ(p.agreement, agreement[k]);
  }
}

TEST(ChooseOperatingPoint, F1TakesTheHighestF1) { EXPECT_EQ(chosen_threshold("f1"), 0.2); }

TEST(ChooseOperatingPoint, F1TiesGoToTheHigherThreshold) {
  // t=0.9: tp 1 fp 0 fn 1 -> 2/3;  t=0.6: tp 2 fp 2 fn 0 -> 4/6 = 2/3.
  const PrCurve curve = precision_recall_curve(std::vector<double>{0.9, 0.8, 0.7, 0.6},
                                               std::vector<bool>{true, false, false, true});
  const PrPoint& chosen = choose_operating_point(curve, parse_calibration_target("f1"));
  EXPECT_EQ(chosen.threshold, 0.9);
  EXPECT_DOUBLE_EQ(chosen.f1, 2.0 / 3);
}

// Three points share the best agreement 5/8 (0.9, 0.5, 0.2): the highest threshold wins.
TEST(ChooseOperatingPoint, AgreementTakesTheMostLabelsEqualToTheReference) {
  EXPECT_EQ(chosen_threshold("agreement"), 0.9);
  // Scores that separate YES from NO at 0.6 only: agreement 1 there, below 1 at every other point.
  const PrCurve curve = precision_recall_curve(std::vector<double>{0.95, 0.9, 0.6, 0.55, 0.3, 0.1},
                                               std::vector<bool>{true, false, true, false, false, false});
  // t=0.95: 1 YES right, 4 NO right -> 5/6;  t=0.9: 1 + 3 -> 4/6;  t=0.6: 2 + 3 -> 5/6;  t=0.55: 2 + 2 -> 4/6.
  const PrPoint& chosen = choose_operating_point(curve, parse_calibration_target("agreement"));
  EXPECT_EQ(chosen.threshold, 0.95);
  EXPECT_DOUBLE_EQ(chosen.agreement, 5.0 / 6);
  const PrCurve separable = precision_recall_curve(std::vector<double>{0.9, 0.7, 0.6, 0.2},
                                                   std::vector<bool>{true, true, false, false});
  EXPECT_EQ(choose_operating_point(separable, parse_calibration_target("agreement")).threshold, 0.7);
  EXPECT_DOUBLE_EQ(choose_operating_point(separable, parse_calibration_target("agreement")).agreement, 1.0);
}

TEST(ChooseOperatingPoint, PrecisionTargetTakesTheMostRecall) {
  EXPECT_EQ(chosen_threshold("precision=1"), 0.9);    // only t=0.9 is exact
  EXPECT_EQ(chosen_threshold("precision=0.6"), 0.5);  // 0.9 (R 0.25) or 0.5 (R 0.75)
  EXPECT_EQ(chosen_threshold("precision=0.55"), 0.2); // 0.2 reaches precision 4/7 at recall 1
  // Every point has precision >= 0.5; recall 1 at 0.2 and 0.1: the higher precision (0.2)
  // wins, since 0.1 only adds a NO item.
  EXPECT_EQ(chosen_threshold("precision=0.5"), 0.2);
}

TEST(ChooseOperatingPoint, RecallTargetTakesTheMostPrecision) {
  EXPECT_EQ(chosen_threshold("recall=0.75"), 0.5);  // 0.5 (P 0.6), 0.3, 0.2 (P 0.571), 0.1
  EXPECT_EQ(chosen_threshold("recall=0.3"), 0.5);   // t <= 0.7: the best precision is 0.6 at 0.5
  EXPECT_EQ(chosen_threshold("recall=1"), 0.2);     // 0.2 (P 4/7) beats 0.1 (P 0.5)
  EXPECT_EQ(chosen_threshold("recall=0.25"), 0.9);  // precision 1
}

TEST(ChooseOperatingPoint, UnreachablePrecisionNamesTheBestAchievable) {
  // t=0.9: precision 0; t=0.5: 1/2; t=0.4: 1/3.
  const PrCurve curve =
      precision_recall_curve(std::vector<double>{0.9, 0.5, 0.4}, std::vector<bool>{false, true, false});
  try {
    choose_operating_point(curve, parse_calibration_target("precision=0.6"));
    FAIL() << "precision 0.6 is out of reach";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("precision=0.6"), HasSubstr("cannot be met"),
                                HasSubstr("best achievable precision is 0.5"), HasSubstr("threshold 0.5")));
  }
}

TEST(ChooseOperatingPoint, RowsOfOneClassAreRefusedForEveryTarget) {
  // All YES: precision 1 everywhere, recall 1 at the lowest threshold: every target would
  // label everything YES. (All NO: precision_recall_curve refuses, recall is undefined.)
  const PrCurve curve = precision_recall_curve(std::vector<double>{0.9, 0.5, 0.4}, std::vector<bool>{true, true, true});
  for (const char* target : {"f1", "precision=0.9", "recall=0.5"}) {
    try {
      choose_operating_point(curve, parse_calibration_target(target));
      ADD_FAILURE() << target << ": chose a threshold on YES labels alone";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr("all 3 items have a YES reference label"), HasSubstr("NO labels too")));
    }
  }
}

TEST(PrecisionRecallCurve, RejectsBadInput) {
  auto message = [](std::vector<double> scores, std::vector<bool> reference) -> std::string {
    try {
      precision_recall_curve(scores, reference);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_THAT(message({}, {}), HasSubstr("no items"));
  EXPECT_THAT(message({0.5}, {true, false}), HasSubstr("1 scores but 2 reference labels"));
  EXPECT_THAT(message({0.5, 0.2}, {false, false}), HasSubstr("recall is undefined"));
  EXPECT_THAT(message({0.5, 1.5}, {true, false}), HasSubstr("outside [0, 1]"));
  EXPECT_THAT(message({0.5, std::nan("")}, {true, false}), HasSubstr("outside [0, 1]"));
}

TEST(CalibrationTarget, ParsesTheFourForms) {
  EXPECT_EQ(parse_calibration_target("f1").kind, CalibrationTarget::Kind::F1);
  EXPECT_EQ(parse_calibration_target("agreement").kind, CalibrationTarget::Kind::Agreement);
  EXPECT_EQ(parse_calibration_target("agreement").name(), "agreement");
  const CalibrationTarget precision = parse_calibration_target("precision=0.9");
  EXPECT_EQ(precision.kind, CalibrationTarget::Kind::Precision);
  EXPECT_EQ(precision.value, 0.9);
  EXPECT_EQ(precision.name(), "precision=0.9");
  const CalibrationTarget recall = parse_calibration_target("recall=1");
  EXPECT_EQ(recall.kind, CalibrationTarget::Kind::Recall);
  EXPECT_EQ(recall.value, 1.0);
  EXPECT_EQ(recall.name(), "recall=1");
  for (const char* bad : {"F1", "accuracy", "agreement=0.9", "Agreement", "precision=", "precision=0", "precision=1.5", "recall=abc",
                          "recall=0.5x", "recall=-0.1", "precision"}) {
    EXPECT_THROW(parse_calibration_target(bad), OptionError) << bad;
  }
}

class CalibrationFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("sift_calibration_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(CalibrationFiles, TsvHasAHeaderAndOneLinePerPoint) {
  write_pr_curve_tsv(dir_ / "pr.tsv", example_curve());
  std::ifstream in(dir_ / "pr.tsv");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "threshold\tprecision\trecall\tf1");
  std::getline(in, line);
  EXPECT_EQ(line, "0.9\t1\t0.25\t0.4");
  int n_points = 1;
  while (std::getline(in, line)) ++n_points;
  EXPECT_EQ(n_points, 7);
}

TEST_F(CalibrationFiles, PlotIsAPng) {
  const char* path = std::getenv("PATH");
  if (!path || std::string(path).empty()) GTEST_SKIP();
  try {
    require_gnuplot();
  } catch (const Error&) {
    GTEST_SKIP() << "gnuplot is not installed";
  }
  const PrCurve curve = example_curve();
  const std::vector<double> scores = {0.9, 0.8, 0.8, 0.5, 0.2};
  write_calibration_files(dir_, curve, curve.points[5], score_histogram(scores, {true, false, true, false, true}, 20),
                          "a 'quoted' title");
  const std::string png = read_text(dir_ / "pr_curve.png");
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n"));
  // The chosen point is inline data, tab-separated like the TSV (else gnuplot drops it).
  const std::string script = read_text(dir_ / "pr_curve.gp");
  EXPECT_NE(script.find(fmt::format("\n{}\t{}\ne\n", curve.points[5].recall, curve.points[5].precision)),
            std::string::npos)
      << script;
  EXPECT_EQ(script.find(dir_.string()), std::string::npos) << "the script names its files relative to its folder";
  EXPECT_NE(script.find(fmt::format("average precision {:.4f}", average_precision(curve))), std::string::npos);
  EXPECT_NE(script.find("using 3:($3 > 0 ? $2 : 1/0)"), std::string::npos) << "recall-0 points are not drawn";
  EXPECT_NE(script.find("'score_histogram.tsv'"), std::string::npos) << "the histogram panel";
  EXPECT_EQ(read_text(dir_ / "score_histogram.tsv").substr(0, 44), "bin_start\tbin_end\tpositives\tnegatives\n0\t0.05");
}

TEST_F(CalibrationFiles, MissingGnuplotIsAClearError) {
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", dir_.c_str(), 1);
  std::string message;
  try {
    require_gnuplot();
  } catch (const Error& e) {
    message = e.what();
  }
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_THAT(message, AllOf(HasSubstr("gnuplot is not installed"), HasSubstr("gnuplot-nox")));
}

TEST(CalibratedVersion, CountsCalibrationsOnTheBaseVersion) {
  EXPECT_EQ(calibrated_version("3", "f1"), "3+cal1-f1");
  EXPECT_EQ(calibrated_version("3+cal1-f1", "precision=0.9"), "3+cal2-precision-0.9") << "words, no '='";
  EXPECT_EQ(calibrated_version("3+cal2-precision-0.9", "recall=0.8"), "3+cal3-recall-0.8");
  EXPECT_EQ(calibrated_version("v2+cal12-recall=0.8", "f1"), "v2+cal13-f1") << "an older sift's version counts too";
  EXPECT_EQ(calibrated_version("v+calx", "f1"), "v+calx+cal1-f1");
  EXPECT_EQ(calibrated_version("a+cal1-f1+cal2-x", "f1"), "a+cal1-f1+cal3-f1") << "the last suffix counts";
  EXPECT_EQ(calibrated_version("v+cal99999999999999999999-f1", "f1"), "v+cal99999999999999999999-f1+cal1-f1")
      << "a count beyond int64 is text, not a crash";
  // No regex: a 50,000-character version is handled in linear time, without recursion.
  const std::string long_version(50000, '+');
  EXPECT_EQ(calibrated_version(long_version, "f1"), long_version + "+cal1-f1");
}

// calibrated_artifact written over sift_json, as `sift calibrate --in-place` writes it
// (workflows/calibration_output.cpp).
ArtifactUpdate calibrate_in_place(const std::filesystem::path& sift_json, double threshold, const std::string& target,
                                  nlohmann::ordered_json record) {
  ArtifactUpdate update = calibrated_artifact(sift_json, threshold, target, std::move(record));
  write_file_atomically(sift_json, update.text);
  return update;
}

TEST_F(CalibrationFiles, ArtifactGetsTheThresholdAsANewVersionKeepingEveryOtherField) {
  const std::filesystem::path sift_json = dir_ / "sift.json";
  std::ofstream(sift_json) << R"({"format": "sift.scoring/2", "version": "e2e-1", "custom": {"kept": [1, 2]},
    "query_template": "Q: {query}\n", "item_template": "I: {item}\nA:", "yes": "YES", "no": "NO",
    "threshold": 0.5, "generate_item_template": "{index}) {item}\n"})";
  const ArtifactUpdate update = calibrate_in_place(sift_json, 0.25, "f1", {{"n_items", 8}});
  EXPECT_EQ(update.old_version, "e2e-1");
  EXPECT_EQ(update.new_version, "e2e-1+cal1-f1");
  EXPECT_EQ(update.old_threshold, 0.5);

  const ScoringArtifact artifact = load_scoring_artifact(sift_json);
  EXPECT_EQ(artifact.threshold, 0.25);
  EXPECT_EQ(artifact.version, "e2e-1+cal1-f1");
  EXPECT_EQ(artifact.query_template, "Q: {query}\n");
  EXPECT_EQ(artifact.generate_item_template, "{index}) {item}\n");
  const nlohmann::json written = nlohmann::json::parse(read_text(sift_json));
  EXPECT_EQ(written["custom"], nlohmann::json::parse(R"({"kept": [1, 2]})"));
  ASSERT_EQ(written["calibrations"].size(), 1u);
  EXPECT_EQ(written["calibrations"][0]["n_items"], 8);
  EXPECT_EQ(written["calibrations"][0]["version"], "e2e-1+cal1-f1");
  EXPECT_EQ(written["calibrations"][0]["threshold"], 0.25);
  EXPECT_EQ(written["calibrations"][0]["previous_version"], "e2e-1");
  EXPECT_EQ(written["calibrations"][0]["previous_threshold"], 0.5);
  const std::string text = read_text(sift_json);
  EXPECT_LT(text.find("\"format\""), text.find("\"custom\""));  // field order kept

  calibrate_in_place(sift_json, 0.75, "recall=0.9", {});
  EXPECT_EQ(load_scoring_artifact(sift_json).version, "e2e-1+cal2-recall-0.9");
  // The whole history is kept, oldest first.
  const nlohmann::json history = nlohmann::json::parse(read_text(sift_json))["calibrations"];
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0]["version"], "e2e-1+cal1-f1");
  EXPECT_EQ(history[1]["previous_version"], "e2e-1+cal1-f1");
  EXPECT_EQ(history[1]["previous_threshold"], 0.25);
  EXPECT_EQ(history[1]["threshold"], 0.75);
  for (const auto& entry : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename(), "sift.json") << "left a temporary file behind";
}

TEST_F(CalibrationFiles, AnOlderSingleCalibrationRecordStartsTheHistory) {
  const std::filesystem::path sift_json = dir_ / "sift.json";
  std::ofstream(sift_json) << R"({"format": "sift.scoring/2", "version": "3+cal1-f1", "query_template": "{query}",
    "item_template": "{item}", "yes": "YES", "no": "NO", "threshold": 0.4,
    "calibration": {"target": "f1", "previous_version": "3", "previous_threshold": 0.5}})";
  calibrate_in_place(sift_json, 0.6, "f1", {});
  const nlohmann::json written = nlohmann::json::parse(read_text(sift_json));
  EXPECT_FALSE(written.contains("calibration"));
  ASSERT_EQ(written["calibrations"].size(), 2u);
  EXPECT_EQ(written["calibrations"][0]["previous_version"], "3");
  EXPECT_EQ(written["calibrations"][1]["previous_version"], "3+cal1-f1");
  EXPECT_EQ(written["version"], "3+cal2-f1");
}

TEST(AveragePrecision, IsTheStepAreaUnderTheCurve) {
  // Scores 0.9 (YES), 0.8 (NO), 0.7 (YES): points (P 1, R 1/2), (P 1/2, R 1/2), (P 2/3, R 1).
  const std::vector<double> scores = {0.9, 0.8, 0.7};
  const PrCurve curve = precision_recall_curve(scores, {true, false, true});
  EXPECT_DOUBLE_EQ(average_precision(curve), 0.5 * 1.0 + 0.0 * 0.5 + 0.5 * (2.0 / 3.0));
  const std::vector<double> perfect = {0.9, 0.8, 0.1};
  EXPECT_DOUBLE_EQ(average_precision(precision_recall_curve(perfect, {true, true, false})), 1.0);
}

// Separation: scores a threshold means something on, and the two signs of scores that
// separate nothing (sift calibrate refuses those unless --force).
TEST(Separation, ScoresThatRankPositivesFirstPass) {
  const PrCurve curve = example_curve();  // AP 0.6979 at a positive rate of 0.5
  EXPECT_EQ(separation_problem(curve, choose_operating_point(curve, parse_calibration_target("f1"))), "");
}

TEST(Separation, AveragePrecisionNearThePositiveRateIsNamedWithItsNumbers) {
  // 100 items, 40 YES, every score equal: the one point labels everything YES (AP = 0.4, the
  // positive rate), so both signs show.
  const std::vector<double> flat(100, 0.5);
  std::vector<bool> reference(100, false);
  for (size_t i = 0; i < 40; ++i) reference[i] = true;
  const PrCurve curve = precision_recall_curve(flat, reference);
  const std::string problem = separation_problem(curve, curve.points.back());
  EXPECT_THAT(problem, AllOf(HasSubstr("do not separate YES from NO"), HasSubstr("average precision 0.4000 is below 0.4600"),
                             HasSubstr("positive rate 0.4000"), HasSubstr("labels 100.0% of the 100 items YES"),
                             HasSubstr("the reference labels 40.0% so")));
  // Positives just above the bar (0.4 + 0.1 * 0.6 = 0.46) pass: 6 YES first, then 94 items of which 34 YES.
  std::vector<double> scores(100, 0.2);
  for (size_t i = 0; i < 6; ++i) scores[i] = 0.9;
  const PrCurve ranked = precision_recall_curve(scores, reference);  // AP = 6/40 + 34/40 * 40/100 = 0.49
  EXPECT_DOUBLE_EQ(average_precision(ranked), 6.0 / 40 + (34.0 / 40) * 0.4);
  EXPECT_EQ(separation_problem(ranked, ranked.points.front()), "");
  for (size_t i = 3; i < 6; ++i) scores[i] = 0.2;  // 3 YES first: AP = 3/40 + 37/40 * 0.4 = 0.445 < 0.46
  const PrCurve weak = precision_recall_curve(scores, reference);
  EXPECT_THAT(separation_problem(weak, weak.points.front()), HasSubstr("average precision 0.4450 is below 0.4600"));
}

TEST(Separation, AThresholdLabelingNearlyEveryItemYesIsNamedUnlessTheReferenceDoesToo) {
  // 200 items, 100 YES ranked perfectly (AP 1); a point that labels 199 YES shows the second sign.
  std::vector<double> scores(200);
  std::vector<bool> reference(200);
  for (size_t i = 0; i < 200; ++i) {
    scores[i] = 1.0 - double(i) / 200;
    reference[i] = i < 100;
  }
  const PrCurve curve = precision_recall_curve(scores, reference);
  ASSERT_EQ(curve.points[198].true_positives + curve.points[198].false_positives, 199);
  EXPECT_THAT(separation_problem(curve, curve.points[198]), HasSubstr("labels 99.5% of the 200 items YES"));
  EXPECT_THAT(separation_problem(curve, curve.points[197]), HasSubstr("labels 99.0% of the 200 items YES"));
  EXPECT_EQ(separation_problem(curve, curve.points[196]), "") << "98.5% YES";
  EXPECT_EQ(separation_problem(curve, curve.points[99]), "");
  // Nearly every item NO (2 YES, as a high precision target may choose) is no sign.
  EXPECT_EQ(separation_problem(curve, curve.points[1]), "");
  // A reference of 99.5% YES ranked perfectly: labeling 199 items YES is what it does, and its AP of
  // 1 clears the bar of 0.99555.
  std::vector<bool> common(200, true);
  common[199] = false;
  const PrCurve common_curve = precision_recall_curve(scores, common);
  EXPECT_EQ(separation_problem(common_curve, common_curve.points[198]), "");
}

TEST(ScoreHistogram, CountsEachLabelPerBinWithTheTopBinClosed) {
  const std::vector<double> scores = {0.0, 0.04, 0.05, 0.5, 1.0, 0.99};
  const ScoreHistogram h = score_histogram(scores, {true, false, true, false, true, true}, 20);
  EXPECT_EQ(h.positives[0], 1);
  EXPECT_EQ(h.negatives[0], 1);
  EXPECT_EQ(h.positives[1], 1);
  EXPECT_EQ(h.negatives[10], 1);
  EXPECT_EQ(h.positives[19], 2) << "1.0 falls in the last bin";
  const std::vector<double> nan = {std::nan("")};
  EXPECT_THROW(score_histogram(nan, {true}, 20), Error);
}

TEST_F(CalibrationFiles, BrokenArtifactIsNotOverwritten) {
  const std::filesystem::path sift_json = dir_ / "sift.json";
  std::ofstream(sift_json) << R"({"format": "sift.scoring/2", "version": "1"})";
  EXPECT_THROW(calibrate_in_place(sift_json, 0.3, "f1", {}), Error);
  EXPECT_EQ(read_text(sift_json), R"({"format": "sift.scoring/2", "version": "1"})");
}

}  // namespace
}  // namespace sift
