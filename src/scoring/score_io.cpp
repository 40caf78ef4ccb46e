#include "scoring/score_io.h"

#include "core/error.h"
#include "io/json_parse.h"

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
  if (auto id = object.find("id"); id != object.end()) row.id = *id;
  auto query = object.find("query");
  if (query == object.end()) fail("missing field \"query\"");
  if (!query->is_string()) fail("field \"query\" must be a string, got {}", query->type_name());
  row.query = query->get<std::string>();

  auto items = object.find("items");
  if (items == object.end()) fail("missing field \"items\"");
  if (!items->is_array()) fail("field \"items\" must be a list, got {}", items->type_name());
  row.items.reserve(items->size());
  row.item_ids.reserve(items->size());
  for (size_t i = 0; i < items->size(); ++i) {
    const json& item = (*items)[i];
    if (item.is_string()) {
      row.items.push_back(item.get<std::string>());
      row.item_ids.emplace_back(nullptr);
    } else if (item.is_object()) {
      auto text = item.find("text");
      if (text == item.end() || !text->is_string())
        fail("items[{}] must have a string field \"text\"", i);
      row.items.push_back(text->get<std::string>());
      auto item_id = item.find("id");
      row.item_ids.push_back(item_id == item.end() ? json(nullptr) : *item_id);
      row.has_item_ids = row.has_item_ids || item_id != item.end();
    } else {
      fail("items[{}] must be a string or an object with \"text\", got {}", i, item.type_name());
    }
  }
  return row;
}

nlohmann::ordered_json artifact_provenance_json(const ScoringArtifact& artifact, const ScoringOptions& options) {
  nlohmann::ordered_json provenance;
  provenance["version"] = artifact.version;
  provenance["threshold"] = options.mode == ScoringMode::Generate
                                ? nlohmann::ordered_json(nullptr)
                                : nlohmann::ordered_json(options.threshold.value_or(artifact.threshold));
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
  out["labels"] = std::move(labels);
  ordered usage = {{"prefill_tokens", result.prefill_tokens}, {"requests", result.requests}};
  if (mode == ScoringMode::Generate) {
    usage["generated_tokens"] = result.generated_tokens;
    out["unparsed"] = result.unparsed;
  }
  out["usage"] = std::move(usage);
  out["artifact"] = provenance;
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
