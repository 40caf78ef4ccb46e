#pragma once
// ScoringArtifact: sift.json, the versioned file that makes a checkpoint a labeler.
//
//   {"format": "sift.scoring/2", "version": "...",
//    "query_template": "...{query}...", "item_template": "...{item}...",
//    "yes": "YES", "no": "NO", "threshold": 0.5}
// and, once calibrated with --fit, "calibration_map" and "threshold_on" (scoring/calibration_map.h).
//
// query_template holds the instructions and all candidate-invariant text; item_template the
// candidate-dependent text and ends exactly at the answer position. Each holds its
// placeholder exactly once. Optional fields shape the packed-generation baseline prompt
// (see generate_prompt.h); their defaults are documented there.
#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "scoring/calibration_map.h"
#include "scoring/self_test.h"

namespace sift {

// /2: each prompt part is rendered and tokenized as one text (scoring/prompt.h). /1 encoded
// the template pieces and the user text apart, which gives other ids at the boundaries, so a
// /1 labeler's threshold was validated on prompts sift no longer builds.
inline constexpr std::string_view kScoringFormat = "sift.scoring/2";
inline constexpr std::string_view kQueryPlaceholder = "{query}";
inline constexpr std::string_view kItemPlaceholder = "{item}";
inline constexpr std::string_view kIndexPlaceholder = "{index}";

struct ScoringArtifact {
  std::string version;
  std::string query_template;
  std::string item_template;
  std::string yes = "YES";
  std::string no = "NO";
  double threshold = 0.5;
  // The calibration map ("calibration_map", scoring/calibration_map.h) when `sift calibrate
  // --fit` wrote one, and what the threshold applies to ("threshold_on"; "probability" needs
  // the map).
  std::optional<CalibrationMap> calibration_map;
  ThresholdOn threshold_on = ThresholdOn::Score;
  // Packed generation (mode generate): one line per candidate, "{index}" and "{item}" once
  // each; then the instruction that asks for the answer list. Both are template text
  // (special tokens recognised).
  std::string generate_item_template;
  std::string generate_answer_template;
  // The known-answer probes (scoring/self_test.h); absent in labelers written before them.
  std::optional<SelfTest> self_test;
  // The JSON object this was parsed from, as compact JSON text: every field as it was loaded
  // (calibrations, preset, fields sift does not know, a numeric version as a number).
  // Labeler::artifact_json() returns it.
  std::string source_json;
};

// Parses and validates; every violation is an Error naming `where` and the field.
ScoringArtifact parse_scoring_artifact(const nlohmann::json& json, const std::string& where);
ScoringArtifact load_scoring_artifact(const std::filesystem::path& sift_json);
// The fields sift reads, with their defaults filled in (source_json's other fields and the
// self_test left out: probes are measured on the weights they belong to): the sift.json of a
// newly trained labeler, before its probes are written.
nlohmann::json scoring_artifact_to_json(const ScoringArtifact& artifact);

// Splits template text around its one placeholder: {before, after}.
struct TemplateParts {
  std::string before;
  std::string after;
};
TemplateParts split_template(std::string_view text, std::string_view placeholder);

}  // namespace sift
