// BF16 compute (kernels/gemm_bf16.h): each kernel this CPU offers (AMX, AVX512_BF16) bitwise
// equal to the plain reference of its chain, including where the hardware's own rounding
// rules show (denormal operands read as zero, denormal results flushed, ties of A's rounding,
// K slices and row blocks); rows independent of their companions and of the thread count;
// the two kernels' chains really differ; close to the F32 product.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm.h"
#include "kernels/gemm_bf16.h"
#include "random_vectors.h"

namespace sift {
namespace {

using testing::random_vector;

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<Bf16Kernel> kernels_here() {
  std::vector<Bf16Kernel> kernels;
  for (Bf16Kernel kernel : {Bf16Kernel::Avx512Bf16, Bf16Kernel::Amx})
    if (bf16_kernel_available(kernel)) kernels.push_back(kernel);
  return kernels;
}

// Runs fn once per kernel this CPU offers, with that kernel active; skips where there is none.
template <typename Fn>
void for_each_kernel(Fn&& fn) {
  const std::vector<Bf16Kernel> kernels = kernels_here();
  if (kernels.empty()) GTEST_SKIP() << "no BF16 compute on this CPU";
  const Bf16Kernel saved = bf16_kernel();
  for (Bf16Kernel kernel : kernels) {
    SCOPED_TRACE(bf16_kernel_name(kernel));
    set_bf16_kernel(kernel);
    fn(kernel);
  }
  set_bf16_kernel(saved);
}

std::string shape_name(int m, int n, int k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// C by the active kernel (through gemm's dispatch) and by the reference of its chain.
void expect_kernel_equals_reference(const std::vector<float>& a, const std::vector<float>& w, int m, int n, int k,
                                    Bf16Kernel kernel, const std::string& what) {
  const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, PackedType::BF16Dot);
  std::vector<float> fast(size_t(m) * n), reference(fast.size());
  gemm(a.data(), m, k, packed, fast.data(), n);
  gemm_bf16_reference(a.data(), m, k, packed, reference.data(), n, kernel);
  EXPECT_TRUE(bitwise_equal(fast, reference)) << what << " " << shape_name(m, n, k);
  for (size_t i = 0; i < fast.size(); ++i)
    if (std::bit_cast<uint32_t>(fast[i]) != std::bit_cast<uint32_t>(reference[i])) {
      ADD_FAILURE() << "first difference at " << i << ": " << fast[i] << " vs " << reference[i];
      break;
    }
}

// Shapes with row tails (M % 6, M % 32), column tails (N % 16, one panel vs two), K tails
// inside a block (K % 32, odd K), K past an AVX512_BF16 slice (256) and an AMX slice (4096),
// M past a row block (more than 512 rows at K = 1024 on a 2 MiB L2); for the AVX512_BF16
// kernel's 12-row micro-panels, M % 12 from 1 to 11 and whole, K tails inside its 16-k
// packing steps, K past two of its 512-k slices, and a thread's panels past one column block
// (more than 16 panels each on 2 threads).
const std::tuple<int, int, int> kShapes[] = {{1, 1, 1},     {7, 33, 300},   {13, 16, 256},  {64, 70, 513},
                                             {5, 250, 64},  {150, 20, 96},  {3, 17, 31},    {33, 40, 4200},
                                             {40, 48, 1031}, {600, 20, 1024}, {25, 600, 1100}, {12, 40, 520},
                                             {24, 17, 40},  {11, 48, 1030}};

TEST(GemmBf16, KernelsEqualTheirReferenceBitwise) {
  for_each_kernel([](Bf16Kernel kernel) {
    for (auto [m, n, k] : kShapes)
      expect_kernel_equals_reference(random_vector(size_t(m) * k, 1), random_vector(size_t(n) * k, 2, 0.05f), m, n, k,
                                     kernel, "random");
  });
}

TEST(GemmBf16, HardwareRoundingRulesMatchTheReference) {
  // Rows of A and columns of W in four kinds each, so that some chains see nothing but the
  // instructions' own rules: A ordinary, tiny (~2^-63 at every eighth k, the last one the last
  // even k, which vdpbf16ps adds last: against tiny weights every product, partial sum and
  // result sits around F32's smallest normal 2^-126, above and below it, so results are flushed
  // or not), large (~2^45: against denormal weights, a product that DAZ makes zero
  // would be ~2^-85 without it), or exact ties of BF16 rounding mixed with denormals (rounded to
  // signed zeros); W ordinary, tiny, denormal BF16, or pairs that cancel (the sign of a zero).
  std::mt19937 rng(11);
  const int m = 36, n = 40, k = 224;  // a multiple of 32: no padding after the last k
  std::vector<float> a(size_t(m) * k), w(size_t(n) * k);
  std::uniform_int_distribution<int> mantissa(0, 127);
  const auto bf16_value = [&](int e) {  // a value BF16 holds exactly, of either sign
    const float x = std::ldexp(1.0f + float(mantissa(rng)) / 128.0f, e);
    return rng() % 2 ? x : -x;
  };
  for (int i = 0; i < m; ++i)
    for (int kk = 0; kk < k; ++kk) {
      float& x = a[size_t(i) * k + kk];
      switch (i % 4) {
        case 0: x = bf16_value(int(rng() % 9) - 4); break;
        case 1: x = kk % 8 == 6 ? bf16_value(-63 - int(rng() % 3)) : 0.0f; break;  // few, the last at k - 2
        case 2: x = bf16_value(44 + int(rng() % 3)); break;
        default:
          x = kk % 3 == 0   ? std::ldexp(1.0f + 1.0f / 256.0f, int(rng() % 9) - 4)                // a tie: to even, down
              : kk % 3 == 1 ? std::ldexp(-1.0f - 3.0f / 256.0f, int(rng() % 9) - 4)              // a tie: to even, up
                            : std::numeric_limits<float>::denorm_min() * float(1 + rng() % 1000);  // denormal
      }
    }
  for (int j = 0; j < n; ++j)
    for (int kk = 0; kk < k; ++kk) {
      float& x = w[size_t(j) * k + kk];
      switch (j % 4) {
        case 0: x = bf16_value(int(rng() % 9) - 6); break;
        case 1: x = bf16_value(-62 - int(rng() % 3)); break;
        case 2: x = std::bit_cast<float>(uint32_t(1 + rng() % 127 + (rng() % 2 ? 0x8000u : 0u)) << 16); break;
        default: x = kk % 2 ? -w[size_t(j) * k + kk - 1] : bf16_value(int(rng() % 9) - 6);
      }
    }
  for_each_kernel([&](Bf16Kernel kernel) { expect_kernel_equals_reference(a, w, m, n, k, kernel, "edge values"); });
}

TEST(GemmBf16, RowResultDoesNotDependOnOtherRowsOrThreads) {
  const int k = 300, n = 45, total = 150;
  const auto w = random_vector(size_t(n) * k, 5, 0.05f);
  const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, PackedType::BF16Dot);
  const auto a = random_vector(size_t(total) * k, 6);
  for_each_kernel([&](Bf16Kernel) {
    std::vector<float> all(size_t(total) * n);
    gemm(a.data(), total, k, packed, all.data(), n);
    for (int m : {1, 2, 3, 5, 6, 7, 31, 33, 145}) {
      for (int threads : {1, 2, 3}) {
        set_n_threads(threads);
        std::vector<float> some(size_t(m) * n);
        const int first = total - m;  // the last m rows, computed alone
        gemm(a.data() + first * k, m, k, packed, some.data(), n);
        EXPECT_EQ(std::memcmp(some.data(), all.data() + first * n, some.size() * sizeof(float)), 0)
            << "m=" << m << " threads=" << threads;
      }
    }
    set_n_threads(2);
  });
}

TEST(GemmBf16, GemvRowsEqualsGemmColumns) {
  const int k = 130, n = 40;
  const auto w = random_vector(size_t(n) * k, 7, 0.05f);
  const auto a = random_vector(size_t(k), 8);
  const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, PackedType::BF16Dot);
  for_each_kernel([&](Bf16Kernel) {
    std::vector<float> full(n);
    gemm(a.data(), 1, k, packed, full.data(), n);
    const std::vector<int32_t> rows = {39, 0, 17};
    std::vector<float> some(rows.size());
    gemv_rows(a.data(), packed, rows.data(), 3, some.data());
    for (size_t r = 0; r < rows.size(); ++r) EXPECT_EQ(std::bit_cast<uint32_t>(some[r]), std::bit_cast<uint32_t>(full[rows[r]]));
  });
}

TEST(GemmBf16, TheTwoChainsRoundDifferently) {
  // The references of the two chains disagree somewhere on random data (so each kernel's
  // bitwise check above tells its chain from the other's), and both are near the F32 product
  // of the BF16-rounded operands.
  const int m = 20, n = 40, k = 512;
  const auto a = random_vector(size_t(m) * k, 9);
  const auto w = random_vector(size_t(n) * k, 10, 0.05f);
  const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, PackedType::BF16Dot);
  std::vector<float> amx(size_t(m) * n), avx512(amx.size());
  gemm_bf16_reference(a.data(), m, k, packed, amx.data(), n, Bf16Kernel::Amx);
  gemm_bf16_reference(a.data(), m, k, packed, avx512.data(), n, Bf16Kernel::Avx512Bf16);
  int differ = 0;
  for (int i = 0; i < m * n; ++i) {
    differ += amx[i] != avx512[i];
    double exact = 0, magnitude = 0;
    for (int kk = 0; kk < k; ++kk) {
      const double product = double(std::bit_cast<float>(uint32_t(bf16_round(a[(i / n) * k + kk])) << 16)) *
                             double(packed.at(i % n, kk));
      exact += product;
      magnitude += std::fabs(product);
    }
    EXPECT_LE(std::fabs(amx[i] - exact), 1e-4 * magnitude) << i;
    EXPECT_LE(std::fabs(avx512[i] - exact), 1e-4 * magnitude) << i;
  }
  EXPECT_GT(differ, m * n / 20);
}

TEST(GemmBf16, CloseToTheF32Product) {
  // A and W each rounded to 8 significant bits (relative error <= 2^-9): the product's error is
  // below 2^-8 of the sum of |a| |w|, and not zero.
  for_each_kernel([](Bf16Kernel) {
    for (auto [m, n, k] : kShapes) {
      const auto a = random_vector(size_t(m) * k, 3);
      const auto w = random_vector(size_t(n) * k, 4, 0.05f);
      const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, PackedType::BF16Dot);
      std::vector<float> c(size_t(m) * n);
      gemm(a.data(), m, k, packed, c.data(), n);
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
      EXPECT_LT(worst, 1.0 / 256) << shape_name(m, n, k);
      EXPECT_GT(worst, 0.0) << "BF16 should round something";
    }
  });
}

TEST(GemmBf16, RoundsActivationsAsTheInstructionDoes) {
  const auto bits = [](float x) { return std::bit_cast<uint32_t>(x); };
  const auto value = [](uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); };
  EXPECT_EQ(bf16_round(1.0f), 0x3F80);
  EXPECT_EQ(value(bf16_round(std::ldexp(1.0f + 1.0f / 256, 0))), 1.0f);                // tie: to even (down)
  EXPECT_EQ(value(bf16_round(std::ldexp(1.0f + 3.0f / 256, 0))), 1.0f + 2.0f / 128);  // tie: to even (up)
  EXPECT_EQ(value(bf16_round(1.0f + 1.0f / 256 + 1e-7f)), 1.0f + 1.0f / 128);         // past the tie: up
  EXPECT_EQ(bf16_round(std::numeric_limits<float>::denorm_min()), 0x0000);            // denormal: +0
  EXPECT_EQ(bf16_round(-std::numeric_limits<float>::denorm_min() * 1000), 0x8000);    // -0
  EXPECT_EQ(bf16_round(std::numeric_limits<float>::max()), 0x7F80);                   // rounds to +inf
  EXPECT_EQ(bf16_round(-std::numeric_limits<float>::infinity()), 0xFF80);
  const uint16_t nan = bf16_round(std::bit_cast<float>(0x7F800001u));  // a signalling NaN: quieted
  EXPECT_EQ(nan & 0x7FC0, 0x7FC0);
  EXPECT_NE(bits(value(nan)), 0x7F800000u);
}

// ctest runs this program again with SIFT_CPU_WITHOUT=avx512_bf16 (kernels/cpu_features.h), as
// on a CPU without the instruction: then no BF16 kernel is offered (the engine keeps BF16
// weights multiplied in F32), and asking for one fails.
TEST(Bf16Kernel, NoneWhereTheInstructionIsWithheld) {
  if (!cpu_feature_withheld("avx512_bf16")) GTEST_SKIP() << "SIFT_CPU_WITHOUT does not list avx512_bf16";
  EXPECT_FALSE(bf16_kernel_available(Bf16Kernel::Avx512Bf16));
  EXPECT_FALSE(bf16_kernel_available(Bf16Kernel::Amx));
  EXPECT_EQ(bf16_kernel(), Bf16Kernel::None);
  EXPECT_THROW(set_bf16_kernel(Bf16Kernel::Avx512Bf16), Error);
}

TEST(Bf16Kernel, AKernelCanBeChosenWhereAvailable) {
  const Bf16Kernel saved = bf16_kernel();
  for (Bf16Kernel kernel : {Bf16Kernel::None, Bf16Kernel::Avx512Bf16, Bf16Kernel::Amx}) {
    SCOPED_TRACE(bf16_kernel_name(kernel));
    if (bf16_kernel_available(kernel)) {
      set_bf16_kernel(kernel);
      EXPECT_EQ(bf16_kernel(), kernel);
    } else {
      EXPECT_THROW(set_bf16_kernel(kernel), Error);
    }
  }
  set_bf16_kernel(saved);
  // AMX comes with AVX512_BF16 on every CPU that has it (and is checked so).
  if (bf16_kernel_available(Bf16Kernel::Amx)) {
    EXPECT_TRUE(bf16_kernel_available(Bf16Kernel::Avx512Bf16));
  }
}

}  // namespace
}  // namespace sift
