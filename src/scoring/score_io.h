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
//   {"id": ..., "scores": [...], "labels": [...], "usage": {"prefill_tokens": n, "requests": k},
//    "artifact": {"version": "...", "threshold": t}}
// plus "item_ids": [...] (null for items given without one) when any item had an id, and,
// in mode generate, "unparsed": [item indices] and usage.generated_tokens. "artifact" says
// what made the labels: sift.json's version and the threshold applied (--threshold when
// given; null in mode generate, whose decisions are hard). A line that cannot be scored
// becomes {"line": n, "error": "..."} (n counts from 1; "id" is added when the row's id was
// read).
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

// The line as a JSON object (parse_json: bounded nesting, errors in words); Error otherwise.
nlohmann::json parse_row_object(std::string_view line);
// The scoring fields of a row object; Error naming the field that is wrong.
ScoringRow scoring_row_from_json(const nlohmann::json& object);
// Both: throws Error saying what is wrong with the line.
ScoringRow parse_scoring_row(std::string_view line);

// The "artifact" field of every scored line (sift score, sift batch, sift serve write it
// through here): {"version": artifact.version, "threshold": the one applied, or null in mode
// generate}.
nlohmann::ordered_json artifact_provenance_json(const ScoringArtifact& artifact, const ScoringOptions& options);

// A scored line: id, item_ids, scores, labels, unparsed (generate), usage, then `provenance`
// (artifact_provenance_json) as "artifact".
nlohmann::ordered_json row_result_to_json(const ScoringRow& row, const RowResult& result, ScoringMode mode,
                                          const nlohmann::ordered_json& provenance);
nlohmann::json row_error_to_json(int64_t line_number, std::string_view message,
                                 const nlohmann::json* id = nullptr);

}  // namespace sift
