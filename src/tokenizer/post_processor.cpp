#include "tokenizer/post_processor.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tokenizer/token_ids.h"
#include "tokenizer/sequence_nesting.h"

namespace sift {
namespace {

// TemplateProcessing "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}, ...];
// each special token expands to the "ids" listed for it under "special_tokens".
SpecialIds template_ids(const nlohmann::json& json, const std::string& where) {
  SpecialIds ids;
  bool seen_sequence = false;
  const auto& single = json.at("single");
  for (size_t i = 0; i < single.size(); ++i) {
    const auto& piece = single[i];
    if (piece.contains("Sequence")) {
      if (seen_sequence) fail("{}: the single template holds more than one sequence", where);
      seen_sequence = true;
      continue;
    }
    if (!piece.contains("SpecialToken")) fail("{}: single[{}] is neither SpecialToken nor Sequence", where, i);
    const std::string name = piece["SpecialToken"].at("id").get<std::string>();
    const auto& special_tokens = json.at("special_tokens");
    if (!special_tokens.contains(name)) fail("{}: special token \"{}\" is not in special_tokens", where, name);
    auto& target = seen_sequence ? ids.suffix : ids.prefix;
    const std::vector<int32_t> ids_of_name =
        token_ids_from_json(special_tokens[name].at("ids"), fmt::format("{}: special_tokens[\"{}\"].ids", where, name));
    target.insert(target.end(), ids_of_name.begin(), ids_of_name.end());
  }
  if (!seen_sequence) fail("{}: the single template has no $A sequence", where);
  return ids;
}

}  // namespace

SpecialIds make_post_processor(const nlohmann::json& json, const std::string& where, int sequence_depth) {
  if (json.is_null()) return {};
  if (!json.is_object() || !json.contains("type") || !json["type"].is_string()) {
    fail("{}: expected an object with a \"type\", got {}", where, json.dump());
  }
  const std::string type = json["type"].get<std::string>();
  if (type == "TemplateProcessing") return template_ids(json, where);
  if (type == "ByteLevel") return {};
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    return {{token_id_from_json(json.at("cls").at(1), where + ": cls[1]")},
            {token_id_from_json(json.at("sep").at(1), where + ": sep[1]")}};
  }
  if (type == "Sequence") {
    check_sequence_nesting(sequence_depth, where);
    SpecialIds ids;
    const auto& list = json.at("processors");
    for (size_t i = 0; i < list.size(); ++i) {
      // HF applies the processors in turn; each one wraps what the previous one produced.
      SpecialIds step = make_post_processor(list[i], fmt::format("{}.processors[{}]", where, i), sequence_depth + 1);
      step.prefix.insert(step.prefix.end(), ids.prefix.begin(), ids.prefix.end());
      ids.suffix.insert(ids.suffix.end(), step.suffix.begin(), step.suffix.end());
      ids.prefix = std::move(step.prefix);
    }
    return ids;
  }
  fail("{}: unsupported post-processor type \"{}\"", where, type);
}

}  // namespace sift
