#pragma once
// Writing a calibration, all or nothing: the new sift.json (artifact_update.h) and the curve
// files (pr_curve_files.h). The curve files are drawn into a temporary folder first, so a
// calibration that fails (a target that cannot be met, gnuplot failing, a full disk) leaves
// the labeler and its old curve files as they were.
//
//   in place   sift.json replaced atomically, then the curve files moved into `curve_dir`
//              (default DIR/calibration). The caller holds a PathLock on DIR from before it
//              read sift.json, so two calibrations never lose one update.
//   new folder DIR copied into a temporary folder beside NEW_DIR (files hard-linked where the
//              file system allows: sift never changes a file in place, it replaces it; else
//              copied), its sift.json replaced, the curve files put in its calibration/ (or
//              `curve_dir`), then the folder renamed to NEW_DIR in one step. NEW_DIR must not
//              exist.
#include <filesystem>
#include <optional>
#include <string>

#include "workflows/artifact_update.h"
#include "workflows/calibration.h"

namespace sift {

struct CalibrationCurves {
  const PrCurve& curve;
  const PrPoint& chosen;
  const ScoreHistogram& histogram;
  std::string title;
};

struct WrittenCalibration {
  std::filesystem::path sift_json;
  std::filesystem::path curve_dir;
};

// An Error, before any work, when a calibration could not be written where it is asked to go:
// `new_dir` (when given: --out) exists, or `curve_dir` (when given: --out-dir) exists and is
// not a folder.
void check_calibration_destinations(const std::optional<std::filesystem::path>& new_dir,
                                    const std::optional<std::filesystem::path>& curve_dir);

WrittenCalibration write_calibration_in_place(const std::filesystem::path& model_dir, const ArtifactUpdate& update,
                                              const CalibrationCurves& curves,
                                              const std::optional<std::filesystem::path>& curve_dir);

// Only the curve files, into `curve_dir` (created if missing; drawn in a temporary folder
// inside it, then moved in): what `sift calibrate --dry-run --out-dir` writes, the labeler
// untouched.
void write_calibration_curves(const std::filesystem::path& curve_dir, const CalibrationCurves& curves);

WrittenCalibration write_calibrated_copy(const std::filesystem::path& model_dir, const std::filesystem::path& new_dir,
                                         const ArtifactUpdate& update, const CalibrationCurves& curves,
                                         const std::optional<std::filesystem::path>& curve_dir);

}  // namespace sift
