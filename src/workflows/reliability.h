#pragma once
// How well probabilities match the rates they claim, on labeled items (sift eval, sift
// calibrate --fit): pure math. With predicted probabilities p_i in [0, 1] and reference
// labels y_i in {0, 1}, i = 1..n:
//   Brier score  B = (1/n) sum_i (p_i - y_i)^2
//   reliability  kReliabilityBins = 15 equal-width bins over [0, 1]: bin b = [b/15, (b+1)/15),
//                the last one closed; per bin its count n_b, mean probability conf_b and YES
//                rate acc_b (the reliability diagram plots acc_b against conf_b)
//   ECE          expected calibration error over those bins: sum_b (n_b / n) |acc_b - conf_b|
// A perfectly calibrated labeler has acc_b = conf_b (ECE 0); Brier also rewards sharpness.
#include <cstdint>
#include <span>
#include <vector>

namespace sift {

inline constexpr int kReliabilityBins = 15;

struct ReliabilityBin {
  double lo = 0, hi = 0;       // [lo, hi)
  int64_t n = 0;               // items in the bin
  double mean_probability = 0; // conf_b (0 when empty)
  double yes_rate = 0;         // acc_b (0 when empty)
};

struct Reliability {
  int64_t n = 0;
  double ece = 0;
  double brier = 0;
  std::vector<ReliabilityBin> bins;  // kReliabilityBins (or the count asked for)
};

// Error when the inputs differ in length, are empty, or a probability is outside [0, 1] or NaN.
Reliability reliability(std::span<const double> probabilities, const std::vector<bool>& labels,
                        int n_bins = kReliabilityBins);

}  // namespace sift
