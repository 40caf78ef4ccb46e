#pragma once
// The reliability diagram `sift eval --out-dir DIR` writes (workflows/reliability.h's bins):
//   reliability.tsv  one line per bin after the header
//                    "bin_start\tbin_end\tn\tmean_score\tyes_rate" (the raw scores binned), and,
//                    when the labeler has a calibration map, the same of its probabilities:
//                    "\tn_calibrated\tmean_probability\tyes_rate_calibrated"; an empty bin's
//                    means are written as NaN (gnuplot leaves them out)
//   reliability.png  drawn by gnuplot: YES rate against mean predicted value per bin, each
//                    curve with its ECE and Brier in the key, the diagonal y = x (perfect
//                    calibration) dashed
//   reliability.gp   the gnuplot script that drew it
#include <array>
#include <filesystem>
#include <optional>
#include <string>

#include "workflows/reliability.h"

namespace sift {

inline constexpr std::array<const char*, 3> kReliabilityFiles = {"reliability.tsv", "reliability.png",
                                                                 "reliability.gp"};

// The bins of `raw` and `calibrated` must be alike (the same count).
void write_reliability_tsv(const std::filesystem::path& path, const Reliability& raw,
                           const std::optional<Reliability>& calibrated);

// All of kReliabilityFiles into `dir` (created if missing).
void write_reliability_files(const std::filesystem::path& dir, const Reliability& raw,
                             const std::optional<Reliability>& calibrated, const std::string& title);

}  // namespace sift
