#pragma once
// Row-wise kernels. Each row is computed alone, in a fixed order, so results never depend
// on how many rows are processed together.
#include <cstdint>

namespace sift {

// RMSNorm (HF LlamaRMSNorm/Qwen3RMSNorm in float32): for each of n_rows rows of width dim,
//   y = x * 1/sqrt(mean(x^2) + eps) * weight.   x and y may alias.
void rms_norm(const float* x, int64_t n_rows, int64_t dim, int64_t stride, const float* weight, float eps,
              float* y, int64_t y_stride);

// RMSNorm over each head: n_rows rows (row stride `stride`) each hold n_heads heads of
// width head_dim side by side; each head is normalised alone (Qwen3 q_norm / k_norm).
void rms_norm_heads(float* x, int64_t n_rows, int64_t stride, int64_t n_heads, int64_t head_dim,
                    const float* weight, float eps);

// SwiGLU on the fused gate|up projection: gate_up (n_rows, 2*I) -> out (n_rows, I),
//   out = silu(gate) * up,  silu(g) = g / (1 + exp(-g))  (exp: exp_inplace of vector_math.h).
void silu_mul(const float* gate_up, int64_t n_rows, int64_t inter, float* out);

// y[i, :] += bias for n_rows rows of width dim.
void add_bias(float* y, int64_t n_rows, int64_t dim, int64_t stride, const float* bias);

}  // namespace sift
