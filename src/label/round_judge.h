#pragma once
// RoundJudge: the labeler's verdicts on rounds of profiles' candidates, the one place `sift
// label` runs the model, as a client of the public API (sift/labeler.h): a Labeler loaded here
// or scoring on engines elsewhere (sift/engines.h), as `sift score` and `sift batch` load it.
//
// The rounds of several profiles are scored together, one row per profile (Labeler::score_rows:
// packed into forward calls here; spread over the engines, two calls in flight on each, with
// --engine). A profile's later rounds find its query part in the labeler's query-KV cache
// (LoadOptions::query_cache_bytes) and run only their candidates. Either way each score is the
// bits of scoring [profile; c_i] alone (the scoring contract); the test
// RoundJudge.EveryRoundScoresAsScoringItAlone holds it to that. The scheduler labels each
// score (the threshold, or sift.json's calibrated probability with threshold_on probability)
// and refuses a score that is not a probability (a broken checkpoint): the row's error.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sift/labeler.h"

namespace sift::label {

class RoundJudge {
 public:
  // `threshold`: the labels' threshold (sift label --threshold), else the labeler's; a value
  // outside [0, 1] is an OptionError here.
  explicit RoundJudge(Labeler labeler, std::optional<double> threshold = std::nullopt);

  struct Round {
    std::string_view profile;
    std::vector<std::string> candidates;
  };
  struct Verdicts {
    std::vector<double> scores;  // P(yes) per candidate, in order
    std::vector<bool> labels;    // the scheduler's label of each (threshold() on the score or the
                                 // calibrated probability)
    int64_t prefill_tokens = 0;  // tokens run: the candidates, plus the profile unless it was cached
    std::string error;           // the row could not be scored (too long, invalid UTF-8, ...): nothing else set
  };
  // One round of each profile, scored together: verdicts[i] is rounds[i]'s.
  std::vector<Verdicts> judge(std::span<const Round> rounds);
  // One round of one profile; its error is an Error.
  Verdicts judge(std::string_view profile, const std::vector<std::string>& candidates);

  double threshold() const { return threshold_; }
  double model_seconds() const { return model_seconds_; }  // wall time inside the model so far

 private:
  Labeler labeler_;
  ScoringOptions options_;
  double threshold_;
  double model_seconds_ = 0;
};

}  // namespace sift::label
