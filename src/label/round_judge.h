#pragma once
// RoundJudge: the labeler's verdicts on one round of a profile's candidates, the one place
// `sift label` runs the model.
//
// A profile's query part is prefilled once, into the judge's session, when its first round
// comes; every round of that profile then runs only its candidates against the kept keys
// (scoring/modes.h score_items_after_prefix). The scores are the same bits as scoring
// [profile; c_i] alone (candidate i sees exactly those keys at the same positions); the test
// RoundJudge.EveryRoundScoresAsScoringItAlone holds it to that.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/engine.h"

namespace sift::label {

class RoundJudge {
 public:
  // `threshold`: the labels' threshold (sift label --threshold), else the labeler's.
  explicit RoundJudge(const ScoringEngine& labeler, std::optional<double> threshold = std::nullopt);

  struct Verdicts {
    std::vector<double> scores;  // P(yes) per candidate, in order
    std::vector<bool> labels;    // score >= threshold() (ties YES)
    int64_t prefill_tokens = 0;  // the candidates, plus the profile in its first round
  };
  // Rounds of one profile come one after another, each with the same `profile` (a new
  // profile replaces the kept one). A score
  // that is not a finite probability (a broken checkpoint) is an Error naming the candidate.
  Verdicts judge(std::string_view profile, const std::vector<std::string>& candidates);

  double threshold() const;
  double model_seconds() const { return model_seconds_; }  // wall time inside the model so far

 private:
  const ScoringEngine& labeler_;
  ScoringOptions options_;
  Session session_;
  TokenIds profile_ids_;   // the profile whose query keys the session holds
  KeyRange profile_keys_;  // ... at these keys
  double model_seconds_ = 0;
};

}  // namespace sift::label
