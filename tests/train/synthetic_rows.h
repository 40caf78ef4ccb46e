#pragma once
// EncodedRows of a learnable toy task for trainer tests: the label of an item is 1 when its
// first token is one of the query's tokens (the "profile" mentions the "qualification").
#include <random>
#include <vector>

#include "train/examples.h"

namespace sift::train::testing {

inline constexpr int32_t kYesId = 5, kNoId = 6;

inline std::vector<EncodedRow> synthetic_rows(int n_rows, uint32_t seed, int64_t vocab = 300) {
  std::mt19937 rng(seed);
  auto token = [&] { return static_cast<int32_t>(10 + rng() % (vocab - 10)); };
  std::vector<EncodedRow> rows;
  for (int r = 0; r < n_rows; ++r) {
    EncodedRow row;
    const int query_len = 8 + static_cast<int>(rng() % 12);
    for (int t = 0; t < query_len; ++t) row.query.push_back(token());
    const int n_items = 2 + static_cast<int>(rng() % 5);
    for (int i = 0; i < n_items; ++i) {
      const bool positive = rng() % 2;
      std::vector<int32_t> item = {positive ? row.query[rng() % row.query.size()] : token(), 7};
      if (rng() % 2) item.insert(item.begin() + 1, token());
      const bool label = std::find(row.query.begin(), row.query.end(), item[0]) != row.query.end();
      row.items.push_back(item);
      row.labels.push_back(label ? 1 : 0);
      row.targets.push_back(label ? kYesId : kNoId);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace sift::train::testing
