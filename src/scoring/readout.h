#pragma once
// Score readout (paper §3.3): the answer-position logits renormalised over YES and NO.
//
//   score = exp(l_yes) / (exp(l_yes) + exp(l_no)) = 1 / (1 + exp(l_no - l_yes))
//
// computed in double from the two F32 logits, in the form that never overflows
// (exp of a non-positive number only). The full-vocabulary softmax is never needed.
//
// A score sift labels is a probability in [0, 1] (is_probability): every readout gives one
// from finite logits, and yes_probability gives NaN when either logit is not finite (an
// infinite logit would otherwise read as a confident 0 or 1). Anything else is the row's
// error, worded by not_a_probability_message, never a label.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>
#include <string_view>

namespace sift {

inline double yes_probability(float logit_yes, float logit_no) {
  if (!std::isfinite(logit_yes) || !std::isfinite(logit_no)) return std::numeric_limits<double>::quiet_NaN();
  const double margin = static_cast<double>(logit_yes) - static_cast<double>(logit_no);
  if (margin >= 0) return 1.0 / (1.0 + std::exp(-margin));
  const double e = std::exp(margin);
  return e / (1.0 + e);
}

// The one [0, 1] rule (false for NaN): a score before it is labeled or answered, and a
// threshold wherever one is given (sift.json's "threshold", ScoringOptions::threshold, checked
// by the engine, and a /v1/label request's "threshold").
inline bool is_probability(double x) { return x >= 0.0 && x <= 1.0; }

// "item 3 scored nan: the model's logits are not finite"; `item` names it ("item 3",
// "candidate \"q7\"").
inline std::string not_a_probability_message(std::string_view item, double score) {
  return fmt::format("{} scored {}: the model's logits are not finite", item, score);
}

// label = score >= threshold; a tie goes to YES.
inline bool label_of(double score, double threshold) { return score >= threshold; }

}  // namespace sift
