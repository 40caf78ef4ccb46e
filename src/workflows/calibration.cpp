#include "workflows/calibration.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace sift {
namespace {

double parse_target_value(std::string_view text, std::string_view metric) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty())
    fail_option("--target {}={}: \"{}\" is not a number", metric, text, text);
  if (!(value > 0.0 && value <= 1.0)) fail_option("--target {}={}: the value must be in (0, 1]", metric, text);
  return value;
}

// True when `a` is the better choice than `b` for the target (the rules of calibration.h).
bool better_point(const PrPoint& a, const PrPoint& b, CalibrationTarget::Kind kind) {
  switch (kind) {
    case CalibrationTarget::Kind::F1:
      if (a.f1 != b.f1) return a.f1 > b.f1;
      break;
    case CalibrationTarget::Kind::Agreement:
      if (a.agreement != b.agreement) return a.agreement > b.agreement;
      break;
    case CalibrationTarget::Kind::Precision:
      if (a.recall != b.recall) return a.recall > b.recall;
      if (a.precision != b.precision) return a.precision > b.precision;
      break;
    case CalibrationTarget::Kind::Recall:
      if (a.precision != b.precision) return a.precision > b.precision;
      if (a.recall != b.recall) return a.recall > b.recall;
      break;
  }
  return a.threshold > b.threshold;
}

bool meets(const PrPoint& point, const CalibrationTarget& target) {
  switch (target.kind) {
    case CalibrationTarget::Kind::F1:
    case CalibrationTarget::Kind::Agreement: return true;
    case CalibrationTarget::Kind::Precision: return point.precision >= target.value;
    case CalibrationTarget::Kind::Recall: return point.recall >= target.value;
  }
  return false;
}

}  // namespace

PrCurve precision_recall_curve(std::span<const double> scores, const std::vector<bool>& reference) {
  if (scores.size() != reference.size())
    fail("precision-recall curve: {} scores but {} reference labels", scores.size(), reference.size());
  if (scores.empty()) fail("precision-recall curve: no items");
  for (size_t i = 0; i < scores.size(); ++i)
    if (!(scores[i] >= 0.0 && scores[i] <= 1.0)) fail("precision-recall curve: item {} has score {}, outside [0, 1]", i, scores[i]);

  PrCurve curve;
  curve.n_items = static_cast<int64_t>(scores.size());
  curve.n_positive = std::count(reference.begin(), reference.end(), true);
  if (curve.n_positive == 0)
    fail("precision-recall curve: none of the {} items has a YES reference label, so recall is undefined",
         curve.n_items);

  // Items by score, highest first; a threshold at each distinct score admits every item
  // scoring at least that much (ties YES), so a group of equal scores enters together.
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  int64_t tp = 0, fp = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    (reference[order[k]] ? tp : fp) += 1;
    const bool group_ends = k + 1 == order.size() || scores[order[k + 1]] != scores[order[k]];
    if (!group_ends) continue;
    PrPoint point;
    point.threshold = scores[order[k]];
    point.true_positives = tp;
    point.false_positives = fp;
    point.precision = static_cast<double>(tp) / static_cast<double>(tp + fp);
    point.recall = static_cast<double>(tp) / static_cast<double>(curve.n_positive);
    const int64_t false_negatives = curve.n_positive - tp;
    point.f1 = 2.0 * static_cast<double>(tp) / static_cast<double>(2 * tp + fp + false_negatives);
    const int64_t true_negatives = curve.n_items - curve.n_positive - fp;
    point.agreement = static_cast<double>(tp + true_negatives) / static_cast<double>(curve.n_items);
    curve.points.push_back(point);
  }
  return curve;
}

double average_precision(const PrCurve& curve) {
  double area = 0, previous_recall = 0;
  for (const PrPoint& point : curve.points) {
    area += (point.recall - previous_recall) * point.precision;
    previous_recall = point.recall;
  }
  return area;
}

std::string separation_problem(const PrCurve& curve, const PrPoint& chosen) {
  const double n = static_cast<double>(curve.n_items);
  const double positive_rate = static_cast<double>(curve.n_positive) / n;
  const double yes_share = static_cast<double>(chosen.true_positives + chosen.false_positives) / n;
  std::vector<std::string> signs;
  const double bar = positive_rate + kSeparationMargin * (1 - positive_rate);
  if (const double ap = average_precision(curve); ap < bar)
    signs.push_back(fmt::format("average precision {:.4f} is below {:.4f}, a tenth of the way from the positive rate "
                                "{:.4f} (what scores in a random order get) to 1",
                                ap, bar, positive_rate));
  if (yes_share >= kMaxYesShare && positive_rate < kMaxYesShare)
    signs.push_back(fmt::format("the chosen threshold {:.6g} labels {:.1f}% of the {} items YES (the reference labels "
                                "{:.1f}% so)",
                                chosen.threshold, 100 * yes_share, curve.n_items, 100 * positive_rate));
  if (signs.empty()) return "";
  return fmt::format("the scores do not separate YES from NO on these items: {}", fmt::join(signs, "; and "));
}

ScoreHistogram score_histogram(std::span<const double> scores, const std::vector<bool>& reference, int n_bins) {
  if (n_bins < 1) fail("score histogram: {} bins", n_bins);
  if (scores.size() != reference.size())
    fail("score histogram: {} scores but {} reference labels", scores.size(), reference.size());
  ScoreHistogram histogram{std::vector<int64_t>(n_bins, 0), std::vector<int64_t>(n_bins, 0)};
  for (size_t i = 0; i < scores.size(); ++i) {
    if (!(scores[i] >= 0.0 && scores[i] <= 1.0)) fail("score histogram: item {} has score {}, outside [0, 1]", i, scores[i]);
    const int bin = std::min(n_bins - 1, static_cast<int>(scores[i] * n_bins));
    (reference[i] ? histogram.positives : histogram.negatives)[bin] += 1;
  }
  return histogram;
}

std::string CalibrationTarget::name() const {
  switch (kind) {
    case Kind::F1: return "f1";
    case Kind::Agreement: return "agreement";
    case Kind::Precision: return fmt::format("precision={}", value);
    case Kind::Recall: return fmt::format("recall={}", value);
  }
  return "?";
}

CalibrationTarget parse_calibration_target(std::string_view text) {
  if (text == "f1") return {CalibrationTarget::Kind::F1, 0.0};
  if (text == "agreement") return {CalibrationTarget::Kind::Agreement, 0.0};
  for (auto [prefix, kind] : {std::pair{std::string_view("precision="), CalibrationTarget::Kind::Precision},
                              std::pair{std::string_view("recall="), CalibrationTarget::Kind::Recall}}) {
    if (text.starts_with(prefix)) {
      std::string_view metric = prefix.substr(0, prefix.size() - 1);
      return {kind, parse_target_value(text.substr(prefix.size()), metric)};
    }
  }
  fail_option("--target \"{}\": expected f1, agreement, precision=P or recall=R with P, R in (0, 1]", text);
}

const PrPoint& choose_operating_point(const PrCurve& curve, const CalibrationTarget& target) {
  if (curve.points.empty()) fail("calibration: the precision-recall curve is empty");
  // Rows of one class cannot place a threshold. With no NO reference label every threshold
  // has precision 1 and the lowest has recall 1, so every target would choose "all YES"
  // (with no YES label, precision_recall_curve refuses: recall is undefined).
  if (curve.n_positive == curve.n_items)
    fail("calibration: all {} items have a YES reference label, so nothing tells a threshold from labeling every "
         "item YES: calibrate on rows that hold NO labels too",
         curve.n_items);
  const PrPoint* chosen = nullptr;
  for (const PrPoint& point : curve.points)
    if (meets(point, target) && (!chosen || better_point(point, *chosen, target.kind))) chosen = &point;
  if (chosen) return *chosen;

  // Unreachable: name the best value the curve offers (only precision can be out of reach:
  // the lowest threshold admits every item, recall 1).
  const PrPoint* best = &curve.points.front();
  for (const PrPoint& point : curve.points) {
    const bool higher = target.kind == CalibrationTarget::Kind::Recall ? point.recall > best->recall
                                                                       : point.precision > best->precision;
    if (higher) best = &point;
  }
  const bool wants_precision = target.kind == CalibrationTarget::Kind::Precision;
  fail("calibration target {} cannot be met on these {} items: the best achievable {} is {:.6g} (threshold {}, "
       "precision {:.6g}, recall {:.6g})",
       target.name(), curve.n_items, wants_precision ? "precision" : "recall",
       wants_precision ? best->precision : best->recall, best->threshold, best->precision, best->recall);
}

}  // namespace sift
