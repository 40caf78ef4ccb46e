// The vectorised exp and fixed-order sum: accuracy against libm / double, and the fast
// path bitwise equal to its plain twin (so results never depend on the CPU's features).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/vector_math.h"

namespace sift {
namespace {

std::vector<float> uniform_values(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

TEST(VectorMath, ExpIsWithinTwoUlpOfLibm) {
  std::vector<float> x = uniform_values(200000, -87.0f, 88.0f, 1);
  for (float special : {0.0f, -0.0f, 1e-30f, -1e-30f, 1.0f, -1.0f, 0.5f, 88.0f, -87.0f}) x.push_back(special);
  std::vector<float> y = x;
  exp_inplace(y.data(), static_cast<int64_t>(y.size()));
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double expected = std::exp(double(x[i]));
    const double rel = std::abs(y[i] - expected) / expected;
    worst = std::max(worst, rel);
    ASSERT_LE(rel, 2.5e-7) << "exp(" << x[i] << ") = " << y[i] << ", libm " << expected;
  }
  EXPECT_GT(worst, 0.0);  // a sanity check that the comparison saw float rounding at all
  EXPECT_EQ(exp_plain(0.0f), 1.0f);
}

TEST(VectorMath, ExpClampsOutsideTheNormalRange) {
  std::vector<float> x = {-87.5f, -1000.0f, -std::numeric_limits<float>::infinity(), 88.5f, 1000.0f};
  exp_inplace(x.data(), static_cast<int64_t>(x.size()));
  EXPECT_EQ(x[0], 0.0f);
  EXPECT_EQ(x[1], 0.0f);
  EXPECT_EQ(x[2], 0.0f);
  EXPECT_TRUE(std::isfinite(x[3]) && x[3] > 1e38f);
  EXPECT_TRUE(std::isfinite(x[4]) && x[4] > 1e38f);
}

TEST(VectorMath, ExpFastEqualsPlainBitwise) {
  for (size_t n : {1u, 7u, 8u, 9u, 1001u}) {
    const std::vector<float> x = uniform_values(n, -100.0f, 100.0f, static_cast<uint32_t>(n));
    std::vector<float> fast = x;
    exp_inplace(fast.data(), static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) {
      const float plain = exp_plain(x[i]);
      ASSERT_EQ(std::memcmp(&plain, &fast[i], sizeof(float)), 0) << "x = " << x[i];
    }
  }
}

TEST(VectorMath, SumFixedOrderIsExactEnoughAndEqualsPlain) {
  for (int64_t n = 0; n <= 40; ++n) {
    const std::vector<float> x = uniform_values(static_cast<size_t>(n), 0.0f, 1.0f, static_cast<uint32_t>(100 + n));
    const float fast = sum_fixed_order(x.data(), n), plain = sum_fixed_order_plain(x.data(), n);
    ASSERT_EQ(std::memcmp(&fast, &plain, sizeof(float)), 0) << "n = " << n;
    double exact = 0;
    for (float v : x) exact += v;
    ASSERT_NEAR(fast, exact, 1e-6 * (1 + exact)) << "n = " << n;
  }
  // The order is the documented one: lane l sums elements l, l+8, ...; then the tree; then the tail.
  const std::vector<float> x = {1e8f, 1, 0, 0, 0, 0, 0, 0, -1e8f, 1, 0, 0, 0, 0, 0, 0, 1};
  // lane 0: 1e8 + -1e8 = 0; lane 1: 2; tree: 2; tail: + 1.
  EXPECT_EQ(sum_fixed_order(x.data(), 17), 3.0f);
}

TEST(VectorMath, ExpShiftedSumIsTheThreeStepsInOnePass) {
  // exp_shifted_sum (16 or 8 lanes at a time) against subtracting, exp_inplace and
  // sum_fixed_order in turn, and against its plain twin: the same bits, every length around
  // the vector widths.
  for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 772, 1001}) {
    const std::vector<float> x = uniform_values(static_cast<size_t>(n), -30.0f, 5.0f, static_cast<uint32_t>(7 + n));
    const float shift = 3.25f;
    std::vector<float> steps = x, fused = x, plain = x;
    for (float& v : steps) v -= shift;
    exp_inplace(steps.data(), n);
    const float steps_sum = sum_fixed_order(steps.data(), n);
    const float fused_sum = exp_shifted_sum(fused.data(), n, shift);
    const float plain_sum = exp_shifted_sum_plain(plain.data(), n, shift);
    ASSERT_EQ(std::memcmp(steps.data(), fused.data(), n * sizeof(float)), 0) << "n = " << n;
    ASSERT_EQ(std::memcmp(steps.data(), plain.data(), n * sizeof(float)), 0) << "n = " << n;
    ASSERT_EQ(std::memcmp(&steps_sum, &fused_sum, sizeof(float)), 0) << "n = " << n;
    ASSERT_EQ(std::memcmp(&steps_sum, &plain_sum, sizeof(float)), 0) << "n = " << n;
  }
}

}  // namespace
}  // namespace sift
