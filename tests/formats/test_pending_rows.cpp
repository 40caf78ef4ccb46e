// Rows on their way through `sift score`'s and `sift batch`'s pipeline (formats/pending_rows.h):
// a row costs the queue what its plan runs in the mode asked (scoring/plan_cost.h), so a
// batch the scorer takes is about one forward call's work in every mode: mode independent's
// row is its query with each item, not the query once.
#include <gtest/gtest.h>

#include <string>

#include "formats/pending_rows.h"

namespace sift {
namespace {

const Labeler& labeler() {
  static const Labeler loaded = Labeler::load(SIFT_SOURCE_DIR "/models/default-labeler", 1);
  return loaded;
}

PendingRow read(std::string line, ScoringMode mode) {
  ScoringOptions options;
  options.mode = mode;
  return read_pending_row(labeler(), line, 1, options);
}

TEST(PendingRows, ARowCostsWhatItsPlanRunsInItsMode) {
  const std::string line = R"({"query": "ten years of python and go", "items": ["Python", "welding", "Go"]})";
  const PendingRow mis = read(line, ScoringMode::Mis);
  ASSERT_TRUE(mis.error.empty()) << mis.error;
  int64_t query = static_cast<int64_t>(mis.tokens.query.size()), items = 0;
  for (const auto& item : mis.tokens.items) items += static_cast<int64_t>(item.size());
  EXPECT_EQ(mis.cost, query + items);
  EXPECT_EQ(read(line, ScoringMode::Independent).cost, 3 * query + items);
  EXPECT_EQ(read(line, ScoringMode::Prefix).cost, query + items);
  EXPECT_EQ(read(R"({"query": "q", "items": []})", ScoringMode::Independent).cost, 1) << "at least 1";
}

}  // namespace
}  // namespace sift
