// The Q8 product (kernels/gemm_q8.h): each fast kernel (AVX-VNNI where the CPU has it, and
// AVX2) bitwise equal to the plain reference; rows independent of their companions and of
// the thread count; the block quantization as documented; close to the F32 product.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm.h"
#include "kernels/gemm_q8.h"
#include "random_vectors.h"

namespace sift {
namespace {

using testing::random_vector;

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Every kernel this CPU can run (each is checked against the reference).
std::vector<std::pair<Q8Kernel, std::string>> q8_kernels() {
  std::vector<std::pair<Q8Kernel, std::string>> kernels = {{Q8Kernel::Best, "best"}, {Q8Kernel::Avx2, "AVX2"}};
  if (cpu_has_avx_vnni()) kernels.emplace_back(Q8Kernel::AvxVnni, "AVX-VNNI");
  if (cpu_has_avx512_vnni()) kernels.emplace_back(Q8Kernel::Avx512Vnni, "AVX-512 VNNI");
  return kernels;
}

// Shapes with row tails (M % 4), column tails (N % 16), K tails inside a block (K % 32) and
// K past one slice of 4096; and one M past a 144-row block; N past 4 panels per thread.
const std::tuple<int, int, int> kShapes[] = {{1, 1, 1},    {7, 33, 300},  {13, 16, 256}, {64, 70, 513},
                                             {5, 250, 64}, {150, 20, 96}, {3, 17, 31},   {6, 40, 4100},
                                             {9, 33, 8300}, {12, 150, 64}};

TEST(GemmQ8, FastKernelsEqualReferenceBitwise) {
  for (auto [m, n, k] : kShapes) {
    const auto a = random_vector(size_t(m) * k, 1);
    const auto w = random_vector(size_t(n) * k, 2, 0.05f);
    const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, PackedType::Q8);
    std::vector<float> reference(size_t(m) * n), dispatched(reference.size());
    gemm_q8_reference(a.data(), m, k, packed, reference.data(), n);
    gemm(a.data(), m, k, packed, dispatched.data(), n);
    const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    EXPECT_TRUE(bitwise_equal(dispatched, reference)) << shape;
    for (const auto& [kernel, name] : q8_kernels()) {
      std::vector<float> fast(reference.size());
      gemm_q8(a.data(), m, k, packed, fast.data(), n, kernel);
      EXPECT_TRUE(bitwise_equal(fast, reference)) << shape << ", " << name;
    }
  }
}

// ctest runs this program again with SIFT_CPU_WITHOUT=avx512_vnni and with
// SIFT_CPU_WITHOUT=avx512_vnni,avx_vnni (kernels/cpu_features.h), as on CPUs without them: the
// best kernel is then the next one down (its products checked above against the reference),
// and asking for a withheld one fails.
TEST(GemmQ8, WithheldInstructionsFallBack) {
  if (!cpu_feature_withheld("avx512_vnni")) GTEST_SKIP() << "SIFT_CPU_WITHOUT does not list avx512_vnni";
  EXPECT_FALSE(cpu_has_avx512_vnni());
  const auto a = random_vector(size_t(5) * 64, 1);
  const auto w = random_vector(size_t(20) * 64, 2, 0.05f);
  const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), 20, 64, PackedType::Q8);
  std::vector<float> c(size_t(5) * 20);
  EXPECT_THROW(gemm_q8(a.data(), 5, 64, packed, c.data(), 20, Q8Kernel::Avx512Vnni), Error);
  if (cpu_feature_withheld("avx_vnni")) {
    EXPECT_FALSE(cpu_has_avx_vnni());
    EXPECT_THROW(gemm_q8(a.data(), 5, 64, packed, c.data(), 20, Q8Kernel::AvxVnni), Error);
  }
}

TEST(GemmQ8, CloseToTheF32Product) {
  // Per block the rounding error of a and w is at most d / 2 each, d = max|x| / 127: the
  // product's error is a few parts in a thousand of the sum of |a| |w|.
  for (auto [m, n, k] : kShapes) {
    const auto a = random_vector(size_t(m) * k, 3);
    const auto w = random_vector(size_t(n) * k, 4, 0.05f);
    const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, PackedType::Q8);
    std::vector<float> c(size_t(m) * n);
    gemm_q8(a.data(), m, k, packed, c.data(), n);
    double worst = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double exact = 0, magnitude = 0;
        for (int kk = 0; kk < k; ++kk) {
          exact += double(a[i * k + kk]) * w[j * k + kk];
          magnitude += std::fabs(double(a[i * k + kk]) * w[j * k + kk]);
        }
        worst = std::max(worst, std::fabs(c[i * n + j] - exact) / magnitude);
      }
    EXPECT_LT(worst, 0.02) << m << "x" << n << "x" << k;
    EXPECT_GT(worst, 0.0) << "Q8 should round something";
  }
}

TEST(GemmQ8, RowResultDoesNotDependOnOtherRowsOrThreads) {
  const int k = 300, n = 45, total = 150;
  const auto w = random_vector(size_t(n) * k, 5, 0.05f);
  const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, PackedType::Q8);
  const auto a = random_vector(size_t(total) * k, 6);
  std::vector<float> all(size_t(total) * n);
  gemm_q8(a.data(), total, k, packed, all.data(), n);
  for (int m : {1, 2, 3, 4, 5, 11, 145}) {
    for (int threads : {1, 2, 3}) {
      set_n_threads(threads);
      std::vector<float> some(size_t(m) * n);
      const int first = total - m;  // the last m rows, computed alone
      gemm_q8(a.data() + first * k, m, k, packed, some.data(), n);
      EXPECT_EQ(std::memcmp(some.data(), all.data() + first * n, some.size() * sizeof(float)), 0)
          << "m=" << m << " threads=" << threads;
    }
  }
  set_n_threads(2);
}

TEST(GemmQ8, GemvRowsEqualsGemmColumns) {
  const int k = 130, n = 40;
  const auto w = random_vector(size_t(n) * k, 7, 0.05f);
  const auto a = random_vector(size_t(k), 8);
  const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, PackedType::Q8);
  std::vector<float> full(n);
  gemm(a.data(), 1, k, packed, full.data(), n);
  const std::vector<int32_t> rows = {39, 0, 17};
  std::vector<float> some(rows.size());
  gemv_rows(a.data(), packed, rows.data(), 3, some.data());
  for (size_t r = 0; r < rows.size(); ++r) EXPECT_EQ(some[r], full[rows[r]]);
}

TEST(GemmQ8, BlocksHoldScaleTimesRoundedQuotient) {
  // One row of 40 values: block 0 = k 0..31, block 1 = k 32..39 (zero-padded). The largest
  // magnitude of a block maps to +-127; every value is d * round(x / d).
  std::vector<float> row(40);
  for (int k = 0; k < 40; ++k) row[k] = 0.1f * float(k - 20) + (k == 7 ? 5.0f : 0.0f);
  const PackedMatrix packed = PackedMatrix::from_row_major(row.data(), 1, 40, PackedType::Q8);
  EXPECT_EQ(packed.n_q8_blocks(), 2);
  for (int block = 0; block < 2; ++block) {
    float amax = 0;
    for (int k = 32 * block; k < std::min(40, 32 * block + 32); ++k) amax = std::max(amax, std::fabs(row[k]));
    const float d = amax / 127.0f;
    EXPECT_EQ(packed.q8_scales(0)[block * PackedMatrix::kPanelWidth], d);
    for (int k = 32 * block; k < std::min(40, 32 * block + 32); ++k) {
      EXPECT_EQ(packed.at(0, k), d * std::nearbyint(row[k] * (1.0f / d))) << "k=" << k;
      EXPECT_NEAR(packed.at(0, k), row[k], d / 2 * 1.0001) << "k=" << k;
    }
  }
  EXPECT_EQ(packed.at(0, 7), packed.q8_scales(0)[0] * 127.0f);  // block 0's largest value, 3.7, is q = 127
  // An all-zero block has scale 0 and gives zeros (no division by zero).
  const std::vector<float> zeros(32, 0.0f);
  const PackedMatrix zero = PackedMatrix::from_row_major(zeros.data(), 1, 32, PackedType::Q8);
  EXPECT_EQ(zero.q8_scales(0)[0], 0.0f);
  EXPECT_EQ(zero.at(0, 5), 0.0f);
}

}  // namespace
}  // namespace sift
