#pragma once
// A calibrated threshold written into a labeler's sift.json as a new artifact version,
// keeping every other field (unknown ones included) and the field order.
//
// Version rule: "<base>+cal<n>-<target>", where <base> is the old version without its last
// "+cal<k>-..." suffix, n = k + 1 (1 for a version never calibrated), and <target> the
// target's name with "-" for "=", so a version reads as words and needs no quoting:
//   "3" -> "3+cal1-f1" -> "3+cal2-precision-0.9" -> "3+cal3-recall-0.8"
// Versions an older sift wrote ("3+cal2-precision=0.9") count the same way.
// History: "calibrations" is the list of every calibration, oldest first; each record says
// how its threshold was chosen (target, input, counts, the chosen point) and what it
// replaced and made:
//   {"version", "threshold", "previous_version", "previous_threshold", "target", ...}
// A "calibration" object written by an older sift (the last calibration only) becomes the
// list's first record.
// A fitted map (sift calibrate --fit) replaces "calibration_map" (scoring/calibration_map.h);
// "threshold_on" is written when it is "probability", or when sift.json has the field already.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

#include "scoring/calibration_map.h"

namespace sift {

// The version string that follows `old_version` after a calibration for `target_name`.
std::string calibrated_version(const std::string& old_version, const std::string& target_name);

struct ArtifactUpdate {
  std::string old_version;
  std::string new_version;
  double old_threshold = 0;
  std::string text;  // the new sift.json
};

// The new content of sift_json with `threshold` (applied to `threshold_on`), the next version,
// `record` appended to the history and, when given, `calibration_map` as the new map; checked
// to load as an artifact. Nothing is written.
ArtifactUpdate calibrated_artifact(const std::filesystem::path& sift_json, double threshold,
                                   const std::string& target_name, nlohmann::ordered_json record,
                                   ThresholdOn threshold_on = ThresholdOn::Score,
                                   const std::optional<nlohmann::ordered_json>& calibration_map = std::nullopt);

}  // namespace sift
