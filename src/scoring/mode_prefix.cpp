// Prefix caching: the query's K/V once, then each item as its own request against it.
#include <algorithm>

#include "scoring/modes.h"
#include "scoring/readout.h"
#include "scoring/request_sizing.h"

namespace sift {

ItemScores score_with_cached_query(const Model& model, AnswerTokenIds answer, std::span<const int32_t> query,
                                   std::span<const TokenIds> items, int64_t max_request_tokens) {
  const int64_t query_len = static_cast<int64_t>(query.size());
  check_positions_fit(model.config(), query_len, items);
  const std::vector<int64_t> lengths = item_lengths(items);
  split_into_requests(query_len, lengths, max_request_tokens);  // each item request is Lq + Li: checks the limit
  const int64_t longest_item = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  const int32_t vocab_rows[2] = {answer.yes, answer.no};

  ItemScores out;
  out.scores.resize(items.size());
  if (items.empty()) return out;
  KvCache cache(model.config(), query_len + longest_item);
  if (query_len > 0) {
    RequestLayout prefill = causal_layout(query, 0, 0);  // no logits: only the K/V are kept
    model.forward(prefill.forward_request(vocab_rows), &cache);
    out.prefill_tokens += query_len;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    RequestLayout layout = cached_query_item_layout(query_len, items[i]);
    ForwardResult result = model.forward(layout.forward_request(vocab_rows), &cache);
    std::span<const float> logits = result.row(0);
    out.scores[i] = yes_probability(logits[0], logits[1]);
    cache.truncate(query_len);
    out.prefill_tokens += layout.n_tokens();
    out.requests += 1;
  }
  return out;
}

}  // namespace sift
