#include "workflows/pending_rows.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/json_parse.h"
#include "scoring/plan.h"

namespace sift {
namespace {

// The "id" of a line that is a JSON object with one, else null (also for a line nested too
// deep to parse: its id is not echoed).
nlohmann::json echoed_id(const std::string& line) {
  try {
    const nlohmann::json object = parse_json(line, "");
    return object.is_object() ? object.value("id", nlohmann::json()) : nlohmann::json();
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

PendingRow read_pending_row(const ScoringEngine& engine, std::string& line, int64_t line_number,
                            const ScoringOptions& options) {
  PendingRow pending;
  pending.line_number = line_number;
  if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF input
  try {
    if (line.find_first_not_of(" \t") == std::string::npos) fail("empty line (expected a JSON object)");
    pending.row = parse_scoring_row(line);
    if (options.mode != ScoringMode::Generate) {
      pending.tokens = engine.tokenize(pending.row.query, pending.row.items, options);
      if (!pending.tokens.error.empty()) fail("{}", pending.tokens.error);
      pending.cost = prompt_tokens(pending.tokens.tokens());
    }
  } catch (const std::exception& e) {  // whatever went wrong, it is this row's error
    pending.error = e.what();
    pending.tokens = TokenizedRow{};
    pending.row = ScoringRow{};
    pending.row.id = echoed_id(line);  // echoed when the line is an object with an id, even if malformed
  }
  return pending;
}

PendingRow pending_error_row(int64_t line_number, std::string error) {
  PendingRow pending;
  pending.line_number = line_number;
  pending.error = std::move(error);
  return pending;
}

std::vector<RowResult> score_pending_rows(const ScoringEngine& engine, Session& session, std::vector<PendingRow>& rows,
                                          const ScoringOptions& options) {
  std::vector<RowResult> results(rows.size());
  if (options.mode == ScoringMode::Generate) {
    std::vector<TextRow> text_rows;
    std::vector<size_t> scored;  // the rows read without error
    for (size_t r = 0; r < rows.size(); ++r)
      if (rows[r].error.empty()) {
        text_rows.push_back({rows[r].row.query, rows[r].row.items});
        scored.push_back(r);
      }
    std::vector<RowResult> generated = engine.score_rows(session, text_rows, options);
    for (size_t k = 0; k < scored.size(); ++k) results[scored[k]] = std::move(generated[k]);
  } else {
    std::vector<TokenizedRow> token_rows;
    for (PendingRow& p : rows) {
      token_rows.push_back(std::move(p.tokens));
      if (!p.error.empty()) token_rows.back().error = p.error;  // left out of the forward calls
    }
    results = engine.score_tokenized(session, token_rows, options);
  }
  for (size_t r = 0; r < rows.size(); ++r)
    if (!rows[r].error.empty()) {
      results[r] = RowResult{};
      results[r].error = rows[r].error;
    }
  return results;
}

}  // namespace sift
