#include "label/round_judge.h"

#include <chrono>

#include "core/error.h"
#include "scoring/readout.h"

namespace sift::label {

namespace {

ScoringOptions judge_options(std::optional<double> threshold) {
  ScoringOptions options;
  options.mode = ScoringMode::Mis;
  options.threshold = threshold;
  return options;
}

}  // namespace

RoundJudge::RoundJudge(const LoadedLabeler& labeler, std::optional<double> threshold, std::unique_ptr<Engine> engine)
    : labeler_(labeler),
      options_(judge_options(threshold)),
      settings_(labeler.scheduler_settings(options_)),  // a threshold outside [0, 1] is an OptionError here
      engine_(engine ? std::move(engine) : std::make_unique<LocalEngine>(labeler.model())) {
  settings_.reuse_queries = true;  // the next round of the profile: its keys, held by the engine
}

double RoundJudge::threshold() const { return labeler_.threshold(options_); }

RoundJudge::Verdicts RoundJudge::judge(std::string_view profile, const std::vector<std::string>& candidates) {
  const auto start = std::chrono::steady_clock::now();
  TokenizedRow row = labeler_.tokenize(profile, candidates);
  if (!row.error.empty()) fail("{}", row.error);
  ScoringJob job;
  job.readout = Readout::yes_no(labeler_.answer_ids());
  job.label_by(labeler_.artifact(), threshold());
  job.query = std::move(row.query);
  job.items = std::move(row.items);
  ScoringJob* const jobs[1] = {&job};
  run_jobs(*engine_, jobs, settings_);
  model_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const RowResult& result = job.result;
  Verdicts verdicts;
  verdicts.prefill_tokens = result.prefill_tokens - result.cached_tokens;
  for (size_t i = 0; i < result.scores.size(); ++i) {
    const double score = *result.scores[i];
    if (!is_probability(score)) fail("{}", not_a_probability_message(fmt::format("candidate \"{}\"", candidates[i]), score));
  }
  if (!result.error.empty()) fail("{}", result.error);  // the row does not fit
  for (size_t i = 0; i < result.scores.size(); ++i) {  // labeled by the scheduler, as every path is
    verdicts.scores.push_back(*result.scores[i]);
    verdicts.labels.push_back(*result.labels[i]);
  }
  return verdicts;
}

}  // namespace sift::label
