// sift calibrate's self-test probes (workflows/calibration_probes.h): per label the items whose
// scores lie nearest the threshold in log-odds, grouped by row in input order.
#include <gtest/gtest.h>

#include "workflows/calibration_probes.h"

namespace sift {
namespace {

LabeledRow labeled(std::string query, std::vector<std::string> items, std::vector<bool> labels) {
  LabeledRow row;
  row.row.query = std::move(query);
  row.row.items = std::move(items);
  row.labels = std::move(labels);
  return row;
}

RowResult scored(std::vector<double> scores) {
  RowResult result;
  for (double s : scores) result.scores.push_back(s);
  return result;
}

TEST(CalibrationProbes, PicksTheItemsNearestTheThresholdOfEachLabel) {
  const std::vector<LabeledRow> rows = {
      labeled("far", {"a", "b"}, {true, false}),
      labeled("near", {"yes1", "no1", "yes2", "no2"}, {true, false, true, false}),
      labeled("bad", {"x"}, {true}),
      labeled("more", {"yes3", "no3", "yes4"}, {true, false, true}),
  };
  std::vector<RowResult> results = {scored({0.999, 0.001}), scored({0.31, 0.29, 0.35, 0.2}), RowResult{},
                                    scored({0.4, 0.25, 0.9})};
  results[2].error = "too long";  // a row with an error is passed over
  const std::vector<ProbeRow> probes = calibration_probe_rows(rows, results, 0.3);
  ASSERT_EQ(probes.size(), 2u);  // "near" and "more", in input order; "far" is far
  EXPECT_EQ(probes[0].query, "near");
  EXPECT_EQ(probes[0].items, (std::vector<std::string>{"yes1", "no1", "yes2", "no2"}));
  EXPECT_EQ(probes[1].query, "more");
  EXPECT_EQ(probes[1].items, (std::vector<std::string>{"yes3", "no3"}));
}

TEST(CalibrationProbes, NoScoredItemGivesNoProbes) {
  const std::vector<LabeledRow> rows = {labeled("q", {"a"}, {true})};
  std::vector<RowResult> results = {RowResult{}};
  results[0].error = "bad";
  EXPECT_TRUE(calibration_probe_rows(rows, results, 0.5).empty());
}

}  // namespace
}  // namespace sift
