#pragma once
// JSON lines of `sift score`.
//
// Input, one row per line:
//   {"id": ..., "query": "...", "items": ["...", {"id": ..., "text": "..."}, ...]}
// "id" is any JSON value (optional: null when absent); an item is a string or an object
// with a string "text" and an optional "id". Other fields ("labels", "truth", ...) are
// ignored.
//
// Output, one line per input line, in input order:
//   {"id": ..., "scores": [...], "labels": [...], "usage": {"prefill_tokens": n, "requests": k}}
// plus "item_ids": [...] (null for items given without one) when any item had an id, and,
// in mode generate, "unparsed": [item indices] and usage.generated_tokens. A line that
// cannot be scored becomes {"line": n, "error": "..."} (n counts from 1; "id" is added when
// the row's id was read).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/engine.h"

namespace sift {

struct ScoringRow {
  nlohmann::json id;                    // null when absent
  std::string query;
  std::vector<std::string> items;
  std::vector<nlohmann::json> item_ids;  // one per item; null when the item had none
  bool has_item_ids = false;
};

// Throws Error saying what is wrong with the line.
ScoringRow parse_scoring_row(std::string_view line);

nlohmann::json row_result_to_json(const ScoringRow& row, const RowResult& result, ScoringMode mode);
nlohmann::json row_error_to_json(int64_t line_number, std::string_view message,
                                 const nlohmann::json* id = nullptr);

}  // namespace sift
