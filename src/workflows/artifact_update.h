#pragma once
// Writes a calibrated threshold into a labeler's sift.json as a new artifact version,
// keeping every other field (unknown ones included) and the field order.
//
// Version rule: "<base>+cal<n>-<target>", where <base> is the old version without an
// earlier "+cal<k>-..." suffix and n = k + 1 (1 for a version never calibrated):
//   "3" -> "3+cal1-f1" -> "3+cal2-precision=0.9"
// The "calibration" field records how the threshold was chosen (target, input, counts,
// the chosen point, the previous version and threshold). The file is replaced atomically:
// written to a temporary file in the same directory, flushed, then renamed over it.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace sift {

// The version string that follows `old_version` after a calibration for `target_name`.
std::string calibrated_version(const std::string& old_version, const std::string& target_name);

struct ArtifactUpdate {
  std::string old_version;
  std::string new_version;
  double old_threshold = 0;
};

// Sets "threshold", "version" and "calibration" (= `record`, to which previous_version and
// previous_threshold are added) in sift_json; the result must still parse as an artifact.
ArtifactUpdate write_calibrated_artifact(const std::filesystem::path& sift_json, double threshold,
                                         const std::string& target_name, nlohmann::ordered_json record);

// Replaces `path` with `text` atomically (tmp file + fsync + rename).
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace sift
