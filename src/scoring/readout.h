#pragma once
// Score readout (paper §3.3): the answer-position logits renormalised over YES and NO.
//
//   score = exp(l_yes) / (exp(l_yes) + exp(l_no)) = 1 / (1 + exp(l_no - l_yes))
//
// computed in double from the two F32 logits, in the form that never overflows
// (exp of a non-positive number only). The full-vocabulary softmax is never needed.
#include <cmath>

namespace sift {

inline double yes_probability(float logit_yes, float logit_no) {
  const double margin = static_cast<double>(logit_yes) - static_cast<double>(logit_no);
  if (margin >= 0) return 1.0 / (1.0 + std::exp(-margin));
  const double e = std::exp(margin);
  return e / (1.0 + e);
}

// label = score >= threshold; a tie goes to YES.
inline bool label_of(double score, double threshold) { return score >= threshold; }

// A threshold is a number in [0, 1] (NaN is not): the one rule for sift.json's "threshold",
// ScoringOptions::threshold (checked by the engine) and a /v1/label request's "threshold".
inline bool is_valid_threshold(double threshold) { return threshold >= 0.0 && threshold <= 1.0; }

}  // namespace sift
