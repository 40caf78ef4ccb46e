// The calibration map of sift.json (scoring/calibration_map.h): each method's apply() by its
// formula, the label rule, and hostile "calibration_map" / "threshold_on" fields refused with
// an Error naming the field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "scoring/artifact.h"
#include "scoring/calibration_map.h"

namespace sift {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json artifact_with(const json& map, const json& threshold_on = nullptr) {
  json a = {{"format", "sift.scoring/2"}, {"version", "1"},      {"query_template", "Q: {query}\n"},
            {"item_template", "I: {item}\nA:"}, {"yes", "YES"}, {"no", "NO"}, {"threshold", 0.5}};
  if (!map.is_null()) a["calibration_map"] = map;
  if (!threshold_on.is_null()) a["threshold_on"] = threshold_on;
  return a;
}

std::string artifact_error(const json& object) {
  try {
    parse_scoring_artifact(object, "dir/sift.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

json isotonic(const json& score, const json& probability) {
  return {{"format", "sift.calibration_map/1"}, {"method", "isotonic"},
          {"breakpoints", {{"score", score}, {"probability", probability}}}};
}

TEST(CalibrationMap, TemperatureDividesTheLogOdds) {
  const CalibrationMap map = parse_calibration_map(
      {{"format", "sift.calibration_map/1"}, {"method", "temperature"}, {"parameters", {{"temperature", 2.0}}}}, "x");
  for (double p : {0.01, 0.2, 0.5, 0.73, 0.999}) {
    const double z = std::log(p / (1 - p));
    EXPECT_NEAR(map.apply(p), 1 / (1 + std::exp(-z / 2)), 1e-15) << p;
  }
  EXPECT_EQ(map.apply(0.5), 0.5);
  // A score of exactly 0 or 1 is a saturated margin (|log-odds| clamped to 40), not certainty.
  EXPECT_NEAR(map.apply(1.0), 1 / (1 + std::exp(-20.0)), 1e-15);
  EXPECT_NEAR(map.apply(0.0), 1 / (1 + std::exp(20.0)), 1e-20);
}

TEST(CalibrationMap, PlattIsALineOnTheLogOdds) {
  const CalibrationMap map = parse_calibration_map(
      {{"format", "sift.calibration_map/1"}, {"method", "platt"}, {"parameters", {{"a", 0.5}, {"b", -1.0}}}}, "x");
  for (double p : {0.05, 0.5, 0.9}) {
    const double z = std::log(p / (1 - p));
    EXPECT_NEAR(map.apply(p), 1 / (1 + std::exp(-(0.5 * z - 1.0))), 1e-15) << p;
  }
}

TEST(CalibrationMap, IsotonicInterpolatesBetweenBreakpointsAndHoldsItsEnds) {
  const CalibrationMap map = parse_calibration_map(isotonic({0.2, 0.4, 0.8}, {0.1, 0.5, 0.5}), "x");
  EXPECT_EQ(map.apply(0.0), 0.1);   // below the first: its value
  EXPECT_EQ(map.apply(0.2), 0.1);
  EXPECT_NEAR(map.apply(0.3), 0.3, 1e-15);  // halfway from (0.2, 0.1) to (0.4, 0.5)
  EXPECT_EQ(map.apply(0.4), 0.5);
  EXPECT_EQ(map.apply(0.6), 0.5);
  EXPECT_EQ(map.apply(1.0), 0.5);   // above the last: its value
  const CalibrationMap one = parse_calibration_map(isotonic({0.5}, {0.7}), "x");
  EXPECT_EQ(one.apply(0.1), 0.7);
  EXPECT_EQ(one.apply(0.9), 0.7);
}

TEST(CalibrationMap, TheLabelFollowsThresholdOn) {
  EXPECT_TRUE(decide_label(0.6, 0.3, {0.5, ThresholdOn::Score}));
  EXPECT_FALSE(decide_label(0.6, 0.3, {0.5, ThresholdOn::Probability}));
  EXPECT_TRUE(decide_label(0.2, 0.5, {0.5, ThresholdOn::Probability}));  // a tie is YES
  EXPECT_TRUE(decide_label(0.5, std::nullopt, {0.5, ThresholdOn::Score}));
  EXPECT_THROW(decide_label(0.5, std::nullopt, {0.5, ThresholdOn::Probability}), Error);
}

TEST(CalibrationMap, AnArtifactCarriesItsMapAndThresholdOn) {
  const ScoringArtifact plain = parse_scoring_artifact(artifact_with(nullptr), "x");
  EXPECT_FALSE(plain.calibration_map);
  EXPECT_EQ(plain.threshold_on, ThresholdOn::Score);
  const ScoringArtifact a = parse_scoring_artifact(artifact_with(isotonic({0.1, 0.9}, {0.0, 1.0}), "probability"), "x");
  ASSERT_TRUE(a.calibration_map);
  EXPECT_EQ(a.calibration_map->method, CalibrationMethod::Isotonic);
  EXPECT_EQ(a.threshold_on, ThresholdOn::Probability);
}

TEST(CalibrationMap, HostileFieldsAreErrorsNamingTheField) {
  const json temperature = {{"format", "sift.calibration_map/1"}, {"method", "temperature"}};
  const double inf = std::numeric_limits<double>::infinity();
  const auto refused = [](const json& map, const json& threshold_on, const char* expected) {
    const std::string error = artifact_error(artifact_with(map, threshold_on));
    EXPECT_THAT(error, HasSubstr(expected)) << map.dump().substr(0, 200);
    EXPECT_THAT(error, HasSubstr("dir/sift.json")) << map.dump().substr(0, 200);
  };
  json with_parameters = temperature;
  const auto temperature_of = [&](const json& t) {
    json map = temperature;
    map["parameters"] = {{"temperature", t}};
    return map;
  };
  refused("temperature", nullptr, "\"calibration_map\" must be an object");
  refused(json{{"method", "platt"}}, nullptr, "\"calibration_map.format\"");
  refused(json{{"format", "sift.calibration_map/1"}, {"method", "sigmoid"}}, nullptr, "\"calibration_map.method\"");
  refused(temperature_of(0.0), nullptr, "\"calibration_map.parameters.temperature\" must be positive");
  refused(temperature_of(-1.0), nullptr, "must be positive");
  refused(temperature_of("2"), nullptr, "must be a number");
  refused(temperature_of(inf), nullptr, "must be finite");
  with_parameters["parameters"] = json::object();
  refused(with_parameters, nullptr, "missing field \"calibration_map.parameters.temperature\"");
  refused(json{{"format", "sift.calibration_map/1"}, {"method", "platt"}, {"parameters", {{"a", -0.5}, {"b", 0}}}},
          nullptr, "\"calibration_map.parameters.a\" must be positive");
  refused(isotonic({0.2, 0.2}, {0.1, 0.2}), nullptr, "\"calibration_map.breakpoints.score[1]\"");
  refused(isotonic({0.1, 0.3, 0.2}, {0.1, 0.2, 0.3}), nullptr, "strictly increasing");
  refused(isotonic({0.1, 0.2}, {0.5, 0.4}), nullptr, "\"calibration_map.breakpoints.probability[1]\"");
  refused(isotonic({0.1, 1.5}, {0.1, 0.2}), nullptr, "\"calibration_map.breakpoints.score[1]\" must be in [0, 1]");
  refused(isotonic({0.1, 0.2}, {0.1, -0.2}), nullptr,
          "\"calibration_map.breakpoints.probability[1]\" must be in [0, 1]");
  refused(isotonic({0.1, 0.2}, json::array({0.1, nullptr})), nullptr,
          "\"calibration_map.breakpoints.probability[1]\" must be a number");
  refused(isotonic({0.1, 0.2}, json::array({0.1})), nullptr, "hold 2 and 1 numbers");
  refused(isotonic(json::array(), json::array()), nullptr, "is empty");
  refused(isotonic(std::vector<double>(kMaxBreakpoints + 1, 0.5), std::vector<double>(kMaxBreakpoints + 1, 0.5)),
          nullptr, "more than the 65536");
  refused(nullptr, "probability", "no \"calibration_map\"");
  refused(nullptr, "calibrated", "\"threshold_on\" must be \"score\" or \"probability\"");
  refused(isotonic({0.5}, {0.5}), 1, "\"threshold_on\" must be");
}

}  // namespace
}  // namespace sift
