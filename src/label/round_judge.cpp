#include "label/round_judge.h"

#include <chrono>

#include "core/error.h"

namespace sift::label {

namespace {

ScoringOptions judge_options(std::optional<double> threshold) {
  ScoringOptions options;
  options.mode = ScoringMode::Mis;
  options.threshold = threshold;
  return options;
}

}  // namespace

RoundJudge::RoundJudge(Labeler labeler, std::optional<double> threshold)
    : labeler_(std::move(labeler)),
      options_(judge_options(threshold)),
      threshold_(labeler_.resolve(options_).threshold) {}  // a threshold outside [0, 1] is an OptionError here

std::vector<RoundJudge::Verdicts> RoundJudge::judge(std::span<const Round> rounds) {
  std::vector<Verdicts> verdicts(rounds.size());
  if (rounds.empty()) return verdicts;
  std::vector<Row> rows;
  rows.reserve(rounds.size());
  for (const Round& round : rounds) rows.push_back({std::string(round.profile), round.candidates});
  const auto start = std::chrono::steady_clock::now();
  const std::vector<RowResult> results = labeler_.score_rows(rows, options_);
  model_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (size_t r = 0; r < rounds.size(); ++r) {
    const RowResult& result = results[r];
    Verdicts& out = verdicts[r];
    if (!result.error.empty()) {
      out.error = result.error;
      continue;
    }
    out.prefill_tokens = result.prefill_tokens - result.cached_tokens;
    for (size_t i = 0; i < result.scores.size(); ++i) {
      out.scores.push_back(*result.scores[i]);
      out.labels.push_back(*result.labels[i]);
    }
  }
  return verdicts;
}

RoundJudge::Verdicts RoundJudge::judge(std::string_view profile, const std::vector<std::string>& candidates) {
  const Round round{profile, candidates};
  Verdicts verdicts = std::move(judge({&round, 1})[0]);
  if (!verdicts.error.empty()) fail("{}", verdicts.error);
  return verdicts;
}

}  // namespace sift::label
