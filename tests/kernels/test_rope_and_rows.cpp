// RoPE's rotation table and PackedMatrix::copy_row, each against its plain definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/packed_matrix.h"
#include "kernels/rope.h"

namespace sift {
namespace {

RopeParameters rope_config(int64_t max_positions) {
  RopeParameters parameters;
  parameters.head_dim = 16;
  parameters.theta = 10000.0;
  parameters.max_positions = max_positions;
  return parameters;
}

std::vector<float> random_rows(int64_t n, int64_t width, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(n * width));
  for (float& v : x) v = dist(rng);
  return x;
}

// The definition (rope.h), angles in double, rotations rounded to float as the kernel does.
void plain_rope(const Rope& rope, float* v, int32_t position, int64_t head_dim) {
  const int64_t half = head_dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const double angle = static_cast<double>(position) * static_cast<double>(rope.inv_freq()[i]);
    const float c = static_cast<float>(std::cos(angle)), s = static_cast<float>(std::sin(angle));
    const float x1 = v[i], x2 = v[i + half];
    v[i] = x1 * c - x2 * s;
    v[i + half] = x2 * c + x1 * s;
  }
}

TEST(Rope, TabledAndComputedPositionsGiveTheDefinitionsBits) {
  // A table of 8 positions (max_position_embeddings 8): positions 0-7 read it, 8 and beyond
  // are computed; the long-table rope reads every one of them from its table.
  const Rope short_table(rope_config(8)), long_table(rope_config(4096));
  const std::vector<int32_t> positions = {0, 1, 7, 8, 9, 744, 4000, 5, 20000};
  const int64_t n = static_cast<int64_t>(positions.size()), heads = 2, width = heads * 16;
  const std::vector<float> x = random_rows(n, width, 3);
  std::vector<float> a = x, b = x, plain = x;
  short_table.apply(a.data(), n, width, heads, positions.data());
  long_table.apply(b.data(), n, width, heads, positions.data());
  for (int64_t r = 0; r < n; ++r)
    for (int64_t h = 0; h < heads; ++h) plain_rope(short_table, plain.data() + r * width + h * 16, positions[r], 16);
  EXPECT_EQ(std::memcmp(a.data(), plain.data(), a.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(b.data(), plain.data(), b.size() * sizeof(float)), 0);
}

TEST(PackedMatrix, CopyRowIsEveryElementOfTheRow) {
  const int64_t n = 37, k = 70;  // not multiples of a panel's 16 rows or a Q8 / BF16Dot block's 32
  const std::vector<float> w = random_rows(n, k, 5);
  for (PackedType type : {PackedType::F32, PackedType::BF16, PackedType::F16, PackedType::Q8, PackedType::BF16Dot}) {
    const PackedMatrix packed = PackedMatrix::from_row_major(w.data(), n, k, type);
    std::vector<float> row(static_cast<size_t>(k));
    for (int64_t r = 0; r < n; ++r) {
      packed.copy_row(r, row.data());
      for (int64_t c = 0; c < k; ++c) ASSERT_EQ(row[c], packed.at(r, c)) << "type " << int(type) << " (" << r << ", " << c << ")";
    }
    if (type == PackedType::F32) {
      packed.copy_row(n - 1, row.data());
      EXPECT_EQ(std::memcmp(row.data(), w.data() + (n - 1) * k, k * sizeof(float)), 0);
    }
  }
}

}  // namespace
}  // namespace sift
