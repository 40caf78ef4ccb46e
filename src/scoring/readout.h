#pragma once
// Readouts: how an item's answer-position logits become what is reported for it. The one
// place their arithmetic is written (paper §3.3 and SGLang's /v1/score).
//
//   P(yes)     score = exp(l_yes) / (exp(l_yes) + exp(l_no)) = 1 / (1 + exp(l_no - l_yes))
//              computed in double from the two F32 logits, in the form that never overflows
//              (exp of a non-positive number only). The full-vocabulary softmax is never needed.
//   labels     per label token t of a request's list (sift serve's /v1/score):
//                softmax over the labels : p_t = exp(l_t - m) / sum_u exp(l_u - m), m = max_u l_u
//                else (log-softmax)      : p_t = exp(l_t - lse),
//                                          lse = m + log sum_v exp(l_v - m) over the vocabulary v
//
// A score sift labels is a probability in [0, 1] (is_probability): every readout gives one
// from finite logits, and yes_probability gives NaN when either logit is not finite (an
// infinite logit would otherwise read as a confident 0 or 1). Anything else is the row's
// error, worded by not_a_probability_message, never a label.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sift {

// The two vocabulary rows a labeler's score reads (sift.json's "yes" and "no").
struct AnswerTokenIds {
  int32_t yes = -1;
  int32_t no = -1;
};

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

// What a scoring job reads at each item's answer position.
struct Readout {
  enum class Kind { YesProbability, LabelProbabilities } kind = Kind::YesProbability;
  std::vector<int32_t> label_ids;  // YesProbability: {yes, no}; LabelProbabilities: the labels asked for
  bool softmax = false;            // LabelProbabilities: over the labels (else log-softmax over the vocabulary)

  static Readout yes_no(AnswerTokenIds answer) { return {Kind::YesProbability, {answer.yes, answer.no}, false}; }
  // Whether it needs every vocabulary row (a log-softmax over the vocabulary).
  bool reads_vocabulary() const { return kind == Kind::LabelProbabilities && !softmax; }
};

// The vocabulary rows a forward call computes for items with these readouts: the sorted
// union of their label ids, or all rows (empty) when any of them reads the whole vocabulary.
// A logit is the same bits whichever other rows are computed beside it.
std::vector<int32_t> vocab_rows_for(std::span<const Readout* const> readouts);

// One item's readout from its logits row, whose columns are `vocab_rows` (empty: the whole
// vocabulary, column = token id), into `out`: P(yes) (one value) for YesProbability, one
// probability per label id for LabelProbabilities.
void read_item(const Readout& readout, std::span<const float> logits, std::span<const int32_t> vocab_rows,
               std::span<double> out);

}  // namespace sift
