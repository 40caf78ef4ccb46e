#pragma once
// The scoring execution modes, at the token level, on a Session. Each gives, for every item
// of every row, score = P(yes) read at the item's last token (readout.h), and what the row
// cost. All three give the same bits for an item (the exactness contract,
// docs/scoring-contract.md): a token is computed from its own id, position and the keys it
// sees, and every mode shows item i's tokens exactly the keys of the prompt [q; c_i] at the
// same positions (scoring/plan.h).
//
//   mis         : each row's items in the fewest [q; c_b..c_e] requests that fit, and the
//                 requests of all rows packed side by side into forward calls (plan_calls).
//   independent : one request [q; c_i] per item, nothing reused; requests packed into calls
//                 the way an engine batches separate requests (each still pays Lq + Li).
//   prefix      : per row, the query's K/V computed once and kept in the session, then each
//                 item run as its own call against it and dropped: what prefix caching gives.
// Mode generate (packed generation) works on text: generate_mode.h.
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "model/session.h"
#include "scoring/plan.h"
#include "scoring/prompt.h"
#include "sift/labeler.h"

namespace sift {

// ScoringMode, parse_scoring_mode and scoring_mode_name are public API (sift/labeler.h).

// One row's scores (one per item, input order) and its cost.
struct ItemScores {
  std::vector<double> scores;
  int64_t prefill_tokens = 0;  // tokens run through the model for this row
  int64_t requests = 0;        // requests in the mode's own sense (above)
};

// A query run into the session after its cached keys (no logits): its key range, kept for
// the items that follow.
KeyRange prefill_prefix(Session& session, std::span<const int32_t> query);

// Items scored against a query whose keys the session holds (the multi-item rule with the
// query's keys as every item's context), in calls of up to `call_tokens` tokens (at least
// one item each); each call's keys are dropped after it, the cache ends as it began. Prefix
// mode is this with one item per call; a query reused across calls (rounds of one profile,
// a serving cache) is this with the budget. The same bits as scoring [q; c_i] alone.
ItemScores score_items_after_prefix(Session& session, AnswerTokenIds answer, KeyRange query_keys,
                                      std::span<const TokenIds> items, int64_t call_tokens);

// Scores rows (each passed check_row_fits with `limits`) in mode mis, independent or prefix.
std::vector<ItemScores> score_token_rows(Session& session, ScoringMode mode, AnswerTokenIds answer,
                                         std::span<const TokenRow> rows, const PlanLimits& limits);

}  // namespace sift
