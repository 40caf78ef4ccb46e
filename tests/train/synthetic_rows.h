#pragma once
// EncodedRows of learnable toy tasks for trainer tests. The query starts with a
// "category" token c in 20..29, then random tokens; an item starts with a token in 20..29.
//   item only    : label 1 when the item's first token is in 20..24
//   needs query  : label 1 when both the item's first token and c are in 20..24
#include <random>
#include <vector>

#include "train/examples.h"

namespace sift::train::testing {

inline constexpr int32_t kYesId = 5, kNoId = 6;

inline std::vector<EncodedRow> synthetic_rows(int n_rows, uint32_t seed, bool needs_query = true,
                                              int64_t vocab = 300) {
  std::mt19937 rng(seed);
  auto token = [&] { return static_cast<int32_t>(10 + rng() % (vocab - 10)); };
  std::vector<EncodedRow> rows;
  for (int r = 0; r < n_rows; ++r) {
    EncodedRow row;
    const int query_len = 8 + static_cast<int>(rng() % 12);
    const int32_t category = static_cast<int32_t>(20 + rng() % 10);
    row.query.push_back(category);
    for (int t = 1; t < query_len; ++t) row.query.push_back(token());
    const int n_items = 2 + static_cast<int>(rng() % 5);
    for (int i = 0; i < n_items; ++i) {
      const auto first = static_cast<int32_t>(20 + rng() % 10);
      std::vector<int32_t> item = {first, 7};
      if (rng() % 2) item.insert(item.begin() + 1, token());
      const bool label = needs_query ? first < 25 && category < 25 : first < 25;
      row.items.push_back(item);
      row.labels.push_back(label ? 1 : 0);
      row.targets.push_back(label ? kYesId : kNoId);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace sift::train::testing
