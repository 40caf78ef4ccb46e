// Multi-item scoring: each sub-request is one packed sequence [q; c_b .. c_{e-1}].
#include "scoring/modes.h"
#include "scoring/readout.h"
#include "scoring/request_sizing.h"

namespace sift {

ItemScores score_multi_item(const Model& model, AnswerTokenIds answer, std::span<const int32_t> query,
                            std::span<const TokenIds> items, int64_t max_request_tokens) {
  const int64_t query_len = static_cast<int64_t>(query.size());
  check_positions_fit(model.config(), query_len, items);
  const std::vector<int64_t> lengths = item_lengths(items);
  const int32_t vocab_rows[2] = {answer.yes, answer.no};

  ItemScores out;
  out.scores.resize(items.size());
  for (const ItemRange& range : split_into_requests(query_len, lengths, max_request_tokens)) {
    RequestLayout layout = multi_item_layout(query, items.subspan(range.begin, range.size()));
    ForwardResult result = model.forward(layout.forward_request(vocab_rows));
    // result: (n items in range, 2) logits, columns [yes, no]
    for (int64_t k = 0; k < range.size(); ++k) {
      std::span<const float> logits = result.row(k);
      out.scores[range.begin + k] = yes_probability(logits[0], logits[1]);
    }
    out.prefill_tokens += layout.n_tokens();
    out.requests += 1;
  }
  return out;
}

}  // namespace sift
