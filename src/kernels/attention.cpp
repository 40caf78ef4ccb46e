#include "kernels/attention.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/parallel.h"

namespace sift {
namespace {

bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// Dot product with a fixed order: 8 lanes accumulate k = lane mod 8, then a fixed tree.
__attribute__((target("avx2,fma"))) float dot_avx2(const float* a, const float* b, int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  float sum = ((lanes[0] + lanes[4]) + (lanes[1] + lanes[5])) + ((lanes[2] + lanes[6]) + (lanes[3] + lanes[7]));
  for (; i < n; ++i) sum = std::fma(a[i], b[i], sum);
  return sum;
}

__attribute__((target("avx2,fma"))) void axpy_avx2(float alpha, const float* x, float* y, int64_t n) {
  const __m256 a = _mm256_set1_ps(alpha);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(a, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  for (; i < n; ++i) y[i] = std::fma(alpha, x[i], y[i]);
}

float dot_plain(const float* a, const float* b, int64_t n) {
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum = std::fma(a[i], b[i], sum);
  return sum;
}

void axpy_plain(float alpha, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::fma(alpha, x[i], y[i]);
}

// Calls visit(j) for every key row r sees, in index order.
template <typename Visit>
void for_each_visible(const VisibleKeys& v, Visit&& visit) {
  for (int32_t j = 0; j < v.context_end; ++j) visit(j);
  for (int32_t j = v.own_begin; j < v.own_end; ++j) visit(j);
}

}  // namespace

void attention(const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
               int64_t n_rows, const float* keys, const float* values, float* out) {
  const bool fast = cpu_has_avx2_fma();
  const auto dot = fast ? dot_avx2 : dot_plain;
  const auto axpy = fast ? axpy_avx2 : axpy_plain;
  const int64_t hd = dims.head_dim, kv_dim = dims.kv_dim(), group = dims.n_heads / dims.n_kv_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  int64_t n_visible = 0;  // keys seen, over all rows: the work is ~4 head_dim per key and head
  for (int64_t r = 0; r < n_rows; ++r) n_visible += visible[r].context_end + (visible[r].own_end - visible[r].own_begin);
  const int64_t work_per_task = n_rows > 0 ? 4 * hd * n_visible / n_rows : 0;
  parallel_for(n_rows * dims.n_heads, [&](int64_t task) {
    const int64_t r = task / dims.n_heads, h = task % dims.n_heads;
    const VisibleKeys& v = visible[r];
    const float* q_h = q + r * q_stride + h * hd;
    const int64_t kv_offset = (h / group) * hd;
    thread_local std::vector<float> scores;
    scores.resize(static_cast<size_t>(v.context_end + (v.own_end - v.own_begin)));
    // Pass 1: scores and their maximum.
    size_t n = 0;
    float max_score = -std::numeric_limits<float>::infinity();
    for_each_visible(v, [&](int32_t j) {
      const float s = dot(q_h, keys + j * kv_dim + kv_offset, hd) * scale;
      scores[n++] = s;
      max_score = std::max(max_score, s);
    });
    // Pass 2: p_j = exp(s_j - max), out = sum_j p_j v_j / sum_j p_j.
    float* out_h = out + r * dims.q_dim() + h * hd;
    std::fill(out_h, out_h + hd, 0.0f);
    float total = 0.0f;
    n = 0;
    for_each_visible(v, [&](int32_t j) {
      const float p = std::exp(scores[n++] - max_score);
      total += p;
      axpy(p, values + j * kv_dim + kv_offset, out_h, hd);
    });
    const float inv_total = 1.0f / total;
    for (int64_t i = 0; i < hd; ++i) out_h[i] *= inv_total;
  }, work_per_task);
}

void attention_reference(const AttentionDims& dims, const float* q, int64_t q_stride,
                         const VisibleKeys* visible, int64_t n_rows, const float* keys, const float* values,
                         float* out) {
  const int64_t hd = dims.head_dim, kv_dim = dims.kv_dim(), group = dims.n_heads / dims.n_kv_heads;
  for (int64_t r = 0; r < n_rows; ++r)
    for (int64_t h = 0; h < dims.n_heads; ++h) {
      const float* q_h = q + r * q_stride + h * hd;
      const int64_t kv_offset = (h / group) * hd;
      std::vector<int32_t> seen;
      for_each_visible(visible[r], [&](int32_t j) { seen.push_back(j); });
      std::vector<double> scores;
      for (int32_t j : seen) {
        double s = 0;
        for (int64_t i = 0; i < hd; ++i) s += double(q_h[i]) * keys[j * kv_dim + kv_offset + i];
        scores.push_back(s / std::sqrt(double(hd)));
      }
      const double m = *std::max_element(scores.begin(), scores.end());
      double total = 0;
      std::vector<double> acc(hd, 0.0);
      for (size_t n = 0; n < seen.size(); ++n) {
        const double p = std::exp(scores[n] - m);
        total += p;
        for (int64_t i = 0; i < hd; ++i) acc[i] += p * values[seen[n] * kv_dim + kv_offset + i];
      }
      for (int64_t i = 0; i < hd; ++i) out[r * dims.q_dim() + h * hd + i] = static_cast<float>(acc[i] / total);
    }
}

}  // namespace sift
