#include "scoring/calibration_map.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace sift {
namespace {

using nlohmann::json;

// A finite number field of `object` (the map's parameters), named "calibration_map.<path>".
double map_number(const json& object, const char* key, const std::string& where, const std::string& path) {
  auto it = object.find(key);
  if (it == object.end()) fail("{}: missing field \"{}.{}\"", where, path, key);
  if (!it->is_number()) fail("{}: field \"{}.{}\" must be a number, got {}", where, path, key, it->dump());
  const double value = it->get<double>();
  if (!std::isfinite(value)) fail("{}: field \"{}.{}\" must be finite, got {}", where, path, key, it->dump());
  return value;
}

// One breakpoint list: numbers in [0, 1], at most kMaxBreakpoints.
std::vector<double> breakpoint_list(const json& breakpoints, const char* key, const std::string& where) {
  const std::string field = fmt::format("calibration_map.breakpoints.{}", key);
  auto it = breakpoints.find(key);
  if (it == breakpoints.end()) fail("{}: missing field \"{}\"", where, field);
  if (!it->is_array()) fail("{}: field \"{}\" must be a list of numbers, got {}", where, field, it->type_name());
  if (it->empty()) fail("{}: field \"{}\" is empty; an isotonic map needs at least one breakpoint", where, field);
  if (it->size() > kMaxBreakpoints)
    fail("{}: field \"{}\" has {} breakpoints, more than the {} sift reads", where, field, it->size(), kMaxBreakpoints);
  std::vector<double> values;
  values.reserve(it->size());
  for (size_t j = 0; j < it->size(); ++j) {
    const json& value = (*it)[j];
    if (!value.is_number()) fail("{}: field \"{}[{}]\" must be a number, got {}", where, field, j, value.dump());
    const double x = value.get<double>();
    if (!(x >= 0.0 && x <= 1.0)) fail("{}: field \"{}[{}]\" must be in [0, 1], got {}", where, field, j, value.dump());
    values.push_back(x);
  }
  return values;
}

}  // namespace

std::optional<CalibrationMethod> parse_calibration_method(std::string_view name) {
  if (name == "temperature") return CalibrationMethod::Temperature;
  if (name == "platt") return CalibrationMethod::Platt;
  if (name == "isotonic") return CalibrationMethod::Isotonic;
  return std::nullopt;
}

std::string_view calibration_method_name(CalibrationMethod method) {
  switch (method) {
    case CalibrationMethod::Temperature: return "temperature";
    case CalibrationMethod::Platt: return "platt";
    case CalibrationMethod::Isotonic: return "isotonic";
  }
  return "?";
}

double clamped_log_odds(double p) {
  if (p <= 0.0) return -kMaxLogOdds;
  if (p >= 1.0) return kMaxLogOdds;
  return std::clamp(std::log(p) - std::log1p(-p), -kMaxLogOdds, kMaxLogOdds);
}

double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

double CalibrationMap::apply(double p) const {
  switch (method) {
    case CalibrationMethod::Temperature: return sigmoid(clamped_log_odds(p) / temperature);
    case CalibrationMethod::Platt: return sigmoid(a * clamped_log_odds(p) + b);
    case CalibrationMethod::Isotonic: {
      if (p <= scores.front()) return probabilities.front();
      if (p >= scores.back()) return probabilities.back();
      // s_j <= p < s_{j+1}: upper_bound finds s_{j+1}, the first breakpoint above p.
      const size_t next = static_cast<size_t>(std::upper_bound(scores.begin(), scores.end(), p) - scores.begin());
      const size_t j = next - 1;
      const double t = (p - scores[j]) / (scores[next] - scores[j]);
      return probabilities[j] + t * (probabilities[next] - probabilities[j]);
    }
  }
  return p;
}

CalibrationMap parse_calibration_map(const json& object, const std::string& where) {
  if (!object.is_object()) fail("{}: field \"calibration_map\" must be an object, got {}", where, object.type_name());
  auto format = object.find("format");
  if (format == object.end() || !format->is_string() || format->get<std::string>() != kCalibrationMapFormat)
    fail("{}: field \"calibration_map.format\" must be \"{}\", got {}", where, kCalibrationMapFormat,
         format == object.end() ? std::string("nothing") : format->dump());
  auto method = object.find("method");
  if (method == object.end()) fail("{}: missing field \"calibration_map.method\"", where);
  const std::optional<CalibrationMethod> parsed =
      method->is_string() ? parse_calibration_method(method->get<std::string>()) : std::nullopt;
  if (!parsed)
    fail("{}: field \"calibration_map.method\" must be \"temperature\", \"platt\" or \"isotonic\", got {}", where,
         method->dump());
  CalibrationMap map;
  map.method = *parsed;
  if (map.method == CalibrationMethod::Isotonic) {
    auto breakpoints = object.find("breakpoints");
    if (breakpoints == object.end() || !breakpoints->is_object())
      fail("{}: field \"calibration_map.breakpoints\" must be an object {{\"score\": [...], \"probability\": [...]}}",
           where);
    map.scores = breakpoint_list(*breakpoints, "score", where);
    map.probabilities = breakpoint_list(*breakpoints, "probability", where);
    if (map.scores.size() != map.probabilities.size())
      fail("{}: fields \"calibration_map.breakpoints.score\" and \".probability\" hold {} and {} numbers; they pair up",
           where, map.scores.size(), map.probabilities.size());
    for (size_t j = 1; j < map.scores.size(); ++j) {
      if (!(map.scores[j] > map.scores[j - 1]))
        fail("{}: field \"calibration_map.breakpoints.score[{}]\" is {}, not above the one before it ({}): the scores "
             "must be strictly increasing",
             where, j, map.scores[j], map.scores[j - 1]);
      if (!(map.probabilities[j] >= map.probabilities[j - 1]))
        fail("{}: field \"calibration_map.breakpoints.probability[{}]\" is {}, below the one before it ({}): the map "
             "must be non-decreasing",
             where, j, map.probabilities[j], map.probabilities[j - 1]);
    }
    return map;
  }
  auto parameters = object.find("parameters");
  if (parameters == object.end() || !parameters->is_object())
    fail("{}: field \"calibration_map.parameters\" must be an object", where);
  const std::string path = "calibration_map.parameters";
  if (map.method == CalibrationMethod::Temperature) {
    map.temperature = map_number(*parameters, "temperature", where, path);
    if (!(map.temperature > 0)) fail("{}: field \"{}.temperature\" must be positive, got {}", where, path, map.temperature);
  } else {
    map.a = map_number(*parameters, "a", where, path);
    map.b = map_number(*parameters, "b", where, path);
    if (!(map.a > 0))
      fail("{}: field \"{}.a\" must be positive (a map that falls as the score rises), got {}", where, path, map.a);
  }
  return map;
}

nlohmann::ordered_json calibration_map_fields(const CalibrationMap& map) {
  nlohmann::ordered_json out;
  out["method"] = std::string(calibration_method_name(map.method));
  switch (map.method) {
    case CalibrationMethod::Temperature: out["parameters"] = {{"temperature", map.temperature}}; break;
    case CalibrationMethod::Platt: out["parameters"] = {{"a", map.a}, {"b", map.b}}; break;
    case CalibrationMethod::Isotonic:
      out["breakpoints"] = {{"score", map.scores}, {"probability", map.probabilities}};
      break;
  }
  return out;
}

std::optional<ThresholdOn> parse_threshold_on(std::string_view name) {
  if (name == "score") return ThresholdOn::Score;
  if (name == "probability") return ThresholdOn::Probability;
  return std::nullopt;
}

std::string_view threshold_on_name(ThresholdOn on) { return on == ThresholdOn::Probability ? "probability" : "score"; }

bool decide_label(double score, std::optional<double> probability, const LabelRule& rule) {
  if (rule.on == ThresholdOn::Score) return score >= rule.threshold;
  if (!probability) fail("the threshold applies to the calibrated probability, but the labeler has no calibration map");
  return *probability >= rule.threshold;
}

}  // namespace sift
