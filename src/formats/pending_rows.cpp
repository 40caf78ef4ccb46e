#include "formats/pending_rows.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/error.h"
#include "io/json_parse.h"
#include "scoring/plan_cost.h"

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

// What the row's plan runs in its mode (scoring/plan_cost.h), at least 1.
int64_t plan_tokens(const Labeler& labeler, const TokenizedRow& row, const ScoringOptions& options) {
  std::vector<int64_t> lengths;
  lengths.reserve(row.items.size());
  for (const std::vector<int32_t>& item : row.items) lengths.push_back(static_cast<int64_t>(item.size()));
  const PlanCost plan = plan_cost(options.mode, static_cast<int64_t>(row.query.size()), lengths,
                                  labeler.resolve(options).request_tokens);
  return std::max<int64_t>(1, plan.tokens());
}

}  // namespace

PendingRow read_pending_row(const Labeler& labeler, std::string& line, int64_t line_number,
                            const ScoringOptions& options) {
  PendingRow pending;
  pending.line_number = line_number;
  if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF input
  try {
    if (line.find_first_not_of(" \t") == std::string::npos) fail("empty line (expected a JSON object)");
    pending.row = parse_scoring_row(line);
    if (options.mode != ScoringMode::Generate) {
      pending.tokens = labeler.tokenize(pending.row.query, pending.row.items, options);
      if (!pending.tokens.error.empty()) fail("{}", pending.tokens.error);
      pending.cost = plan_tokens(labeler, pending.tokens, options);
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

}  // namespace sift
