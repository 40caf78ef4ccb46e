#pragma once
// The scoring execution modes (sift/labeler.h's ScoringMode). Each gives, for every item of
// every row, score = P(yes) read at the item's last token (readout.h), and what the row
// cost. All three give the same bits for an item (the exactness contract,
// docs/scoring-contract.md): a token is computed from its own id, position and the keys it
// sees, and every mode shows item i's tokens exactly the keys of the prompt [q; c_i] at the
// same positions (scoring/plan.h). How each mode becomes forward calls is the scheduler's
// plan (scoring/scheduler.h):
//
//   mis         : each row's items in the fewest [q; c_b..c_e] requests that fit, and the
//                 requests of all rows packed side by side into forward calls.
//   independent : one request [q; c_i] per item, nothing reused; requests packed into calls
//                 the way an engine batches separate requests (each still pays Lq + Li).
//   prefix      : per row, the query's K/V computed once and kept, then each item run as its
//                 own call against it: what prefix caching gives.
// Mode generate (packed generation) works on text: generate_mode.h.
#include <cstdint>
#include <span>
#include <vector>

#include "model/session.h"
#include "scoring/plan.h"
#include "scoring/readout.h"
#include "sift/labeler.h"

namespace sift {

// ScoringMode, parse_scoring_mode and scoring_mode_name are public API (sift/labeler.h).

// One row's scores (one per item, input order) and its cost.
struct ItemScores {
  std::vector<double> scores;
  int64_t prefill_tokens = 0;  // the prompt tokens of the row's requests
  int64_t requests = 0;        // requests in the mode's own sense (above)
};

// Scores rows (each passed check_row_fits with `limits`) in mode mis, independent or prefix
// on `session`, through the scheduler, nothing reused across calls: token-level scoring for
// tools, benchmarks and tests.
std::vector<ItemScores> score_token_rows(Session& session, ScoringMode mode, AnswerTokenIds answer,
                                         std::span<const TokenRow> rows, const PlanLimits& limits);

}  // namespace sift
