#include "scoring/modes.h"

#include "core/error.h"
#include "scoring/readout.h"

namespace sift {
namespace {

// Runs the calls on the session (no cache kept between them) and writes P(yes) of every
// readout slot into its row; usage goes to the rows of the calls' requests.
void run_calls(Session& session, std::span<const ForwardCall> calls, AnswerTokenIds answer,
               std::vector<ItemScores>& rows) {
  const int32_t vocab_rows[2] = {answer.yes, answer.no};
  for (const ForwardCall& call : calls) {
    session.truncate(0);
    const LogitsView logits = session.forward(call.request(vocab_rows));  // (slots, 2): [yes, no]
    for (size_t k = 0; k < call.slots.size(); ++k) {
      const std::span<const float> row = logits.row(static_cast<int64_t>(k));
      rows[call.slots[k].row].scores[call.slots[k].item] = yes_probability(row[0], row[1]);
    }
    for (const PlannedRequest& request : call.requests) {
      rows[request.row].prefill_tokens += request.n_tokens;
      rows[request.row].requests += 1;
    }
  }
  session.truncate(0);
}

// Prefix caching: the query's K/V once, then each item against it in a call of its own.
void score_prefix(Session& session, AnswerTokenIds answer, const TokenRow& row, ItemScores& out) {
  const int32_t vocab_rows[2] = {answer.yes, answer.no};
  session.truncate(0);
  if (row.items.empty()) return;
  ForwardCall query;
  const KeyRange query_keys = append_run(query, row.query, 0, {});
  if (query.n_tokens() > 0) session.forward(query.request(vocab_rows));  // no logit rows: only the K/V are kept
  out.prefill_tokens += query.n_tokens();
  for (size_t i = 0; i < row.items.size(); ++i) {
    ForwardCall item{.key_offset = session.n_cached()};
    append_items(item, query_keys, row.items.subspan(i, 1), 0, static_cast<int32_t>(i));
    const std::span<const float> logits = session.forward(item.request(vocab_rows)).row(0);
    out.scores[i] = yes_probability(logits[0], logits[1]);
    session.truncate(query_keys.end);
    out.prefill_tokens += item.n_tokens();
    out.requests += 1;
  }
  session.truncate(0);
}

}  // namespace

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
  std::vector<ItemScores> out(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) out[r].scores.resize(rows[r].items.size());
  switch (mode) {
    case ScoringMode::Mis:
      run_calls(session, plan_calls(rows, RequestShape::SharedQuery, limits), answer, out);
      return out;
    case ScoringMode::Independent:
      run_calls(session, plan_calls(rows, RequestShape::QueryPerItem, limits), answer, out);
      return out;
    case ScoringMode::Prefix:
      for (size_t r = 0; r < rows.size(); ++r) score_prefix(session, answer, rows[r], out[r]);
      return out;
    case ScoringMode::Generate: break;
  }
  fail("mode generate produces decisions from text, not token-level scores (use generate_mode.h)");
}

}  // namespace sift
