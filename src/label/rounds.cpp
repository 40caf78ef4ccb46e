#include "label/rounds.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace sift::label {

void RoundOptions::validate() const {
  constexpr int64_t kMaxK = 10'000, kMaxRounds = 1'000;  // keeps k * max_rounds far from overflow
  if (k < 1 || k > kMaxK) fail_option("--k must be in [1, {}], got {}", kMaxK, k);
  if (max_rounds < 1 || max_rounds > kMaxRounds) fail_option("--max-rounds must be in [1, {}], got {}", kMaxRounds, max_rounds);
  if (!std::isfinite(stop_below) || stop_below < 0 || stop_below > 1)
    fail_option("--stop-below must be in [0, 1], got {}", stop_below);
}

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::below_threshold: return "below_threshold";
    case StopReason::max_rounds: return "max_rounds";
    case StopReason::exhausted: return "exhausted";
  }
  return "?";
}

bool round_is_below(int64_t accepted, int64_t judged, double stop_below) {
  return judged > 0 && double(accepted) < stop_below * double(judged);
}

RoundsOutcome judge_in_rounds(RoundJudge& judge, std::string_view profile, const std::vector<Candidate>& ranked,
                              const RoundOptions& options) {
  RoundsOutcome outcome;
  const size_t n = std::min(ranked.size(), size_t(options.max_candidates()));
  const size_t k = size_t(options.k);
  for (size_t begin = 0; begin < n; begin += k) {
    const size_t end = std::min(n, begin + k);
    std::vector<std::string> names;
    for (size_t i = begin; i < end; ++i) names.push_back(ranked[i].name);
    const RoundJudge::Verdicts verdicts = judge.judge(profile, names);
    outcome.rounds += 1;
    outcome.prefill_tokens += verdicts.prefill_tokens;
    int64_t accepted = 0;
    for (size_t i = begin; i < end; ++i) {
      const bool label = verdicts.labels[i - begin];
      accepted += label;
      outcome.judgments.push_back(
          {ranked[i].id, ranked[i].name, verdicts.scores[i - begin], label, outcome.rounds, int64_t(i) + 1});
    }
    outcome.accepted += accepted;
    if (round_is_below(accepted, int64_t(end - begin), options.stop_below)) {
      outcome.stop = StopReason::below_threshold;
      return outcome;
    }
  }
  // Ran out of candidates before the last allowed round, or used every round.
  outcome.stop = ranked.size() < size_t(options.max_candidates()) ? StopReason::exhausted : StopReason::max_rounds;
  return outcome;
}

}  // namespace sift::label
