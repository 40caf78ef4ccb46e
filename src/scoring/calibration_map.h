#pragma once
// A calibration map: the monotone function from a labeler's raw P(YES) (its score) to a
// calibrated probability, fitted by `sift calibrate --fit` (workflows/calibration_fit.h) and
// kept in sift.json as "calibration_map". Every path that reports a `probability` (sift score,
// sift batch, sift serve, the Python package, sift eval) calls apply() here; nothing else
// computes one. Pure: no I/O.
//
// With z = logit(p) = log(p) - log(1 - p), clamped to [-kMaxLogOdds, kMaxLogOdds] (a score of
// exactly 0 or 1 is a saturated logit margin, not certainty), and sigmoid(x) = 1 / (1 + e^-x):
//   temperature  probability = sigmoid(z / T)              T > 0
//   platt        probability = sigmoid(a * z + b)          a > 0 (so the map rises with p)
//   isotonic     breakpoints (s_0 < s_1 < ... < s_k, q_0 <= q_1 <= ... <= q_k), all in [0, 1]:
//                p <= s_0 -> q_0, p >= s_k -> q_k, else linear between the two breakpoints
//                around p (s_j <= p < s_{j+1}). Non-decreasing by construction.
//
// In sift.json (docs/artifact.md):
//   "calibration_map": {"format": "sift.calibration_map/1", "method": "temperature",
//                       "parameters": {"temperature": T}          (platt: {"a": a, "b": b})
//                       "breakpoints": {"score": [...], "probability": [...]}   (isotonic)
//                       ... what it was fitted on, ECE and Brier before and after, fitted_at}
//   "threshold_on": "score" (default) | "probability"
// Labels: label = value >= threshold (ties YES), value the score or, with "threshold_on":
// "probability", the calibrated probability (decide_label below: the one place that decides).
#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sift {

inline constexpr std::string_view kCalibrationMapFormat = "sift.calibration_map/1";
inline constexpr double kMaxLogOdds = 40.0;        // |logit| clamp: logit(1 - 4e-18)
inline constexpr size_t kMaxBreakpoints = 65536;   // a longer isotonic list in sift.json is refused

enum class CalibrationMethod { Temperature, Platt, Isotonic };
std::optional<CalibrationMethod> parse_calibration_method(std::string_view name);  // "temperature", ...
std::string_view calibration_method_name(CalibrationMethod method);

struct CalibrationMap {
  CalibrationMethod method = CalibrationMethod::Temperature;
  double temperature = 1.0;                 // temperature
  double a = 1.0, b = 0.0;                  // platt
  std::vector<double> scores;               // isotonic breakpoints: s_j, strictly increasing
  std::vector<double> probabilities;        // q_j, non-decreasing

  // The calibrated probability of a score p in [0, 1] (the formulas above), in [0, 1].
  double apply(double p) const;
};

// logit(p) clamped to [-kMaxLogOdds, kMaxLogOdds] (p in [0, 1]), and the sigmoid in the form
// that never overflows: what the parametric maps and their fits compute with.
double clamped_log_odds(double p);
double sigmoid(double x);

// Parses sift.json's "calibration_map" object (its method's parameters checked: T and a finite
// and positive, b finite; breakpoints two lists of equal length from 1 to kMaxBreakpoints,
// numbers in [0, 1], scores strictly increasing, probabilities non-decreasing); every violation
// is an Error naming `where` and the field ("calibration_map.breakpoints.score[3]").
CalibrationMap parse_calibration_map(const nlohmann::json& object, const std::string& where);

// The map's method fields: {"method", "parameters"} or {"method", "breakpoints"}.
nlohmann::ordered_json calibration_map_fields(const CalibrationMap& map);

// Which value a labeler's threshold applies to (sift.json "threshold_on").
enum class ThresholdOn { Score, Probability };
std::optional<ThresholdOn> parse_threshold_on(std::string_view name);  // "score", "probability"
std::string_view threshold_on_name(ThresholdOn on);

struct LabelRule {
  double threshold = 0.5;
  ThresholdOn on = ThresholdOn::Score;
};

// label = (score, or with ThresholdOn::Probability the probability) >= threshold; a tie is YES.
// Thresholding on a probability that is absent is an Error (sift.json's parse refuses
// "threshold_on": "probability" without a map, so it never happens there).
bool decide_label(double score, std::optional<double> probability, const LabelRule& rule);

}  // namespace sift
