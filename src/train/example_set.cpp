#include "train/example_set.h"

namespace sift::train {

ExampleSize packed_example_size(const std::vector<int32_t>& query, const std::vector<std::vector<int32_t>>& items) {
  auto n_tokens = static_cast<int32_t>(query.size());
  for (const std::vector<int32_t>& item : items) n_tokens += static_cast<int32_t>(item.size());
  return {n_tokens, static_cast<int32_t>(items.size())};
}

ExampleSet label_examples(const std::vector<EncodedRow>& rows, bool pack) {
  struct Example {
    int32_t row = 0;
    int32_t item = -1;  // -1: the whole row, packed
  };
  std::vector<Example> examples;
  ExampleSet set;
  set.objective = "label";
  for (size_t r = 0; r < rows.size(); ++r) {
    const EncodedRow& row = rows[r];
    if (pack) {
      if (row.items.empty()) continue;
      examples.push_back({static_cast<int32_t>(r), -1});
      set.sizes.push_back(packed_example_size(row.query, row.items));
    } else {
      for (size_t i = 0; i < row.items.size(); ++i) {
        examples.push_back({static_cast<int32_t>(r), static_cast<int32_t>(i)});
        set.sizes.push_back({static_cast<int32_t>(row.query.size() + row.items[i].size()), 1});
      }
    }
  }
  set.layout = [&rows, examples = std::move(examples)](int32_t example) {
    const Example& e = examples[static_cast<size_t>(example)];
    const EncodedRow& row = rows[static_cast<size_t>(e.row)];
    if (e.item < 0) return packed_layout(row.query, row.items, row.targets);
    return single_candidate_layout(row.query, row.items[static_cast<size_t>(e.item)],
                                   row.targets[static_cast<size_t>(e.item)]);
  };
  return set;
}

}  // namespace sift::train
