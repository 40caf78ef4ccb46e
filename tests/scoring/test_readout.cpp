#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "scoring/readout.h"

namespace sift {
namespace {

TEST(Readout, IsTheTwoWaySoftmax) {
  for (auto [yes, no] : {std::pair{1.5f, -0.5f}, {0.0f, 0.0f}, {-3.0f, 2.0f}, {10.0f, 9.5f}}) {
    const double expected = std::exp(double(yes)) / (std::exp(double(yes)) + std::exp(double(no)));
    EXPECT_NEAR(yes_probability(yes, no), expected, 1e-15);
  }
  EXPECT_EQ(yes_probability(0.0f, 0.0f), 0.5);
}

TEST(Readout, IsStableForHugeLogits) {
  EXPECT_EQ(yes_probability(1e30f, -1e30f), 1.0);
  EXPECT_EQ(yes_probability(-1e30f, 1e30f), 0.0);
  EXPECT_NEAR(yes_probability(1000.0f, 1001.0f), 1 / (1 + std::exp(1.0)), 1e-15);
  const double tiny = yes_probability(-300.0f, 300.0f);  // exp(-600) ~ 2.6e-261: kept, not rounded to 0
  EXPECT_GT(tiny, 0.0);
  EXPECT_NEAR(tiny / std::exp(-600.0), 1.0, 1e-12);
  EXPECT_FALSE(std::isnan(yes_probability(std::numeric_limits<float>::max(), -std::numeric_limits<float>::max())));
}

TEST(Readout, ANonFiniteLogitIsNeverAProbability) {  // not a confident 0 or 1: the row's error
  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  for (auto [yes, no] : {std::pair{inf, 0.0f}, {0.0f, inf}, {-inf, 0.0f}, {0.0f, -inf}, {inf, inf}, {nan, 1.0f}}) {
    EXPECT_TRUE(std::isnan(yes_probability(yes, no))) << yes << " " << no;
    EXPECT_FALSE(is_probability(yes_probability(yes, no)));
  }
  for (double score : {0.0, 1e-300, 0.5, 1.0}) EXPECT_TRUE(is_probability(score)) << score;
  for (double score : {-1e-300, 1.0000001, double(inf), double(nan)}) EXPECT_FALSE(is_probability(score)) << score;
  EXPECT_EQ(not_a_probability_message("item 3", double(nan)), "item 3 scored nan: the model's logits are not finite");
}

TEST(Readout, DependsOnlyOnTheMarginAndIsSymmetric) {
  EXPECT_EQ(yes_probability(3.0f, 1.0f), yes_probability(102.0f, 100.0f));
  EXPECT_NEAR(yes_probability(0.75f, -0.25f) + yes_probability(-0.25f, 0.75f), 1.0, 1e-15);
}

TEST(Readout, TiesGoToYes) {
  EXPECT_TRUE(label_of(0.5, 0.5));
  EXPECT_FALSE(label_of(std::nextafter(0.5, 0.0), 0.5));
  EXPECT_TRUE(label_of(0.0, 0.0));
  EXPECT_TRUE(label_of(1.0, 1.0));
  EXPECT_FALSE(label_of(0.99, 1.0));
}

}  // namespace
}  // namespace sift
