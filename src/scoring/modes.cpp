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
  session.truncate(0);
  if (row.items.empty()) return;
  const KeyRange query_keys = prefill_prefix(session, row.query);
  out.prefill_tokens += query_keys.size();
  const ItemScores items = score_items_after_prefix(session, answer, query_keys, row.items, 1);
  out.scores = items.scores;
  out.prefill_tokens += items.prefill_tokens;
  out.requests += items.requests;
  session.truncate(0);
}

}  // namespace

KeyRange prefill_prefix(Session& session, std::span<const int32_t> query) {
  ForwardCall call{.key_offset = session.n_cached()};
  const KeyRange keys = append_run(call, query, 0, {});
  if (call.n_tokens() > 0) session.forward(call.request({}));  // no logit rows: only the K/V are kept
  return keys;
}

ItemScores score_items_after_prefix(Session& session, AnswerTokenIds answer, KeyRange query_keys,
                                      std::span<const TokenIds> items, int64_t call_tokens) {
  const int32_t vocab_rows[2] = {answer.yes, answer.no};
  const int64_t kept = session.n_cached();
  ItemScores out;
  out.scores.resize(items.size());
  for (size_t first = 0; first < items.size();) {
    // The items of this call: at least one, then as many as fit call_tokens.
    size_t end = first + 1;
    int64_t tokens = static_cast<int64_t>(items[first].size());
    while (end < items.size() && tokens + static_cast<int64_t>(items[end].size()) <= call_tokens)
      tokens += static_cast<int64_t>(items[end++].size());
    ForwardCall call{.key_offset = kept};
    append_items(call, query_keys, items.subspan(first, end - first), 0, static_cast<int32_t>(first));
    const LogitsView logits = session.forward(call.request(vocab_rows));  // (items, 2): [yes, no]
    for (size_t k = 0; k < call.slots.size(); ++k) {
      const std::span<const float> row = logits.row(static_cast<int64_t>(k));
      out.scores[call.slots[k].item] = yes_probability(row[0], row[1]);
    }
    session.truncate(kept);  // drop the items' keys, keep the query's
    out.prefill_tokens += call.n_tokens();
    out.requests += 1;
    first = end;
  }
  return out;
}

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
