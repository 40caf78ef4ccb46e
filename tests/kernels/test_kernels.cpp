// Each fast kernel against its plain reference, and the row-independence that the
// scoring contract's bitwise invariance rests on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/parallel.h"
#include "kernels/attention.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm.h"
#include "random_vectors.h"
#include "tile_isas.h"

namespace sift {
namespace {

using testing::random_vector;

bool bitwise_equal(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

TEST(Gemm, FastKernelEqualsReferenceBitwise) {
  testing::for_each_tile_isa([&] {
    // Shapes with row and column tails (M % 6, N % 16), K past one 512 block, M past one row
    // block (2,040 rows) and N past one column block per thread (at most 64 panels of 16).
    for (auto [m, n, k] : {std::tuple{1, 1, 1}, {7, 33, 300}, {13, 16, 256}, {64, 70, 513}, {5, 250, 64},
                           {2053, 35, 270}, {25, 16 * 130 + 5, 40}}) {
      const auto a = random_vector(size_t(m) * k, 1);
      const auto w = random_vector(size_t(n) * k, 2);
      const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k);
      std::vector<float> fast(size_t(m) * n), reference(size_t(m) * n);
      gemm(a.data(), m, k, packed, fast.data(), n);
      gemm_reference(a.data(), m, k, packed, reference.data(), n);
      EXPECT_TRUE(bitwise_equal(fast.data(), reference.data(), fast.size())) << m << "x" << n << "x" << k;
      // And both are the product (checked in double).
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double expected = 0;
          for (int kk = 0; kk < k; ++kk) expected += double(a[i * k + kk]) * w[j * k + kk];
          ASSERT_NEAR(fast[i * n + j], expected, 1e-4 * std::sqrt(double(k)));
        }
    }
  });
}

// The AVX-512 tile (6 x 32: two panels per tile) and the AVX2 tile (6 x 16) compute the same
// chains: the same bits for odd panel counts (a pair and a lone panel per thread), partial
// panels, row tails and K blocks.
TEST(Gemm, TileIsasGiveTheSameBits) {
  if (testing::tile_isas().size() < 2) GTEST_SKIP() << "this CPU has one register tile";
  for (auto [m, n, k] : {std::tuple{151, 16 * 5 + 3, 600}, {6, 32, 256}, {1, 17, 3}}) {
    const auto a = random_vector(size_t(m) * k, 11);
    const auto w = random_vector(size_t(n) * k, 12);
    const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k);
    std::vector<std::vector<float>> out;
    testing::for_each_tile_isa([&] {
      out.emplace_back(size_t(m) * n);
      gemm(a.data(), m, k, packed, out.back().data(), n);
    });
    EXPECT_TRUE(bitwise_equal(out[0].data(), out[1].data(), out[0].size())) << m << "x" << n << "x" << k;
  }
}

// The tile's A operand (kernels/micro_tile.h): dst[(t / 6) * K * 6 + k * 6 + t % 6] = src[t][k],
// rows past n_rows zero; whole groups of 6 rows go through 8 x 8 register transposes.
TEST(Gemm, PackTileRowsLaysOutMicroPanels) {
  for (int n_rows : {1, 5, 6, 7, 12, 13}) {
    for (int n_cols : {1, 7, 8, 9, 17, 300}) {
      const int ld = n_cols + 3;
      const auto src = random_vector(size_t(n_rows) * ld, 13);
      const int n_padded = (n_rows + kTileRows - 1) / kTileRows * kTileRows;
      std::vector<float> dst(size_t(n_padded) * n_cols, NAN);
      pack_tile_rows(src.data(), n_rows, n_cols, ld, dst.data());
      for (int t = 0; t < n_padded; ++t)
        for (int k = 0; k < n_cols; ++k) {
          const float expected = t < n_rows ? src[size_t(t) * ld + k] : 0.0f;
          ASSERT_EQ(dst[size_t(t / kTileRows) * n_cols * kTileRows + k * kTileRows + t % kTileRows], expected)
              << n_rows << " rows, " << n_cols << " columns: row " << t << ", column " << k;
        }
    }
  }
}

TEST(Gemm, RowResultDoesNotDependOnOtherRowsOrThreads) {
  testing::for_each_tile_isa([&] {
    const int k = 300, n = 45;
    const auto w = random_vector(size_t(n) * k, 3);
    const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k);
    const auto a = random_vector(size_t(40) * k, 4);
    std::vector<float> all(size_t(40) * n);
    gemm(a.data(), 40, k, packed, all.data(), n);
    for (int m : {1, 2, 5, 6, 7, 11}) {
      for (int threads : {1, 2}) {
        set_n_threads(threads);
        std::vector<float> some(size_t(m) * n);
        const int first = 40 - m;  // the last m rows, computed alone
        gemm(a.data() + first * k, m, k, packed, some.data(), n);
        EXPECT_TRUE(bitwise_equal(some.data(), all.data() + first * n, some.size())) << "m=" << m;
      }
    }
    set_n_threads(2);
  });
}

TEST(Gemm, GemvRowsEqualsGemmColumns) {
  const int k = 130, n = 40;
  const auto w = random_vector(size_t(n) * k, 5);
  const auto a = random_vector(size_t(k), 6);
  const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k);
  std::vector<float> full(n);
  gemm(a.data(), 1, k, packed, full.data(), n);
  const std::vector<int32_t> rows = {39, 0, 17};
  std::vector<float> some(rows.size());
  gemv_rows(a.data(), packed, rows.data(), 3, some.data());
  for (size_t r = 0; r < rows.size(); ++r) EXPECT_EQ(some[r], full[rows[r]]);
  std::vector<float> row(k);
  packed.copy_row(17, row.data());
  EXPECT_TRUE(bitwise_equal(row.data(), w.data() + 17 * k, k));
}

// BF16 / F16 resident weights: the fast kernel widens them inside gemm; the product must be
// bitwise the product with the F32 matrix holding the same (16-bit) values, on both paths.
TEST(Gemm, SixteenBitWeightsGiveTheBitsOfTheirF32Values) {
  testing::for_each_tile_isa([&] {
    for (const PackedType type : {PackedType::BF16, PackedType::F16}) {
      for (auto [m, n, k] : {std::tuple{1, 1, 1}, {7, 33, 300}, {13, 16, 256}, {64, 70, 513}, {150, 20, 40},
                             {30, 16 * 130 + 5, 520}}) {
        const auto a = random_vector(size_t(m) * k, 7);
        const auto w = random_vector(size_t(n) * k, 8);
        const PackedMatrix narrow = PackedMatrix::from_row_major(w.data(), n, k, type);
        std::vector<float> w16(w.size());  // the values the 16-bit matrix holds, as F32
        for (int row = 0; row < n; ++row) narrow.copy_row(row, w16.data() + size_t(row) * k);
        EXPECT_FALSE(bitwise_equal(w16.data(), w.data(), w.size())) << "the test should round something";
        const PackedMatrix wide = PackedMatrix::from_row_major(w16.data(), n, k);
        EXPECT_EQ(narrow.bytes() * 2, wide.bytes());
        std::vector<float> fast(size_t(m) * n), reference(size_t(m) * n), f32(size_t(m) * n);
        gemm(a.data(), m, k, narrow, fast.data(), n);
        gemm_reference(a.data(), m, k, narrow, reference.data(), n);
        gemm(a.data(), m, k, wide, f32.data(), n);
        const std::string what = (type == PackedType::BF16 ? "bf16 " : "f16 ") + std::to_string(m) + "x" +
                                 std::to_string(n) + "x" + std::to_string(k);
        EXPECT_TRUE(bitwise_equal(fast.data(), f32.data(), f32.size())) << what;
        EXPECT_TRUE(bitwise_equal(reference.data(), f32.data(), f32.size())) << what;
        const std::vector<int32_t> rows = {n - 1, 0};
        std::vector<float> some(rows.size());
        gemv_rows(a.data(), narrow, rows.data(), 2, some.data());
        for (size_t r = 0; r < rows.size(); ++r) EXPECT_EQ(some[r], f32[rows[r]]) << what;
      }
    }
  });
}

TEST(Attention, MatchesReferenceOnMultiItemLayout) {
  testing::for_each_tile_isa([&] {
    const AttentionDims dims{4, 2, 16};
    const int q_len = 9;
    // Rows: the query (causal), then items of 3 and 4 tokens that see the query and themselves.
    std::vector<VisibleKeys> visible;
    for (int t = 0; t < q_len; ++t) visible.push_back({0, 0, 0, t + 1});
    for (int t = 0; t < 3; ++t) visible.push_back({0, q_len, q_len, q_len + t + 1});
    for (int t = 0; t < 4; ++t) visible.push_back({0, q_len, q_len + 3, q_len + 3 + t + 1});
    const int n = static_cast<int>(visible.size());
    const auto q = random_vector(size_t(n) * dims.q_dim(), 7);
    const auto keys = random_vector(size_t(n) * dims.kv_dim(), 8);
    const auto values = random_vector(size_t(n) * dims.kv_dim(), 9);
    std::vector<float> fast(size_t(n) * dims.q_dim()), reference(fast.size());
    attention(dims, q.data(), dims.q_dim(), visible.data(), n, keys.data(), values.data(), fast.data());
    attention_reference(dims, q.data(), dims.q_dim(), visible.data(), n, keys.data(), values.data(), reference.data());
    for (size_t i = 0; i < fast.size(); ++i) ASSERT_NEAR(fast[i], reference[i], 1e-5) << i;

    // An item row alone gives the same bits as inside the batch.
    std::vector<float> alone(dims.q_dim());
    const int row = q_len + 3 + 2;
    attention(dims, q.data() + row * dims.q_dim(), dims.q_dim(), &visible[row], 1, keys.data(), values.data(),
              alone.data());
    EXPECT_TRUE(bitwise_equal(alone.data(), fast.data() + row * dims.q_dim(), alone.size()));
  });
}

// A context anywhere in the key space: an item of a second row, whose query's keys sit at
// [s, s + Lq) of a call, gives the bits of the same item with its query at [0, Lq).
TEST(Attention, ContextRangeAnywhereGivesTheSameBits) {
  const AttentionDims dims{4, 2, 16};
  const int q_len = 7, item_len = 5, shift = 23;  // the second copy starts `shift` keys later
  const int n_keys = shift + q_len + item_len;
  const auto q = random_vector(size_t(item_len) * dims.q_dim(), 31);
  auto keys = random_vector(size_t(n_keys) * dims.kv_dim(), 32);
  auto values = random_vector(size_t(n_keys) * dims.kv_dim(), 33);
  // The same query + item keys at [0, q_len + item_len) and at [shift, shift + q_len + item_len).
  std::copy_n(keys.begin(), (q_len + item_len) * dims.kv_dim(), keys.begin() + shift * dims.kv_dim());
  std::copy_n(values.begin(), (q_len + item_len) * dims.kv_dim(), values.begin() + shift * dims.kv_dim());
  std::vector<VisibleKeys> first, second;
  for (int t = 0; t < item_len; ++t) {
    first.push_back({0, q_len, q_len, q_len + t + 1});
    second.push_back({shift, shift + q_len, shift + q_len, shift + q_len + t + 1});
  }
  std::vector<float> a(size_t(item_len) * dims.q_dim()), b(a.size());
  attention(dims, q.data(), dims.q_dim(), first.data(), item_len, keys.data(), values.data(), a.data());
  attention(dims, q.data(), dims.q_dim(), second.data(), item_len, keys.data(), values.data(), b.data());
  EXPECT_TRUE(bitwise_equal(a.data(), b.data(), a.size()));
}

// Each shape with F32 products and with BF16 ones (AttentionDims::bf16; where the CPU lacks
// AVX512_BF16, attention() runs the BF16 chains' plain twin, and the fast == plain checks
// compare it with itself).
std::vector<AttentionDims> f32_and_bf16(std::initializer_list<AttentionDims> shapes) {
  std::vector<AttentionDims> all;
  for (bool bf16 : {false, true})
    for (AttentionDims dims : shapes) {
      dims.bf16 = bf16;
      all.push_back(dims);
    }
  return all;
}

// attention() over all rows, checked: the plain twin's bits, within 1e-5 of the reference
// (BF16 products: within 3e-2, their operands rounded to 8 significant bits).
std::vector<float> attention_checked(const AttentionDims& dims, const std::vector<VisibleKeys>& visible,
                                     const std::vector<float>& q, const std::vector<float>& keys,
                                     const std::vector<float>& values) {
  const int n = static_cast<int>(visible.size());
  std::vector<float> fast(size_t(n) * dims.q_dim()), plain(fast.size()), reference(fast.size());
  attention(dims, q.data(), dims.q_dim(), visible.data(), n, keys.data(), values.data(), fast.data());
  attention_plain(dims, q.data(), dims.q_dim(), visible.data(), n, keys.data(), values.data(), plain.data());
  attention_reference(dims, q.data(), dims.q_dim(), visible.data(), n, keys.data(), values.data(), reference.data());
  EXPECT_TRUE(bitwise_equal(fast.data(), plain.data(), fast.size())) << "head_dim " << dims.head_dim << ", bf16 " << dims.bf16;
  const double tolerance = dims.bf16 ? 3e-2 : 1e-5;
  for (size_t i = 0; i < fast.size(); ++i) {
    EXPECT_NEAR(fast[i], reference[i], tolerance) << i << ", head_dim " << dims.head_dim << ", bf16 " << dims.bf16;
    if (std::abs(fast[i] - reference[i]) > tolerance) break;
  }
  return fast;
}

// The scoring contract at the kernel: an item's rows in the multi-item layout (the query's
// keys, another item's, then its own) give the bits of the same rows in the item's own
// prompt, causal (one range of keys) or after a cached query (two), for query lengths odd and
// even (with BF16 products an odd query's last key pairs with the item's first), F32 and BF16.
TEST(Attention, ItemInMultiItemLayoutGivesItsOwnPromptsBits) {
  for (const AttentionDims& dims : f32_and_bf16({AttentionDims{4, 2, 16}, AttentionDims{6, 2, 128}, AttentionDims{2, 1, 20}})) {
    for (int q_len : {12, 13, 40, 41}) {
      const int other_len = 7, item_len = 9, kv = static_cast<int>(dims.kv_dim());
      const int n_mis = q_len + other_len + item_len, n_own = q_len + item_len;
      const auto keys_mis = random_vector(size_t(n_mis) * kv, 61), values_mis = random_vector(size_t(n_mis) * kv, 62);
      const auto q = random_vector(size_t(item_len) * dims.q_dim(), 63, 2.0f);
      std::vector<float> keys_own(size_t(n_own) * kv), values_own(keys_own.size());  // the query, then the item
      for (const auto& [mis, own] : {std::pair{&keys_mis, &keys_own}, std::pair{&values_mis, &values_own}}) {
        std::copy_n(mis->begin(), q_len * kv, own->begin());
        std::copy_n(mis->begin() + (q_len + other_len) * kv, item_len * kv, own->begin() + q_len * kv);
      }
      std::vector<VisibleKeys> in_mis, causal, after_cache;
      for (int t = 0; t < item_len; ++t) {
        in_mis.push_back({0, q_len, q_len + other_len, q_len + other_len + t + 1});
        causal.push_back({0, 0, 0, q_len + t + 1});
        after_cache.push_back({0, q_len, q_len, q_len + t + 1});
      }
      std::vector<float> a(size_t(item_len) * dims.q_dim()), b(a.size()), c(a.size());
      attention(dims, q.data(), dims.q_dim(), in_mis.data(), item_len, keys_mis.data(), values_mis.data(), a.data());
      attention(dims, q.data(), dims.q_dim(), causal.data(), item_len, keys_own.data(), values_own.data(), b.data());
      attention(dims, q.data(), dims.q_dim(), after_cache.data(), item_len, keys_own.data(), values_own.data(), c.data());
      EXPECT_TRUE(bitwise_equal(a.data(), b.data(), a.size())) << "query " << q_len << ", bf16 " << dims.bf16;
      EXPECT_TRUE(bitwise_equal(a.data(), c.data(), a.size())) << "query " << q_len << ", bf16 " << dims.bf16;
    }
  }
}

// The fast kernel and its plain twin run the same operations in the same order: equal bits,
// for GQA groups of 1, 2 and 3 (pairs of heads and an odd one) and head_dim tails (20 = 16 + 4).
TEST(Attention, FastEqualsPlainBitwiseAcrossShapes) {
  testing::for_each_tile_isa([&] {
    for (const AttentionDims& dims : f32_and_bf16({AttentionDims{4, 4, 16}, AttentionDims{4, 2, 20}, AttentionDims{6, 2, 128},
                                      AttentionDims{3, 1, 8}})) {
      const int q_len = 13;
      std::vector<VisibleKeys> visible;
      for (int t = 0; t < q_len; ++t) visible.push_back({0, 0, 0, t + 1});
      int begin = q_len;
      for (int item_len : {1, 5, 11}) {
        for (int t = 0; t < item_len; ++t) visible.push_back({0, q_len, begin, begin + t + 1});
        begin += item_len;
      }
      const int n = static_cast<int>(visible.size());
      const auto q = random_vector(size_t(n) * dims.q_dim(), 21, 2.0f);
      const auto keys = random_vector(size_t(n) * dims.kv_dim(), 22);
      const auto values = random_vector(size_t(n) * dims.kv_dim(), 23);
      attention_checked(dims, visible, q, keys, values);
    }
  });
}

// The fast kernel takes neighbouring rows that see the same keys first in blocks, and their
// values in pairs, the one with more own keys going on alone. Rows in every order a call can bring (an item's rows
// reversed, the same row twice, neighbours with another context or another own range) give
// the plain twin's bits, and each row alone gives its bits inside the call.
TEST(Attention, RowsSharingKeysGiveTheirOwnBits) {
  testing::for_each_tile_isa([&] {
    std::mt19937 rng(5);
    for (const AttentionDims& dims : f32_and_bf16({AttentionDims{2, 2, 8}, AttentionDims{4, 2, 20}, AttentionDims{6, 2, 64},
                                      AttentionDims{3, 1, 128}, AttentionDims{8, 2, 24}})) {
      const int q_len = 11, n_keys = 40;
      std::vector<VisibleKeys> visible;
      for (int t = 0; t < q_len; ++t) visible.push_back({0, 0, 0, t + 1});           // causal, in order
      for (int t = 6; t >= 0; --t) visible.push_back({0, q_len, q_len, q_len + t + 1});  // an item, reversed
      visible.push_back({0, q_len, q_len, q_len + 3});  // the same row twice
      visible.push_back({0, q_len, q_len, q_len + 3});
      visible.push_back({0, 5, q_len, q_len + 2});      // another context, then the first again
      visible.push_back({0, q_len, q_len, q_len + 2});
      visible.push_back({0, q_len, q_len + 7, q_len + 9});  // another own range
      std::uniform_int_distribution<int> pick(0, 12);
      for (int i = 0; i < 24; ++i) {  // random ranges: neighbours pair by chance
        const int cb = pick(rng) % 3, ce = cb + pick(rng), ob = ce + pick(rng) % 4;
        visible.push_back({cb, ce, ob, ob + 1 + pick(rng)});
      }
      const int n = static_cast<int>(visible.size());
      for (const VisibleKeys& v : visible) ASSERT_LE(v.own_end, n_keys);
      const auto q = random_vector(size_t(n) * dims.q_dim(), 41, 2.0f);
      const auto keys = random_vector(size_t(n_keys) * dims.kv_dim(), 42);
      const auto values = random_vector(size_t(n_keys) * dims.kv_dim(), 43);
      const std::vector<float> fast = attention_checked(dims, visible, q, keys, values);
      std::vector<float> alone(dims.q_dim());
      for (int row = 0; row < n; ++row) {
        attention(dims, q.data() + row * dims.q_dim(), dims.q_dim(), &visible[row], 1, keys.data(), values.data(),
                  alone.data());
        EXPECT_TRUE(bitwise_equal(alone.data(), fast.data() + row * dims.q_dim(), alone.size()))
            << "row " << row << ", head_dim " << dims.head_dim;
      }
    }
  });
}

// The fast kernel scores blocks of rows that see the same keys first (kernels/attention.cpp,
// RowBlock) in micro-tiles of 6 query vectors x 16 keys, over whole 16-key panels. Rows of
// long runs (more than one block), ranges that start and end off the panel grid, GQA groups
// of 1 to 4 and rows in reverse order (other blocks) give the plain twin's bits and each
// row's bits alone.
TEST(Attention, RowBlocksGiveTheirOwnBits) {
  testing::for_each_tile_isa([&] {
    for (const AttentionDims& dims : f32_and_bf16({AttentionDims{2, 2, 32}, AttentionDims{4, 2, 64}, AttentionDims{6, 2, 12},
                                      AttentionDims{8, 2, 40}, AttentionDims{3, 1, 16}})) {
      const int shift = 5, q_len = 45, item_len = 31;  // the query's keys at [5, 50): off the grid
      std::vector<VisibleKeys> visible;
      for (int t = 0; t < q_len; ++t) visible.push_back({0, 0, shift, shift + t + 1});
      for (int item = 0; item < 2; ++item) {
        const int begin = shift + q_len + item * item_len;
        for (int t = 0; t < item_len - 2 * item; ++t) visible.push_back({shift, shift + q_len, begin, begin + t + 1});
      }
      const int n = static_cast<int>(visible.size()), n_keys = shift + q_len + 2 * item_len;
      const auto q = random_vector(size_t(n) * dims.q_dim(), 51, 2.0f);
      const auto keys = random_vector(size_t(n_keys) * dims.kv_dim(), 52);
      const auto values = random_vector(size_t(n_keys) * dims.kv_dim(), 53);
      const std::vector<float> fast = attention_checked(dims, visible, q, keys, values);

      // The rows reversed: every block holds other rows.
      std::vector<VisibleKeys> reversed(visible.rbegin(), visible.rend());
      std::vector<float> q_reversed(q.size());
      for (int row = 0; row < n; ++row)
        std::copy_n(q.begin() + row * dims.q_dim(), dims.q_dim(), q_reversed.begin() + (n - 1 - row) * dims.q_dim());
      const std::vector<float> backwards = attention_checked(dims, reversed, q_reversed, keys, values);
      std::vector<float> alone(dims.q_dim());
      for (int row = 0; row < n; ++row) {
        const std::string where = "row " + std::to_string(row) + ", heads " + std::to_string(dims.n_heads) + "/" +
                                  std::to_string(dims.n_kv_heads) + ", head_dim " + std::to_string(dims.head_dim);
        ASSERT_TRUE(bitwise_equal(backwards.data() + (n - 1 - row) * dims.q_dim(), fast.data() + row * dims.q_dim(),
                                  dims.q_dim())) << where;
        attention(dims, q.data() + row * dims.q_dim(), dims.q_dim(), &visible[row], 1, keys.data(), values.data(),
                  alone.data());
        ASSERT_TRUE(bitwise_equal(alone.data(), fast.data() + row * dims.q_dim(), alone.size())) << where;
      }
    }
  });
}

}  // namespace
}  // namespace sift
