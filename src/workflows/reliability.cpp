#include "workflows/reliability.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace sift {

Reliability reliability(std::span<const double> probabilities, const std::vector<bool>& labels, int n_bins) {
  if (n_bins < 1) fail("reliability: {} bins", n_bins);
  if (probabilities.size() != labels.size())
    fail("reliability: {} probabilities but {} reference labels", probabilities.size(), labels.size());
  if (probabilities.empty()) fail("reliability: no items");
  Reliability out;
  out.n = static_cast<int64_t>(probabilities.size());
  out.bins.resize(static_cast<size_t>(n_bins));
  std::vector<double> sum_p(n_bins, 0.0), sum_y(n_bins, 0.0);
  double squared = 0;
  for (size_t i = 0; i < probabilities.size(); ++i) {
    const double p = probabilities[i];
    if (!(p >= 0.0 && p <= 1.0)) fail("reliability: item {} has probability {}, outside [0, 1]", i, p);
    const double y = labels[i] ? 1.0 : 0.0;
    squared += (p - y) * (p - y);
    const int b = std::min(n_bins - 1, static_cast<int>(p * n_bins));
    out.bins[b].n += 1;
    sum_p[b] += p;
    sum_y[b] += y;
  }
  out.brier = squared / static_cast<double>(out.n);
  for (int b = 0; b < n_bins; ++b) {
    ReliabilityBin& bin = out.bins[b];
    bin.lo = static_cast<double>(b) / n_bins;
    bin.hi = static_cast<double>(b + 1) / n_bins;
    if (bin.n == 0) continue;
    bin.mean_probability = sum_p[b] / static_cast<double>(bin.n);
    bin.yes_rate = sum_y[b] / static_cast<double>(bin.n);
    out.ece += static_cast<double>(bin.n) / static_cast<double>(out.n) * std::abs(bin.yes_rate - bin.mean_probability);
  }
  return out;
}

}  // namespace sift
