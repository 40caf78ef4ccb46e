#pragma once
// Seeded normal random operands for the kernel tests.
#include <cstdint>
#include <random>
#include <vector>

namespace sift::testing {

inline std::vector<float> random_vector(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

}  // namespace sift::testing
