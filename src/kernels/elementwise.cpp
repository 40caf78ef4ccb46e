#include "kernels/elementwise.h"

#include <cmath>

#include "core/parallel.h"
#include "kernels/vector_math.h"

namespace sift {

namespace {

void rms_norm_row(const float* x, int64_t dim, const float* weight, float eps, float* y) {
  float sum_sq = 0.0f;
  for (int64_t i = 0; i < dim; ++i) sum_sq += x[i] * x[i];
  const float inv_rms = 1.0f / std::sqrt(sum_sq / static_cast<float>(dim) + eps);
  for (int64_t i = 0; i < dim; ++i) y[i] = weight[i] * (x[i] * inv_rms);
}

}  // namespace

void rms_norm(const float* x, int64_t n_rows, int64_t dim, int64_t stride, const float* weight, float eps,
              float* y, int64_t y_stride) {
  parallel_for(n_rows, [&](int64_t r) { rms_norm_row(x + r * stride, dim, weight, eps, y + r * y_stride); }, 3 * dim);
}

void rms_norm_heads(float* x, int64_t n_rows, int64_t stride, int64_t n_heads, int64_t head_dim,
                    const float* weight, float eps) {
  parallel_for(n_rows, [&](int64_t r) {
    for (int64_t h = 0; h < n_heads; ++h) {
      float* head = x + r * stride + h * head_dim;
      rms_norm_row(head, head_dim, weight, eps, head);
    }
  }, 3 * n_heads * head_dim);
}

void silu_mul(const float* gate_up, int64_t n_rows, int64_t inter, float* out) {
  parallel_for(n_rows, [&](int64_t r) {
    const float* gate = gate_up + r * 2 * inter;
    const float* up = gate + inter;
    float* o = out + r * inter;
    for (int64_t i = 0; i < inter; ++i) o[i] = -gate[i];
    exp_inplace(o, inter);  // o = exp(-gate), vectorised
    for (int64_t i = 0; i < inter; ++i) o[i] = gate[i] / (1.0f + o[i]) * up[i];
  }, 8 * inter);
}

void add_bias(float* y, int64_t n_rows, int64_t dim, int64_t stride, const float* bias) {
  for (int64_t r = 0; r < n_rows; ++r)
    for (int64_t i = 0; i < dim; ++i) y[r * stride + i] += bias[i];
}

}  // namespace sift
