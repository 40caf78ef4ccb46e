#pragma once
// JSON lines of `sift score`.
//
// Input, one row per line:
//   {"id": ..., "query": "...", "items": ["...", {"id": ..., "text": "..."}, ...]}
// "id" is any JSON value (optional: null when absent); an item is a string or an object
// with a string "text" and an optional "id". Other fields ("labels", "truth", "member_id",
// ...) are kept as `passthrough`: `sift score` ignores them, `sift batch` copies them out.
//
// Output, one line per input line, in input order:
//   {"id": ..., "scores": [...], "labels": [...], "usage": {"prefill_tokens": n, "requests": k},
//    "artifact": {"version": "...", "threshold": t}}
// plus "probabilities": [...] after "scores" when the labeler has a calibration map (sift.json's
// calibration_map applied to each score; the scores stay the raw P(yes), the same bits),
// plus "item_ids": [...] (null for items given without one) when any item had an id, and,
// in mode generate, "unparsed": [item indices] and usage.generated_tokens; usage.truncated_tokens
// when --truncate cut any of the row's prompt tokens; "windows": [{"item", "spans": [[begin, end]
// in characters of the item's text, one per window], "best": the window whose score is the
// item's}] and usage.window, usage.stride, usage.windows when --long-items chunk scored any
// of its items by windows (scoring/long_items.h). "artifact" says
// what made the labels: sift.json's version and the threshold applied (--threshold when
// given; null in mode generate, whose decisions are hard). A line that cannot be scored
// becomes {"line": n, "error": "..."} (n counts from 1; "id" is added when the row's id was
// read).
//
// `sift batch` (and the Python package, which must write the same bytes) writes one line per
// input line with batch_output_line: the `sift score` line's fields, then the row's
// pass-through fields (one named like a field of sift's line as "input_<name>": the input's
// "labels" as "input_labels"), then "artifact":
//   {"id": ..., "item_ids"?, "scores": [...], "labels": [...], "usage": {...},
//    "member_id": ..., <other input fields>, "artifact": {"version": "...", "threshold": t}}
// or, with --echo, `sift score --echo`'s line (the row as read, query and items included,
// then its scores). A bad row is the error line {"line": n, "id"?: ..., "error": "..."} as in
// `sift score`.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sift/labeler.h"

namespace sift {

struct ScoringRow {
  nlohmann::json id;                    // null when absent
  std::string query;
  std::vector<std::string> items;
  std::vector<nlohmann::json> item_ids;  // one per item; null when the item had none
  bool has_item_ids = false;
  nlohmann::json passthrough = nlohmann::json::object();  // every other field of the line, as read
};

// The line as a JSON object (parse_json: bounded nesting, errors in words); Error otherwise.
nlohmann::json parse_row_object(std::string_view line);
// The scoring fields of a row object; Error naming the field that is wrong.
ScoringRow scoring_row_from_json(const nlohmann::json& object);
// Both: throws Error saying what is wrong with the line.
ScoringRow parse_scoring_row(std::string_view line);

// The "artifact" field of every scored line (sift score, sift batch, sift serve write it
// through here): {"version": sift.json's version, "threshold": the one applied (the option,
// else sift.json's), or null in mode generate}, and "threshold_on": "probability" when the
// threshold applies to the calibrated probability (sift.json's threshold_on; not in mode
// generate, whose decisions are hard).
nlohmann::ordered_json artifact_provenance_json(std::string_view version, double artifact_threshold,
                                                const ScoringOptions& options, bool thresholds_probability = false);
inline nlohmann::ordered_json artifact_provenance_json(const Labeler& labeler, const ScoringOptions& options) {
  return artifact_provenance_json(labeler.version(), labeler.threshold(), options, labeler.thresholds_probability());
}

// A scored line: id, item_ids, scores, probabilities (when the result has them), labels, unparsed (generate), usage, then `provenance`
// (artifact_provenance_json) as "artifact".
nlohmann::ordered_json row_result_to_json(const ScoringRow& row, const RowResult& result, ScoringMode mode,
                                          const nlohmann::ordered_json& provenance);
nlohmann::json row_error_to_json(int64_t line_number, std::string_view message,
                                 const nlohmann::json* id = nullptr);

// An output JSON value as one line of text (no newline): compact, UTF-8 as it is (invalid
// bytes, which parsed input cannot hold, would become U+FFFD).
template <typename Json>
std::string output_line_text(const Json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// `sift score --echo`'s line: the row as it was read, then what scoring added, so the line
// is a row again (for review, and as labeled rows for eval, calibrate and train, the
// labeler's labels being its "labels"):
//   {"id", "query", "items": [str | {"id", "text"}], <pass-through fields>, "item_ids"?,
//    "scores", "labels", "unparsed"?, "usage", "artifact"}
nlohmann::ordered_json echoed_row_to_json(const ScoringRow& row, const RowResult& result, ScoringMode mode,
                                          const nlohmann::ordered_json& provenance);

// What a `sift batch` line holds beside the scores: the row's pass-through fields, or (--echo)
// the whole row as read, as `sift score --echo` writes it.
enum class BatchLine { PassThrough, Echo };

// The `sift batch` line (no newline) of input line `line_number` (from 1): result.error set
// gives the error line, else the scored line with pass-through fields and `provenance`
// (artifact_provenance_json) last, or with BatchLine::Echo echoed_row_to_json's line.
std::string batch_output_line(int64_t line_number, const ScoringRow& row, const RowResult& result, ScoringMode mode,
                              const nlohmann::ordered_json& provenance, BatchLine kind = BatchLine::PassThrough);

// The name a pass-through field has in an output line: its own, or "input_<name>" when sift's
// line has a field of that name (the input's "labels" become "input_labels", beside the
// labeler's "labels"); "" when that name is taken as well, and the field is left out.
std::string passthrough_name(const ScoringRow& row, const std::string& field);
// The row's pass-through fields that have no name in an output line (passthrough_name "").
std::vector<std::string> shadowed_passthrough_fields(const ScoringRow& row);

}  // namespace sift
