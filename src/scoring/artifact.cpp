#include "scoring/artifact.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/json_parse.h"
#include "scoring/readout.h"

namespace sift {
namespace {

using nlohmann::json;

constexpr std::string_view kDefaultGenerateItemTemplate = "{index}. {item}\n";
constexpr std::string_view kDefaultGenerateAnswerTemplate =
    "\nFor each numbered candidate, answer on its own line as \"<number>: {yes}\" or "
    "\"<number>: {no}\".\n";

size_t count_occurrences(std::string_view text, std::string_view needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + needle.size()))
    ++count;
  return count;
}

std::string required_string(const json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end()) fail("{}: missing required field \"{}\"", where, key);
  if (!it->is_string()) fail("{}: field \"{}\" must be a string, got {}", where, key, it->dump());
  return it->get<std::string>();
}

std::string optional_string(const json& object, const char* key, std::string_view fallback,
                            const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string(fallback);
  if (!it->is_string()) fail("{}: field \"{}\" must be a string, got {}", where, key, it->dump());
  return it->get<std::string>();
}

void require_placeholder_once(const std::string& text, std::string_view placeholder, const char* field,
                              const std::string& where) {
  size_t n = count_occurrences(text, placeholder);
  if (n != 1)
    fail("{}: field \"{}\" must contain {} exactly once, found it {} times", where, field, placeholder, n);
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TemplateParts split_template(std::string_view text, std::string_view placeholder) {
  size_t at = text.find(placeholder);
  if (at == std::string_view::npos) fail("template has no {}: \"{}\"", placeholder, text);
  return {std::string(text.substr(0, at)), std::string(text.substr(at + placeholder.size()))};
}

ScoringArtifact parse_scoring_artifact(const json& object, const std::string& where) {
  if (!object.is_object()) fail("{}: must be a JSON object", where);
  std::string format = required_string(object, "format", where);
  if (format == "sift.scoring/1")
    fail("{}: format \"sift.scoring/1\" is a labeler made with the old prompt encoding (template pieces and user "
         "text tokenized apart); sift now tokenizes each rendered prompt part as one text, which changes the token "
         "ids and so the scores. Its threshold no longer holds: set \"format\" to \"{}\" and re-validate the "
         "labeler (re-run `sift calibrate` on validation data, or retrain)", where, kScoringFormat);
  if (format != kScoringFormat)
    fail("{}: field \"format\" is \"{}\", expected \"{}\"", where, format, kScoringFormat);

  ScoringArtifact a;
  auto version = object.find("version");
  if (version == object.end()) fail("{}: missing required field \"version\"", where);
  if (version->is_string()) a.version = version->get<std::string>();
  else if (version->is_number()) a.version = version->dump();
  else fail("{}: field \"version\" must be a string or a number, got {}", where, version->dump());
  if (a.version.empty()) fail("{}: field \"version\" must not be empty", where);

  a.query_template = required_string(object, "query_template", where);
  a.item_template = required_string(object, "item_template", where);
  require_placeholder_once(a.query_template, kQueryPlaceholder, "query_template", where);
  require_placeholder_once(a.item_template, kItemPlaceholder, "item_template", where);
  if (count_occurrences(a.query_template, kItemPlaceholder) != 0)
    fail("{}: field \"query_template\" must not contain {} (candidate text belongs in item_template)", where,
         kItemPlaceholder);
  if (count_occurrences(a.item_template, kQueryPlaceholder) != 0)
    fail("{}: field \"item_template\" must not contain {} (query text belongs in query_template)", where,
         kQueryPlaceholder);

  a.yes = required_string(object, "yes", where);
  a.no = required_string(object, "no", where);
  if (a.yes.empty()) fail("{}: field \"yes\" must not be empty", where);
  if (a.no.empty()) fail("{}: field \"no\" must not be empty", where);
  if (a.yes == a.no) fail("{}: fields \"yes\" and \"no\" are both \"{}\"; they must differ", where, a.yes);

  auto threshold = object.find("threshold");
  if (threshold == object.end()) fail("{}: missing required field \"threshold\"", where);
  if (!threshold->is_number()) fail("{}: field \"threshold\" must be a number, got {}", where, threshold->dump());
  a.threshold = threshold->get<double>();
  if (!is_probability(a.threshold))
    fail("{}: field \"threshold\" must be in [0, 1], got {}", where, threshold->dump());

  if (auto map = object.find("calibration_map"); map != object.end() && !map->is_null())
    a.calibration_map = parse_calibration_map(*map, where);
  if (auto on = object.find("threshold_on"); on != object.end() && !on->is_null()) {
    const std::optional<ThresholdOn> parsed = on->is_string() ? parse_threshold_on(on->get<std::string>()) : std::nullopt;
    if (!parsed) fail("{}: field \"threshold_on\" must be \"score\" or \"probability\", got {}", where, on->dump());
    a.threshold_on = *parsed;
    if (a.threshold_on == ThresholdOn::Probability && !a.calibration_map)
      fail("{}: field \"threshold_on\" is \"probability\" but there is no \"calibration_map\" to make one: fit one "
           "with `sift calibrate --fit`, or set \"threshold_on\" to \"score\"",
           where);
  }

  a.generate_item_template =
      optional_string(object, "generate_item_template", kDefaultGenerateItemTemplate, where);
  require_placeholder_once(a.generate_item_template, kIndexPlaceholder, "generate_item_template", where);
  require_placeholder_once(a.generate_item_template, kItemPlaceholder, "generate_item_template", where);
  if (a.generate_item_template.find(kItemPlaceholder) < a.generate_item_template.find(kIndexPlaceholder))
    fail("{}: field \"generate_item_template\" must put {} before {}", where, kIndexPlaceholder,
         kItemPlaceholder);
  a.generate_answer_template = replace_all(
      replace_all(optional_string(object, "generate_answer_template", kDefaultGenerateAnswerTemplate, where),
                  "{yes}", a.yes),
      "{no}", a.no);
  a.self_test = parse_self_test(object, where);
  a.source_json = object.dump();
  return a;
}

ScoringArtifact load_scoring_artifact(const std::filesystem::path& sift_json) {
  const std::string where = sift_json.string();
  std::ifstream in(sift_json);
  if (!in) fail("{}: cannot open the labeler artifact (sift.json)", where);
  return parse_scoring_artifact(parse_json(in, where), where);
}

json scoring_artifact_to_json(const ScoringArtifact& a) {
  return json{{"format", kScoringFormat},
              {"version", a.version},
              {"query_template", a.query_template},
              {"item_template", a.item_template},
              {"yes", a.yes},
              {"no", a.no},
              {"threshold", a.threshold},
              {"generate_item_template", a.generate_item_template},
              {"generate_answer_template", a.generate_answer_template}};
}

}  // namespace sift
