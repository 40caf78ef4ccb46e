#pragma once
// The three scoring execution modes, at the token level. Each returns, for every item in
// input order, score_i = P(yes) read at the last token of item i (readout.h), and what it
// cost. All three give the same bits for an item (the exactness contract, design.md): the
// forward pass computes a token from its own id, position and visible keys only, and
// every mode shows item i's tokens exactly the keys of the prompt [q; c_i] at the same
// positions.
//
//   mis         : packed [q; c_1..c_k] requests (layout.h), the row split into the fewest
//                 requests of <= max_request_tokens tokens (request_sizing.h).
//   independent : one request [q; c_i] per item, nothing reused. Requests are batched
//                 side by side into forward calls of <= max_request_tokens tokens, the way
//                 an engine batches separate requests; each still pays Lq + Li tokens.
//   prefix      : the query's K/V computed once into a KvCache, then each item run as its
//                 own request against it ({0, Li, Lq}) and the cache truncated back to Lq:
//                 what prefix caching gives.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "scoring/layout.h"
#include "scoring/prompt.h"

namespace sift {

enum class ScoringMode { Mis, Independent, Prefix, Generate };

std::optional<ScoringMode> parse_scoring_mode(std::string_view name);
std::string_view scoring_mode_name(ScoringMode mode);

struct ItemScores {
  std::vector<double> scores;  // one per item, input order
  int64_t prefill_tokens = 0;  // tokens run through the model
  int64_t requests = 0;        // requests in the mode's own sense (see above)
};

ItemScores score_multi_item(const Model& model, AnswerTokenIds answer, std::span<const int32_t> query,
                            std::span<const TokenIds> items, int64_t max_request_tokens);
ItemScores score_independent(const Model& model, AnswerTokenIds answer, std::span<const int32_t> query,
                             std::span<const TokenIds> items, int64_t max_request_tokens);
ItemScores score_with_cached_query(const Model& model, AnswerTokenIds answer, std::span<const int32_t> query,
                                   std::span<const TokenIds> items, int64_t max_request_tokens);

// Dispatches to one of the three above (not Generate, which needs text: generate_mode.h).
ItemScores score_items(ScoringMode mode, const Model& model, AnswerTokenIds answer,
                       std::span<const int32_t> query, std::span<const TokenIds> items,
                       int64_t max_request_tokens);

// Lengths of each item, for request sizing.
std::vector<int64_t> item_lengths(std::span<const TokenIds> items);

// Checks that query + item fits the model's positions (item positions end at Lq + Li - 1).
void check_positions_fit(const ModelConfig& config, int64_t query_len, std::span<const TokenIds> items);

}  // namespace sift
