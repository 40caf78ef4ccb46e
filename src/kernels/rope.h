#pragma once
// Rotary position embedding, Hugging Face "rotate_half" convention: for a head vector x of
// width d and i < d/2,  x'[i] = x[i] cos(p f_i) - x[i+d/2] sin(p f_i),
//                       x'[i+d/2] = x[i+d/2] cos(p f_i) + x[i] sin(p f_i),
// with inverse frequencies f_i = theta^(-2i/d), optionally rescaled as Llama 3 does.
#include <cstdint>
#include <vector>

namespace sift {

// What RoPE needs to know of a model (model/config.h's rope_parameters makes it from config.json).
struct RopeParameters {
  int64_t head_dim = 0;
  double theta = 10000.0;             // rope_theta
  int64_t max_positions = 0;          // max_position_embeddings: positions below it (up to a cap) are tabled
  // Llama 3 scaling (rope_scaling of type "llama3"); factor == 0: none.
  double scaling_factor = 0.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  int64_t original_max_positions = 8192;
};

class Rope {
 public:
  explicit Rope(const RopeParameters& parameters);
  // Rotates n_heads heads of width head_dim in each of n_rows rows (row stride `stride`),
  // row r at position positions[r]. Each row depends only on its own position.
  void apply(float* x, int64_t n_rows, int64_t stride, int64_t n_heads, const int32_t* positions) const;
  const std::vector<float>& inv_freq() const { return inv_freq_; }

 private:
  // cos(p f_i) and sin(p f_i) for i < head_dim / 2, the angle p f_i taken in double.
  void rotation(int32_t position, float* cos_out, float* sin_out) const;

  // The rotations of positions [0, kTablePositions) are computed once (4 MiB at head_dim 128);
  // later positions on the fly, by the same function, so the bits do not depend on which.
  static constexpr int64_t kTablePositions = 8192;

  int64_t head_dim_;
  std::vector<float> inv_freq_;  // (head_dim / 2)
  int64_t table_positions_ = 0;
  std::vector<float> cos_table_, sin_table_;  // (table_positions_, head_dim / 2)
};

}  // namespace sift
