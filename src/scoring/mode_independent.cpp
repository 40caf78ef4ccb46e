// Independent scoring: one sequence [q; c_i] per item, nothing shared between them. The
// sequences are batched side by side (segments {s_i, Lq+Li, 0}) into forward calls of at
// most max_request_tokens tokens; a batch never changes a token's result (model.h).
#include "scoring/modes.h"
#include "scoring/readout.h"
#include "scoring/request_sizing.h"

namespace sift {

ItemScores score_independent(const Model& model, AnswerTokenIds answer, std::span<const int32_t> query,
                             std::span<const TokenIds> items, int64_t max_request_tokens) {
  const int64_t query_len = static_cast<int64_t>(query.size());
  check_positions_fit(model.config(), query_len, items);
  // Each sequence costs Lq + Li; batching k of them costs sum(Lq + Li): sized as a request
  // with an empty shared part and items of length Lq + Li.
  std::vector<int64_t> sequence_lengths = item_lengths(items);
  for (int64_t& len : sequence_lengths) len += query_len;
  const int32_t vocab_rows[2] = {answer.yes, answer.no};

  ItemScores out;
  out.scores.resize(items.size());
  for (const ItemRange& batch : split_into_requests(0, sequence_lengths, max_request_tokens)) {
    RequestLayout layout = independent_layout(query, items.subspan(batch.begin, batch.size()));
    ForwardResult result = model.forward(layout.forward_request(vocab_rows));
    for (int64_t k = 0; k < batch.size(); ++k) {
      std::span<const float> logits = result.row(k);
      out.scores[batch.begin + k] = yes_probability(logits[0], logits[1]);
    }
    out.prefill_tokens += layout.n_tokens();
  }
  out.requests = static_cast<int64_t>(items.size());
  return out;
}

}  // namespace sift
