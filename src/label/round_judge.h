#pragma once
// RoundJudge: the labeler's verdicts on one round of a profile's candidates, the one place
// `sift label` runs the model.
//
// Today a round is one ScoringEngine::score_row call in MIS mode: [profile; c_1..c_K] packed into
// one request, so every round prefills the profile again.
//
// KV-reuse seam: when the engine can keep a query's KV (a session per query), judge() keeps
// the session of the current profile from its first round and runs the later rounds'
// candidates against it. The scores stay the same bits (in both, candidate i sees exactly
// the keys of [profile; c_i] at the same positions), so only this class changes; the test
// RoundJudge.EveryRoundScoresAsScoringItAlone holds it to that.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/engine.h"

namespace sift::label {

class RoundJudge {
 public:
  explicit RoundJudge(const ScoringEngine& labeler);

  struct Verdicts {
    std::vector<double> scores;  // P(yes) per candidate, in order
    std::vector<bool> labels;    // score >= the labeler's threshold (ties YES)
    int64_t prefill_tokens = 0;
  };
  // Rounds of one profile come one after another, each with the same `profile`. A score
  // that is not a finite probability (a broken checkpoint) is an Error naming the candidate.
  Verdicts judge(std::string_view profile, const std::vector<std::string>& candidates);

  double threshold() const;
  double model_seconds() const { return model_seconds_; }  // wall time inside the model so far

 private:
  const ScoringEngine& labeler_;
  ScoringOptions options_;
  double model_seconds_ = 0;
};

}  // namespace sift::label
