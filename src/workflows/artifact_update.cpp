#include "workflows/artifact_update.h"

#include <algorithm>
#include <charconv>
#include <fstream>

#include "core/error.h"
#include "io/json_parse.h"
#include "scoring/artifact.h"

namespace sift {
namespace {

// The base version and calibration count of "<base>+cal<k>-<anything>" (the last such
// suffix), or {version, 0}. Plain string search: no regex, so no recursion on long versions.
std::pair<std::string, int64_t> split_calibrated(const std::string& version) {
  constexpr std::string_view marker = "+cal";
  for (size_t at = version.rfind(marker); at != std::string::npos; at = at == 0 ? std::string::npos : version.rfind(marker, at - 1)) {
    const size_t digits = at + marker.size();
    size_t end = digits;
    while (end < version.size() && version[end] >= '0' && version[end] <= '9') ++end;
    if (end == digits || end >= version.size() || version[end] != '-') continue;
    int64_t count = 0;
    const auto [ptr, error] = std::from_chars(version.data() + digits, version.data() + end, count);
    if (error != std::errc() || count >= INT64_MAX - 1) continue;  // not a count sift wrote
    return {version.substr(0, at), count};
  }
  return {version, 0};
}

}  // namespace

std::string calibrated_version(const std::string& old_version, const std::string& target_name) {
  const auto [base, count] = split_calibrated(old_version);
  std::string target = target_name;
  std::replace(target.begin(), target.end(), '=', '-');
  return fmt::format("{}+cal{}-{}", base, count + 1, target);
}

ArtifactUpdate calibrated_artifact(const std::filesystem::path& sift_json, double threshold,
                                   const std::string& target_name, nlohmann::ordered_json record,
                                   ThresholdOn threshold_on, const std::optional<nlohmann::ordered_json>& calibration_map) {
  const std::string where = sift_json.string();
  const ScoringArtifact old_artifact = load_scoring_artifact(sift_json);  // validates
  std::ifstream in(sift_json);
  nlohmann::ordered_json object = parse_json<nlohmann::ordered_json>(in, where);
  ArtifactUpdate update;
  update.old_version = old_artifact.version;
  update.old_threshold = old_artifact.threshold;
  update.new_version = calibrated_version(old_artifact.version, target_name);

  nlohmann::ordered_json entry;
  entry["version"] = update.new_version;
  entry["threshold"] = threshold;
  entry["previous_version"] = update.old_version;
  entry["previous_threshold"] = update.old_threshold;
  for (const auto& field : record.items()) entry[field.key()] = field.value();

  nlohmann::ordered_json history = nlohmann::ordered_json::array();
  if (auto last = object.find("calibration"); last != object.end()) {  // an older sift's single record
    history.push_back(*last);
    object.erase(last);
  }
  if (auto old_history = object.find("calibrations"); old_history != object.end()) {
    if (!old_history->is_array()) fail("{}: field \"calibrations\" must be a list, got {}", where, old_history->type_name());
    for (const auto& item : *old_history) history.push_back(item);
  }
  history.push_back(std::move(entry));
  object["version"] = update.new_version;
  object["threshold"] = threshold;
  object["calibrations"] = std::move(history);
  if (calibration_map) object["calibration_map"] = *calibration_map;
  if (threshold_on == ThresholdOn::Probability || object.contains("threshold_on"))
    object["threshold_on"] = std::string(threshold_on_name(threshold_on));

  update.text = object.dump(2) + "\n";
  parse_scoring_artifact(parse_json(update.text, where), where);  // what is written must load
  return update;
}

}  // namespace sift
