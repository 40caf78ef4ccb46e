#include "workflows/calibration_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "core/error.h"

namespace sift {
namespace {

constexpr int kMaxNewtonSteps = 200;
constexpr int kMaxHalvings = 60;
constexpr double kStepTolerance = 1e-12;
constexpr double kMaxSlope = 1e6;  // |beta|, |a|, |b| held below this (separable items)

void check_fit_data(std::span<const double> scores, const std::vector<bool>& labels, const char* method) {
  if (scores.size() != labels.size())
    fail("{} fit: {} scores but {} reference labels", method, scores.size(), labels.size());
  if (scores.empty()) fail("{} fit: no items", method);
  for (size_t i = 0; i < scores.size(); ++i)
    if (!(scores[i] >= 0.0 && scores[i] <= 1.0)) fail("{} fit: item {} has score {}, outside [0, 1]", method, i, scores[i]);
  const auto positives = std::count(labels.begin(), labels.end(), true);
  if (positives == 0 || positives == static_cast<std::ptrdiff_t>(labels.size()))
    fail("{} fit: all {} items have a {} reference label; a calibration map needs items of both labels", method,
         labels.size(), positives == 0 ? "NO" : "YES");
}

// log(1 + e^u) without overflow.
double softplus(double u) { return u > 0 ? u + std::log1p(std::exp(-u)) : std::log1p(std::exp(u)); }

// The logistic model u_i = slope * z_i + intercept (the intercept fixed at 0 unless fitted).
struct LogisticFit {
  double slope = 1.0;
  double intercept = 0.0;
};

double negative_log_likelihood(const std::vector<double>& z, const std::vector<bool>& y, LogisticFit fit) {
  double sum = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    const double u = fit.slope * z[i] + fit.intercept;
    sum += softplus(u) - (y[i] ? u : 0.0);
  }
  return sum;
}

// Newton's method on the NLL (the math in calibration_fit.h), halving a step that raises it.
LogisticFit fit_logistic(const std::vector<double>& z, const std::vector<bool>& y, bool with_intercept) {
  LogisticFit fit;
  double loss = negative_log_likelihood(z, y, fit);
  for (int step = 0; step < kMaxNewtonSteps; ++step) {
    double g_slope = 0, g_intercept = 0, h_ss = 0, h_si = 0, h_ii = 0;
    for (size_t i = 0; i < z.size(); ++i) {
      const double q = sigmoid(fit.slope * z[i] + fit.intercept);
      const double r = q - (y[i] ? 1.0 : 0.0), w = q * (1.0 - q);
      g_slope += r * z[i];
      g_intercept += r;
      h_ss += w * z[i] * z[i];
      h_si += w * z[i];
      h_ii += w;
    }
    double d_slope = 0, d_intercept = 0;  // -H^{-1} g
    if (with_intercept) {
      const double det = h_ss * h_ii - h_si * h_si;
      if (!(det > 0) || !std::isfinite(det)) break;  // flat: every item saturated
      d_slope = -(h_ii * g_slope - h_si * g_intercept) / det;
      d_intercept = -(h_ss * g_intercept - h_si * g_slope) / det;
    } else {
      if (!(h_ss > 0) || !std::isfinite(h_ss)) break;
      d_slope = -g_slope / h_ss;
    }
    bool improved = false;
    for (int halving = 0; halving < kMaxHalvings; ++halving) {
      const LogisticFit next{std::clamp(fit.slope + d_slope, -kMaxSlope, kMaxSlope),
                             std::clamp(fit.intercept + d_intercept, -kMaxSlope, kMaxSlope)};
      const double next_loss = negative_log_likelihood(z, y, next);
      if (next_loss <= loss) {
        const bool small = std::abs(next.slope - fit.slope) <= kStepTolerance * std::max(1.0, std::abs(fit.slope)) &&
                           std::abs(next.intercept - fit.intercept) <=
                               kStepTolerance * std::max(1.0, std::abs(fit.intercept));
        fit = next;
        loss = next_loss;
        improved = !small;
        break;
      }
      d_slope /= 2;
      d_intercept /= 2;
    }
    if (!improved) break;
  }
  return fit;
}

std::vector<double> log_odds_of(std::span<const double> scores) {
  std::vector<double> z;
  z.reserve(scores.size());
  for (double p : scores) z.push_back(clamped_log_odds(p));
  return z;
}

void check_slope(double slope, const char* method, const char* name) {
  if (!(slope > 0) || !std::isfinite(slope))
    fail("{} fit: the fitted {} is {}, not positive: these scores rank YES below NO, so no rising map fits them", method,
         name, slope);
}

}  // namespace

CalibrationMap fit_temperature(std::span<const double> scores, const std::vector<bool>& labels) {
  check_fit_data(scores, labels, "temperature");
  const LogisticFit fit = fit_logistic(log_odds_of(scores), labels, false);
  check_slope(fit.slope, "temperature", "1/T");
  CalibrationMap map;
  map.method = CalibrationMethod::Temperature;
  map.temperature = 1.0 / fit.slope;
  return map;
}

CalibrationMap fit_platt(std::span<const double> scores, const std::vector<bool>& labels) {
  check_fit_data(scores, labels, "platt");
  const LogisticFit fit = fit_logistic(log_odds_of(scores), labels, true);
  check_slope(fit.slope, "platt", "slope a");
  CalibrationMap map;
  map.method = CalibrationMethod::Platt;
  map.a = fit.slope;
  map.b = fit.intercept;
  return map;
}

CalibrationMap fit_isotonic(std::span<const double> scores, const std::vector<bool>& labels) {
  check_fit_data(scores, labels, "isotonic");
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] < scores[b]; });

  // Blocks of the pool: scores [lo, hi], `yes` YES labels of `n` items; rate yes / n.
  struct Block {
    double lo, hi;
    int64_t yes, n;
  };
  // Ties first: each distinct score one block (so tied items get one value), in score order.
  std::vector<Block> ties;
  for (size_t k = 0; k < order.size(); ++k) {
    const double s = scores[order[k]];
    const int64_t y = labels[order[k]] ? 1 : 0;
    if (!ties.empty() && ties.back().hi == s) {
      ties.back().yes += y;
      ties.back().n += 1;
    } else {
      ties.push_back({s, s, y, 1});
    }
  }
  // Then pool adjacent violators: while the block before has the higher rate
  // (yes_a / n_a > yes_b / n_b), the two become one.
  std::vector<Block> blocks;
  for (const Block& tie : ties) {
    blocks.push_back(tie);
    while (blocks.size() >= 2) {
      const Block& b = blocks[blocks.size() - 1];
      Block& a = blocks[blocks.size() - 2];
      if (!(a.yes * b.n > b.yes * a.n)) break;
      a = {a.lo, b.hi, a.yes + b.yes, a.n + b.n};
      blocks.pop_back();
    }
  }
  std::vector<double> xs, qs;
  for (const Block& block : blocks) {
    const double rate = static_cast<double>(block.yes) / static_cast<double>(block.n);
    xs.push_back(block.lo);
    qs.push_back(rate);
    if (block.hi > block.lo) {
      xs.push_back(block.hi);
      qs.push_back(rate);
    }
  }
  CalibrationMap map;
  map.method = CalibrationMethod::Isotonic;
  for (size_t j = 0; j < xs.size(); ++j) {
    const bool flat_inside = j > 0 && j + 1 < xs.size() && qs[j - 1] == qs[j] && qs[j] == qs[j + 1];
    if (flat_inside) continue;
    map.scores.push_back(xs[j]);
    map.probabilities.push_back(qs[j]);
  }
  if (map.scores.size() > kMaxBreakpoints)
    fail("isotonic fit: {} breakpoints, more than the {} a sift.json holds; fit on fewer distinct scores or use platt",
         map.scores.size(), kMaxBreakpoints);
  return map;
}

CalibrationMap fit_calibration_map(CalibrationMethod method, std::span<const double> scores,
                                   const std::vector<bool>& labels) {
  switch (method) {
    case CalibrationMethod::Temperature: return fit_temperature(scores, labels);
    case CalibrationMethod::Platt: return fit_platt(scores, labels);
    case CalibrationMethod::Isotonic: return fit_isotonic(scores, labels);
  }
  fail("unknown calibration method");
}

}  // namespace sift
