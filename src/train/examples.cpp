#include "train/examples.h"

#include <algorithm>
#include <exception>

#include "core/error.h"

namespace sift::train {
namespace {

// Error when a sequence of the row would not fit (see examples.h).
void check_lengths(const EncodedRow& e, const SequenceLimits& limits) {
  const auto query = static_cast<int64_t>(e.query.size());
  int64_t packed = query;
  for (size_t i = 0; i < e.items.size(); ++i) {
    const int64_t single = query + static_cast<int64_t>(e.items[i].size());
    packed += static_cast<int64_t>(e.items[i].size());
    if (single > limits.max_positions)
      fail("item {}'s prompt is {} tokens ({} query + {} item), more than the model's {} positions", i, single, query,
           e.items[i].size(), limits.max_positions);
    if (!limits.pack && single > limits.max_sequence_tokens)
      fail("item {}'s prompt is {} tokens, more than --max-sequence-tokens {}", i, single, limits.max_sequence_tokens);
  }
  if (limits.pack && packed > limits.max_sequence_tokens)
    fail("the packed row is {} tokens ({} items), more than --max-sequence-tokens {}", packed, e.items.size(),
         limits.max_sequence_tokens);
}

}  // namespace

EncodedRows encode_rows(const std::vector<LabeledRow>& rows, const PromptEncoder& encoder, const AnswerTokenIds& answer,
                        const SequenceLimits& limits) {
  EncodedRows encoded;
  encoded.rows.reserve(rows.size());
  for (const LabeledRow& row : rows) {
    try {  // whatever goes wrong with a row, it is left out with its reason
      EncodedRow e;
      e.line = row.line;
      e.query = encoder.query_tokens(row.row.query);
      e.items = encoder.item_tokens_batch(row.row.items);
      for (bool label : row.labels) {
        e.targets.push_back(label ? answer.yes : answer.no);
        e.labels.push_back(label ? 1 : 0);
      }
      check_lengths(e, limits);
      encoded.rows.push_back(std::move(e));
    } catch (const std::exception& error) {
      encoded.errors.push_back({row.line, error.what()});
    }
  }
  return encoded;
}

}  // namespace sift::train
