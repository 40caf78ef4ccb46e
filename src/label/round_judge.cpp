#include "label/round_judge.h"

#include <chrono>
#include <cmath>

#include "core/error.h"

namespace sift::label {

RoundJudge::RoundJudge(const ScoringEngine& labeler) : labeler_(labeler) { options_.mode = ScoringMode::Mis; }

double RoundJudge::threshold() const { return labeler_.artifact().threshold; }

RoundJudge::Verdicts RoundJudge::judge(std::string_view profile, const std::vector<std::string>& candidates) {
  const auto start = std::chrono::steady_clock::now();
  RowResult row = labeler_.score_row(profile, candidates, options_);
  model_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  Verdicts verdicts;
  verdicts.prefill_tokens = row.prefill_tokens;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double score = row.scores.at(i).value_or(std::nan(""));
    if (!(score >= 0.0 && score <= 1.0))
      fail("candidate \"{}\" scored {}, not a probability (a broken checkpoint?)", candidates[i], score);
    verdicts.scores.push_back(score);
    verdicts.labels.push_back(row.labels.at(i).value_or(false));
  }
  return verdicts;
}

}  // namespace sift::label
