// Fitting calibration maps (workflows/calibration_fit.h) on made data, and ECE / Brier
// (workflows/reliability.h) of small cases worked by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/error.h"
#include "workflows/calibration_fit.h"
#include "workflows/reliability.h"

namespace sift {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

double logistic(double x) { return 1 / (1 + std::exp(-x)); }

// Items whose YES rate at each log-odds z on a grid is exactly (to 1/copies) truth(z): the
// maximum-likelihood fit of a family that holds truth recovers its parameters.
template <typename Truth>
void made_items(Truth truth, std::vector<double>& scores, std::vector<bool>& labels, int copies = 5000) {
  for (int k = -20; k <= 20; ++k) {
    const double z = 0.25 * k;
    const auto yes = static_cast<int>(std::lround(copies * truth(z)));
    for (int c = 0; c < copies; ++c) {
      scores.push_back(logistic(z));
      labels.push_back(c < yes);
    }
  }
}

TEST(CalibrationFit, TemperatureRecoversAKnownTemperature) {
  for (double t : {0.5, 1.0, 2.5}) {
    std::vector<double> scores;
    std::vector<bool> labels;
    made_items([t](double z) { return logistic(z / t); }, scores, labels);
    const CalibrationMap map = fit_temperature(scores, labels);
    EXPECT_EQ(map.method, CalibrationMethod::Temperature);
    EXPECT_NEAR(map.temperature, t, 2e-3 * t) << t;
  }
}

TEST(CalibrationFit, PlattRecoversAKnownSlopeAndIntercept) {
  std::vector<double> scores;
  std::vector<bool> labels;
  made_items([](double z) { return logistic(0.7 * z - 0.4); }, scores, labels);
  const CalibrationMap map = fit_platt(scores, labels);
  EXPECT_NEAR(map.a, 0.7, 2e-3);
  EXPECT_NEAR(map.b, -0.4, 2e-3);
}

TEST(CalibrationFit, AFitThatWouldFallIsRefused) {  // scores that rank YES below NO
  const std::vector<double> scores = {0.1, 0.2, 0.8, 0.9, 0.3, 0.7};
  const std::vector<bool> labels = {true, true, false, false, true, false};
  EXPECT_THAT([&] { fit_temperature(scores, labels); }, ::testing::ThrowsMessage<Error>(HasSubstr("not positive")));
  EXPECT_THAT([&] { fit_platt(scores, labels); }, ::testing::ThrowsMessage<Error>(HasSubstr("not positive")));
}

TEST(CalibrationFit, SeparableItemsGiveASteepFiniteMap) {
  const std::vector<double> scores = {0.1, 0.2, 0.3, 0.7, 0.8, 0.9};
  const std::vector<bool> labels = {false, false, false, true, true, true};
  const CalibrationMap map = fit_temperature(scores, labels);
  EXPECT_TRUE(std::isfinite(map.temperature));
  EXPECT_GT(map.temperature, 0);
  EXPECT_LT(map.apply(0.3), 0.01);
  EXPECT_GT(map.apply(0.7), 0.99);
}

TEST(CalibrationFit, IsotonicIsThePoolAdjacentViolatorsAnswer) {
  // By hand: the tie at 0.4 pools first (1 of 2: 0.5); 0.2 (YES) and 0.3 (NO) violate and pool
  // (0.5); 0.5 then 0.5 is no violation. Blocks: 0.1 -> 0, [0.2, 0.3] -> 0.5, 0.4 -> 0.5,
  // 0.6 -> 1. Breakpoints (0.1, 0) (0.2, 0.5) (0.3, 0.5) (0.4, 0.5) (0.6, 1), and (0.3, 0.5),
  // flat on both sides, dropped.
  const std::vector<double> scores = {0.3, 0.1, 0.4, 0.2, 0.4, 0.6};
  const std::vector<bool> labels = {false, false, true, true, false, true};
  const CalibrationMap map = fit_isotonic(scores, labels);
  EXPECT_THAT(map.scores, ElementsAre(0.1, 0.2, 0.4, 0.6));
  EXPECT_THAT(map.probabilities, ElementsAre(0.0, 0.5, 0.5, 1.0));
  EXPECT_NEAR(map.apply(0.15), 0.25, 1e-15);
  EXPECT_NEAR(map.apply(0.5), 0.75, 1e-15);
  EXPECT_EQ(map.apply(0.05), 0.0);
  EXPECT_EQ(map.apply(0.95), 1.0);
}

TEST(CalibrationFit, IsotonicPoolsATieBeforeItsNeighbours) {
  // 0.2: 3 of 5 YES (0.6); the tie at 0.4: 9 of 10 (0.9) is above it, so nothing pools. Its
  // NO item alone (0) would pool with 0.2's block: tied items are one block first.
  std::vector<double> scores = {0.2, 0.2, 0.2, 0.2, 0.2};
  std::vector<bool> labels = {true, true, true, false, false};
  scores.push_back(0.4);
  labels.push_back(false);
  for (int k = 0; k < 9; ++k) {
    scores.push_back(0.4);
    labels.push_back(true);
  }
  const CalibrationMap map = fit_isotonic(scores, labels);
  EXPECT_THAT(map.scores, ElementsAre(0.2, 0.4));
  EXPECT_THAT(map.probabilities, ElementsAre(0.6, 0.9));
}

TEST(CalibrationFit, OneLabelOrBadScoresAreErrors) {
  EXPECT_THAT([] { fit_isotonic(std::vector<double>{0.1, 0.2}, {true, true}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("both labels")));
  EXPECT_THAT([] { fit_platt(std::vector<double>{0.1, NAN}, {true, false}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("item 1 has score nan")));
  EXPECT_THAT([] { fit_temperature(std::vector<double>{}, {}); }, ::testing::ThrowsMessage<Error>(HasSubstr("no items")));
}

TEST(Reliability, EceAndBrierOfASmallCaseByHand) {
  // Bins of width 1/15. 0.05 and 0.06 share bin 0 (mean 0.055, YES rate 0.5: gap 0.445);
  // 0.95 is in bin 14 (YES rate 1: gap 0.05); 1.0 closes bin 14 too (mean 0.975, gap 0.025).
  // ECE = 2/4 * 0.445 + 2/4 * 0.025 = 0.235.
  // Brier = (0.05^2 + 0.94^2 + 0.05^2 + 0) / 4 = (0.0025 + 0.8836 + 0.0025) / 4 = 0.22215.
  const std::vector<double> p = {0.05, 0.06, 0.95, 1.0};
  const std::vector<bool> y = {false, true, true, true};
  const Reliability r = reliability(p, y);
  ASSERT_EQ(r.bins.size(), 15u);
  EXPECT_EQ(r.bins[0].n, 2);
  EXPECT_EQ(r.bins[14].n, 2);
  EXPECT_NEAR(r.bins[0].mean_probability, 0.055, 1e-15);
  EXPECT_EQ(r.bins[0].yes_rate, 0.5);
  EXPECT_NEAR(r.ece, 0.235, 1e-15);
  EXPECT_NEAR(r.brier, 0.22215, 1e-15);
  EXPECT_NEAR(r.bins[1].lo, 1.0 / 15, 1e-15);
}

TEST(Reliability, PerfectlyCalibratedBinsHaveNoGap) {
  // Two items at 0.5, one YES: the bin's rate equals its mean; Brier 0.25.
  const Reliability r = reliability(std::vector<double>{0.5, 0.5}, {true, false});
  EXPECT_EQ(r.ece, 0.0);
  EXPECT_EQ(r.brier, 0.25);
}

TEST(Reliability, RefusesWhatIsNotAProbability) {
  EXPECT_THAT([] { reliability(std::vector<double>{0.5, 1.5}, {true, false}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("item 1 has probability 1.5")));
  EXPECT_THROW(reliability(std::vector<double>{0.5}, {true, false}), Error);
}

}  // namespace
}  // namespace sift
