#include "formats/score_io.h"

#include <array>

#include "core/error.h"
#include "io/json_parse.h"
#include "io/row_items.h"
#include "io/row_shape.h"

namespace sift {

using nlohmann::json;

json parse_row_object(std::string_view line) {
  json object = parse_json(line, "");
  if (!object.is_object()) fail("a row must be a JSON object, got {}", object.type_name());
  return object;
}

ScoringRow parse_scoring_row(std::string_view line) { return scoring_row_from_json(parse_row_object(line)); }

ScoringRow scoring_row_from_json(const json& object) {
  if (!object.is_object()) fail("a row must be a JSON object, got {}", object.type_name());
  ScoringRow row;
  for (auto field = object.begin(); field != object.end(); ++field)
    if (field.key() != "id" && field.key() != "query" && field.key() != "items")
      row.passthrough[field.key()] = field.value();
  if (auto id = object.find("id"); id != object.end()) row.id = *id;
  for (const char* field : {"query", "items"})
    if (!object.contains(field)) fail("missing field \"{}\": {}", field, row_to_score_fields_hint(object));
  auto query = object.find("query");
  if (!query->is_string()) fail("field \"query\" must be a string, got {}", query->type_name());
  row.query = query->get<std::string>();

  auto items = object.find("items");
  JsonRowItems read = read_json_row_items(*items, "items", true);
  row.items = std::move(read.texts);
  row.item_ids = std::move(read.ids);
  row.has_item_ids = read.has_ids;
  return row;
}

nlohmann::ordered_json artifact_provenance_json(std::string_view version, double artifact_threshold,
                                                const ScoringOptions& options, bool thresholds_probability) {
  nlohmann::ordered_json provenance;
  provenance["version"] = std::string(version);
  const bool generate = options.mode == ScoringMode::Generate;
  provenance["threshold"] =
      generate ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(options.threshold.value_or(artifact_threshold));
  if (thresholds_probability && !generate) provenance["threshold_on"] = "probability";
  return provenance;
}

nlohmann::ordered_json row_result_to_json(const ScoringRow& row, const RowResult& result, ScoringMode mode,
                                          const nlohmann::ordered_json& provenance) {
  using ordered = nlohmann::ordered_json;
  ordered out = ordered::object();
  out["id"] = row.id;
  if (row.has_item_ids) out["item_ids"] = row.item_ids;
  ordered scores = ordered::array(), labels = ordered::array();
  for (size_t i = 0; i < result.scores.size(); ++i) {
    scores.push_back(result.scores[i] ? ordered(*result.scores[i]) : ordered(nullptr));
    labels.push_back(result.labels[i] ? ordered(*result.labels[i]) : ordered(nullptr));
  }
  out["scores"] = std::move(scores);
  if (!result.probabilities.empty()) {
    ordered probabilities = ordered::array();
    for (const std::optional<double>& p : result.probabilities) probabilities.push_back(p ? ordered(*p) : ordered(nullptr));
    out["probabilities"] = std::move(probabilities);
  }
  out["labels"] = std::move(labels);
  ordered usage = {{"prefill_tokens", result.prefill_tokens}, {"requests", result.requests}};
  if (result.truncated_tokens > 0) usage["truncated_tokens"] = result.truncated_tokens;
  if (!result.windows.empty()) {  // items scored by windows (--long-items chunk)
    ordered windows = ordered::array();
    int64_t n_windows = 0;
    for (const ItemWindows& item : result.windows) {
      ordered spans = ordered::array();
      for (const auto& [begin, end] : item.spans) spans.push_back({begin, end});
      windows.push_back({{"item", item.item}, {"spans", std::move(spans)}, {"best", item.best}});
      n_windows += static_cast<int64_t>(item.spans.size());
    }
    out["windows"] = std::move(windows);
    usage["window"] = result.window_tokens;
    usage["stride"] = result.window_stride;
    usage["windows"] = n_windows;
  }
  if (mode == ScoringMode::Generate) {
    const Generation generation = result.generation.value_or(Generation{});
    usage["generated_tokens"] = generation.generated_tokens;
    out["unparsed"] = generation.unparsed;
  }
  out["usage"] = std::move(usage);
  out["artifact"] = provenance;
  return out;
}

namespace {

// Every field name a `sift score` or `sift batch` line may carry (the input's own fields
// among them), so pass-through fields never replace one, whatever the row or mode.
constexpr std::array<std::string_view, 13> kOutputFields = {"id",     "query",   "items", "item_ids", "scores",
                                                           "probabilities", "labels", "windows", "usage", "unparsed",
                                                           "artifact", "line",    "error"};

bool is_output_field(std::string_view name) {
  for (std::string_view field : kOutputFields)
    if (field == name) return true;
  return false;
}

}  // namespace

std::string passthrough_name(const ScoringRow& row, const std::string& field) {
  if (!is_output_field(field)) return field;
  const std::string renamed = "input_" + field;
  return is_output_field(renamed) || row.passthrough.contains(renamed) ? "" : renamed;
}

std::vector<std::string> shadowed_passthrough_fields(const ScoringRow& row) {
  std::vector<std::string> shadowed;
  for (auto field = row.passthrough.begin(); field != row.passthrough.end(); ++field)
    if (passthrough_name(row, field.key()).empty()) shadowed.push_back(field.key());
  return shadowed;
}

namespace {

// The row's pass-through fields appended to `out`, under passthrough_name.
void append_passthrough(const ScoringRow& row, nlohmann::ordered_json& out) {
  for (auto field = row.passthrough.begin(); field != row.passthrough.end(); ++field)
    if (const std::string name = passthrough_name(row, field.key()); !name.empty()) out[name] = field.value();
}

}  // namespace

std::string batch_output_line(int64_t line_number, const ScoringRow& row, const RowResult& result, ScoringMode mode,
                              const nlohmann::ordered_json& provenance, BatchLine kind) {
  if (!result.error.empty()) return output_line_text(row_error_to_json(line_number, result.error, &row.id));
  if (kind == BatchLine::Echo) return output_line_text(echoed_row_to_json(row, result, mode, provenance));
  // Ordered: the `sift score` line's fields in its order, the pass-through fields, "artifact".
  nlohmann::ordered_json out = row_result_to_json(row, result, mode, provenance);
  out.erase("artifact");
  append_passthrough(row, out);
  out["artifact"] = provenance;
  return output_line_text(out);
}

nlohmann::ordered_json echoed_row_to_json(const ScoringRow& row, const RowResult& result, ScoringMode mode,
                                          const nlohmann::ordered_json& provenance) {
  using ordered = nlohmann::ordered_json;
  ordered out = ordered::object();
  out["id"] = row.id;
  out["query"] = row.query;
  ordered items = ordered::array();
  for (size_t i = 0; i < row.items.size(); ++i) {
    const bool has_id = i < row.item_ids.size() && !row.item_ids[i].is_null();
    items.push_back(has_id ? ordered{{"id", ordered(row.item_ids[i])}, {"text", row.items[i]}} : ordered(row.items[i]));
  }
  out["items"] = std::move(items);
  append_passthrough(row, out);
  const ordered scored = row_result_to_json(row, result, mode, provenance);
  for (auto field = scored.begin(); field != scored.end(); ++field)
    if (field.key() != "id") out[field.key()] = field.value();
  return out;
}

json row_error_to_json(int64_t line_number, std::string_view message, const json* id) {
  json out = json::object();
  out["line"] = line_number;
  if (id && !id->is_null()) out["id"] = *id;
  out["error"] = std::string(message);
  return out;
}

}  // namespace sift
