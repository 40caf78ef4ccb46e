#pragma once
// RoundJudge: the labeler's verdicts on one round of a profile's candidates, the one place
// `sift label` runs the model, as a feeder of the scheduler (scoring/scheduler.h).
//
// A profile's query part is prefilled once, when its first round comes; the judge's engine
// keeps its keys, and every later round of that profile runs only its candidates against them
// (the scheduler's kept keys). The scores are the same bits as scoring [profile; c_i] alone
// (candidate i sees exactly those keys at the same positions); the test
// RoundJudge.EveryRoundScoresAsScoringItAlone holds it to that.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/engine.h"
#include "scoring/loaded_labeler.h"

namespace sift::label {

class RoundJudge {
 public:
  // `threshold`: the labels' threshold (sift label --threshold), else the labeler's. `engine`:
  // where the rounds run (sift label --engine); null, a LocalEngine on the labeler's model.
  explicit RoundJudge(const LoadedLabeler& labeler, std::optional<double> threshold = std::nullopt,
                      std::unique_ptr<Engine> engine = nullptr);

  struct Verdicts {
    std::vector<double> scores;  // P(yes) per candidate, in order
    std::vector<bool> labels;    // value >= threshold() (ties YES), the value the score or, with sift.json's
                                 // threshold_on probability, the calibrated probability (not stored)
    int64_t prefill_tokens = 0;  // tokens run: the candidates, plus the profile in its first round
  };
  // Rounds of one profile come one after another, each with the same `profile` (a new
  // profile replaces the kept one). A score that is not a finite probability (a broken
  // checkpoint) is an Error naming the candidate.
  Verdicts judge(std::string_view profile, const std::vector<std::string>& candidates);

  double threshold() const;
  double model_seconds() const { return model_seconds_; }  // wall time inside the model so far

 private:
  const LoadedLabeler& labeler_;
  ScoringOptions options_;
  SchedulerSettings settings_;
  std::unique_ptr<Engine> engine_;
  double model_seconds_ = 0;
};

}  // namespace sift::label
