#include "scoring/modes.h"

#include "core/error.h"
#include "scoring/engine.h"
#include "scoring/scheduler.h"

namespace sift {

std::optional<ScoringMode> parse_scoring_mode(std::string_view name) {
  if (name == "mis") return ScoringMode::Mis;
  if (name == "independent") return ScoringMode::Independent;
  if (name == "prefix") return ScoringMode::Prefix;
  if (name == "generate") return ScoringMode::Generate;
  return std::nullopt;
}

std::string_view scoring_mode_name(ScoringMode mode) {
  switch (mode) {
    case ScoringMode::Mis: return "mis";
    case ScoringMode::Independent: return "independent";
    case ScoringMode::Prefix: return "prefix";
    case ScoringMode::Generate: return "generate";
  }
  return "?";
}

std::vector<ItemScores> score_token_rows(Session& session, ScoringMode mode, AnswerTokenIds answer,
                                         std::span<const TokenRow> rows, const PlanLimits& limits) {
  if (mode == ScoringMode::Generate)
    fail("mode generate produces decisions from text, not token-level scores (use generate_mode.h)");
  std::vector<ScoringJob> jobs(rows.size());
  std::vector<ScoringJob*> pointers;
  for (size_t r = 0; r < rows.size(); ++r) {
    jobs[r].mode = mode;
    jobs[r].readout = Readout::yes_no(answer);
    jobs[r].query.assign(rows[r].query.begin(), rows[r].query.end());
    jobs[r].items.assign(rows[r].items.begin(), rows[r].items.end());
    pointers.push_back(&jobs[r]);
  }
  LocalEngine engine(session);
  SchedulerSettings settings;
  settings.request_tokens = limits.request_limit();
  settings.call_tokens = limits.max_call_tokens;
  settings.max_positions = session.model().config().max_position_embeddings;
  run_jobs(engine, pointers, settings);
  session.truncate(0);
  std::vector<ItemScores> out(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    const RowResult& result = jobs[r].result;
    if (!result.error.empty()) fail("{}", result.error);
    for (const std::optional<double>& score : result.scores) out[r].scores.push_back(*score);
    out[r].prefill_tokens = result.prefill_tokens;
    out[r].requests = result.requests;
  }
  return out;
}

}  // namespace sift
