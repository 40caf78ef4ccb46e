#include "label/round_judge.h"

#include <chrono>

#include "core/error.h"
#include "scoring/readout.h"

namespace sift::label {

RoundJudge::RoundJudge(const ScoringEngine& labeler, std::optional<double> threshold)
    : labeler_(labeler), session_(labeler.model()) {
  options_.mode = ScoringMode::Mis;
  options_.threshold = threshold;
  labeler_.limits(options_);  // a threshold outside [0, 1] is an OptionError here
}

double RoundJudge::threshold() const { return labeler_.threshold(options_); }

RoundJudge::Verdicts RoundJudge::judge(std::string_view profile, const std::vector<std::string>& candidates) {
  const auto start = std::chrono::steady_clock::now();
  const TokenizedRow row = labeler_.tokenize(profile, candidates);
  if (!row.error.empty()) fail("{}", row.error);
  const PlanLimits limits = labeler_.limits(options_);
  check_row_fits(labeler_.model().config(), row.tokens(), limits);
  int64_t prefill_tokens = 0;
  if (row.query != profile_ids_ || session_.n_cached() == 0) {  // a new profile: its query keys once
    session_.truncate(0);
    profile_keys_ = prefill_prefix(session_, row.query);
    profile_ids_ = row.query;
    prefill_tokens += profile_keys_.size();
  }
  const ItemScores scored = score_items_after_prefix(session_, labeler_.answer_ids(), profile_keys_, row.items,
                                                       limits.max_call_tokens - profile_keys_.size());
  model_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  Verdicts verdicts;
  verdicts.prefill_tokens = prefill_tokens + scored.prefill_tokens;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double score = scored.scores.at(i);
    if (!is_probability(score)) fail("{}", not_a_probability_message(fmt::format("candidate \"{}\"", candidates[i]), score));
    verdicts.scores.push_back(score);
    verdicts.labels.push_back(label_of(score, threshold()));
  }
  return verdicts;
}

}  // namespace sift::label
