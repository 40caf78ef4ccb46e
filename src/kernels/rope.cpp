#include "kernels/rope.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/parallel.h"

namespace sift {

Rope::Rope(const RopeParameters& p) : head_dim_(p.head_dim), inv_freq_(p.head_dim / 2) {
  const int64_t half = head_dim_ / 2;
  for (int64_t i = 0; i < half; ++i) {
    // As HF: base ** (arange(0, d, 2).float() / d), in float32.
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(head_dim_);
    inv_freq_[i] = 1.0f / std::pow(static_cast<float>(p.theta), exponent);
  }
  if (p.scaling_factor > 0) {
    // Llama 3 (transformers _compute_llama3_parameters): long wavelengths are divided by
    // factor, short ones kept, the band between interpolated smoothly.
    const double old_len = static_cast<double>(p.original_max_positions);
    const double low_freq_wavelen = old_len / p.low_freq_factor;
    const double high_freq_wavelen = old_len / p.high_freq_factor;
    for (float& f : inv_freq_) {
      const double wavelen = 2 * std::numbers::pi / f;
      if (wavelen > low_freq_wavelen) {
        f = static_cast<float>(f / p.scaling_factor);
      } else if (wavelen >= high_freq_wavelen) {
        const double smooth = (old_len / wavelen - p.low_freq_factor) / (p.high_freq_factor - p.low_freq_factor);
        f = static_cast<float>((1 - smooth) * f / p.scaling_factor + smooth * f);
      }
    }
  }
  table_positions_ = std::clamp<int64_t>(p.max_positions, 0, kTablePositions);
  cos_table_.resize(static_cast<size_t>(table_positions_ * half));
  sin_table_.resize(static_cast<size_t>(table_positions_ * half));
  for (int64_t p = 0; p < table_positions_; ++p)
    rotation(static_cast<int32_t>(p), cos_table_.data() + p * half, sin_table_.data() + p * half);
}

void Rope::rotation(int32_t position, float* cos_out, float* sin_out) const {
  for (size_t i = 0; i < inv_freq_.size(); ++i) {
    // The angle in double: at positions in the thousands a float32 product is off by
    // ~1e-4 rad, which the logits would show.
    const double angle = static_cast<double>(position) * static_cast<double>(inv_freq_[i]);
    cos_out[i] = static_cast<float>(std::cos(angle));
    sin_out[i] = static_cast<float>(std::sin(angle));
  }
}

void Rope::apply(float* x, int64_t n_rows, int64_t stride, int64_t n_heads, const int32_t* positions) const {
  const int64_t half = head_dim_ / 2;
  parallel_for(n_rows, [&](int64_t r) {
    thread_local std::vector<float> cos_t, sin_t;  // kept: a forward call allocates nothing once warm
    const float* cos_p;
    const float* sin_p;
    if (positions[r] >= 0 && positions[r] < table_positions_) {
      cos_p = cos_table_.data() + positions[r] * half;
      sin_p = sin_table_.data() + positions[r] * half;
    } else {
      cos_t.resize(static_cast<size_t>(half));
      sin_t.resize(static_cast<size_t>(half));
      rotation(positions[r], cos_t.data(), sin_t.data());
      cos_p = cos_t.data();
      sin_p = sin_t.data();
    }
    for (int64_t h = 0; h < n_heads; ++h) {
      float* v = x + r * stride + h * head_dim_;
      for (int64_t i = 0; i < half; ++i) {
        const float x1 = v[i], x2 = v[i + half];
        v[i] = x1 * cos_p[i] - x2 * sin_p[i];
        v[i + half] = x2 * cos_p[i] + x1 * sin_p[i];
      }
    }
  }, head_dim_ * (n_heads * 3 + 20));
}

}  // namespace sift
