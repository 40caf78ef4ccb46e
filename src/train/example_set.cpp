#include "train/example_set.h"

#include "core/error.h"

namespace sift::train {

ExampleSize packed_example_size(const std::vector<int32_t>& query, const std::vector<std::vector<int32_t>>& items) {
  auto n_tokens = static_cast<int32_t>(query.size());
  for (const std::vector<int32_t>& item : items) n_tokens += static_cast<int32_t>(item.size());
  return {n_tokens, static_cast<int32_t>(items.size())};
}

ExampleSet label_examples(const std::vector<EncodedRow>& rows, bool pack, std::optional<AnswerTokenIds> soft_answer) {
  struct Example {
    int32_t row = 0;
    int32_t item = -1;  // -1: the whole row, packed
  };
  std::vector<Example> examples;
  ExampleSet set;
  set.objective = "label";
  set.soft_answer = soft_answer;
  const bool soft = soft_answer.has_value();
  for (size_t r = 0; r < rows.size(); ++r) {
    const EncodedRow& row = rows[r];
    if (soft && row.soft.size() != row.items.size())
      fail("line {}: {} soft targets for {} items", row.line, row.soft.size(), row.items.size());
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
  set.layout = [&rows, soft, examples = std::move(examples)](int32_t example) {
    const Example& e = examples[static_cast<size_t>(example)];
    const EncodedRow& row = rows[static_cast<size_t>(e.row)];
    if (e.item < 0) return packed_layout(row.query, row.items, row.targets, soft ? row.soft : std::vector<float>{});
    const auto i = static_cast<size_t>(e.item);
    SequenceLayout s = single_candidate_layout(row.query, row.items[i], row.targets[i]);
    if (soft) s.soft_targets = {row.soft[i]};
    return s;
  };
  return set;
}

}  // namespace sift::train
