#include "kernels/attention.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu_features.h"
#include "kernels/vector_math.h"

namespace sift {
namespace {

// The arithmetic, fixed for every path (so fast == plain bitwise, and a row's bits never
// depend on its companions):
//   score_j = dot(q_h, k_j) * scale, where dot keeps 8 lane sums (lane l: fma chain over
//             i = l, l+8, ... in order), adds them as ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)),
//             then fma-chains the head_dim % 8 tail;
//   p_j     = exp(score_j - max_j score_j)          (exp_inplace);
//   total   = sum_fixed_order(p);
//   out_h   = (fma chain over visible j in order of p_j v_j, from 0) * (1 / total).

// Each row sees two key ranges: [context_begin, context_end) then [own_begin, own_end).
// Position n in a row's score list counts over both.
struct KeyRun {
  int32_t begin, end, n_offset;
};
inline std::array<KeyRun, 2> key_ranges(const VisibleKeys& v) {
  const int32_t n_context = v.context_end - v.context_begin;
  return {KeyRun{v.context_begin, v.context_end, 0}, KeyRun{v.own_begin, v.own_end, n_context}};
}
inline int64_t n_visible(const VisibleKeys& v) { return (v.context_end - v.context_begin) + (v.own_end - v.own_begin); }

float lane_tree(const float* lane) {
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

float dot_plain(const float* q, const float* k, int64_t hd) {
  float lane[8] = {};
  int64_t i = 0;
  for (; i + 8 <= hd; i += 8)
    for (int l = 0; l < 8; ++l) lane[l] = std::fma(q[i + l], k[i + l], lane[l]);
  float sum = lane_tree(lane);
  for (; i < hd; ++i) sum = std::fma(q[i], k[i], sum);
  return sum;
}

// ---- AVX2 tiles --------------------------------------------------------------------------

// Eight lane vectors -> the eight lane_tree sums, in order (hadd pairs lanes 0+1, 2+3, ...).
__attribute__((target("avx2,fma"))) inline __m256 lane_tree8(const __m256* a) {
  const __m256 h0123 = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
  const __m256 h4567 = _mm256_hadd_ps(_mm256_hadd_ps(a[4], a[5]), _mm256_hadd_ps(a[6], a[7]));
  // h0123 = [s0 s1 s2 s3 | t0 t1 t2 t3]: (l0+l1)+(l2+l3) in the low half, (l4+l5)+(l6+l7) high.
  return _mm256_add_ps(_mm256_permute2f128_ps(h0123, h4567, 0x20), _mm256_permute2f128_ps(h0123, h4567, 0x31));
}

// Scores of NH adjacent heads (q, q + hd, ...) against NK keys (k, k + k_stride, ...):
// s[u * s_stride + b] = dot(q_u, k_b) * scale. NH * NK is 8 or a single dot per head.
template <int NH, int NK>
__attribute__((target("avx2,fma"))) void score_tile(const float* q, int64_t hd, const float* k, int64_t k_stride,
                                                    float scale, float* s, int64_t s_stride) {
  static_assert(NH * NK == 8 || NK == 1);
  __m256 acc[NH * NK];
#pragma GCC unroll 8
  for (int t = 0; t < NH * NK; ++t) acc[t] = _mm256_setzero_ps();
  const int64_t hd8 = hd / 8 * 8;
  for (int64_t i = 0; i < hd8; i += 8) {
    __m256 kv[NK];
#pragma GCC unroll 8
    for (int b = 0; b < NK; ++b) kv[b] = _mm256_loadu_ps(k + b * k_stride + i);
#pragma GCC unroll 8
    for (int u = 0; u < NH; ++u) {
      const __m256 qv = _mm256_loadu_ps(q + u * hd + i);
#pragma GCC unroll 8
      for (int b = 0; b < NK; ++b) acc[u * NK + b] = _mm256_fmadd_ps(qv, kv[b], acc[u * NK + b]);
    }
  }
  alignas(32) float sums[8];
  if constexpr (NH * NK == 8) {
    _mm256_store_ps(sums, lane_tree8(acc));
  } else {
    alignas(32) float lane[8];
    for (int u = 0; u < NH; ++u) {
      _mm256_store_ps(lane, acc[u]);
      sums[u] = lane_tree(lane);
    }
  }
  for (int u = 0; u < NH; ++u)
    for (int b = 0; b < NK; ++b) {
      float sum = sums[u * NK + b];
      for (int64_t i = hd8; i < hd; ++i) sum = std::fma(q[u * hd + i], k[b * k_stride + i], sum);
      s[u * s_stride + b] = sum * scale;
    }
}

// Scores of NH heads against every key the row sees, NK keys at a time.
template <int NH, int NK>
__attribute__((target("avx2,fma"))) void score_row(const float* q, int64_t hd, const VisibleKeys& v, const float* keys,
                                                   int64_t kv_dim, float scale, float* s, int64_t s_stride) {
  for (const KeyRun& range : key_ranges(v)) {
    int32_t j = range.begin;
    float* dst = s + range.n_offset;
    for (; j + NK <= range.end; j += NK, dst += NK) score_tile<NH, NK>(q, hd, keys + j * kv_dim, kv_dim, scale, dst, s_stride);
    for (; j < range.end; ++j, ++dst) score_tile<NH, 1>(q, hd, keys + j * kv_dim, kv_dim, scale, dst, s_stride);
  }
}

// out[u * hd + c0 ..][8 * NC columns] = (sum over visible j in order of p_u[n] v_j) * inv_total[u].
template <int NH, int NC>
__attribute__((target("avx2,fma"))) void weighted_values_tile(const float* p, int64_t p_stride, const VisibleKeys& v,
                                                              const float* values, int64_t kv_dim, int64_t c0,
                                                              const float* inv_total, float* out, int64_t hd) {
  __m256 acc[NH * NC];
#pragma GCC unroll 8
  for (int t = 0; t < NH * NC; ++t) acc[t] = _mm256_setzero_ps();
  for (const KeyRun& range : key_ranges(v)) {
    const float* pn = p + range.n_offset;
    for (int32_t j = range.begin; j < range.end; ++j, ++pn) {
      const float* vj = values + j * kv_dim + c0;
      __m256 vv[NC];
#pragma GCC unroll 8
      for (int c = 0; c < NC; ++c) vv[c] = _mm256_loadu_ps(vj + 8 * c);
#pragma GCC unroll 8
      for (int u = 0; u < NH; ++u) {
        const __m256 pu = _mm256_broadcast_ss(pn + u * p_stride);
#pragma GCC unroll 8
        for (int c = 0; c < NC; ++c) acc[u * NC + c] = _mm256_fmadd_ps(pu, vv[c], acc[u * NC + c]);
      }
    }
  }
  for (int u = 0; u < NH; ++u)
    for (int c = 0; c < NC; ++c)
      _mm256_storeu_ps(out + u * hd + c0 + 8 * c, _mm256_mul_ps(acc[u * NC + c], _mm256_set1_ps(inv_total[u])));
}

// One column (the head_dim % 8 tail), plain.
void weighted_values_column(const float* p, const VisibleKeys& v, const float* values, int64_t kv_dim, int64_t c,
                            float inv_total, float* out) {
  float acc = 0.0f;
  for (const KeyRun& range : key_ranges(v))
    for (int32_t j = range.begin; j < range.end; ++j) acc = std::fma(p[range.n_offset + j - range.begin], values[j * kv_dim + c], acc);
  *out = acc * inv_total;
}

template <int NH>
__attribute__((target("avx2,fma"))) void weighted_values_row(const float* p, int64_t p_stride, const VisibleKeys& v,
                                                             const float* values, int64_t kv_dim, const float* inv_total,
                                                             float* out, int64_t hd) {
  constexpr int kWide = 8 / NH;  // NH * kWide accumulators = 8
  int64_t c0 = 0;
  for (; c0 + 8 * kWide <= hd; c0 += 8 * kWide) weighted_values_tile<NH, kWide>(p, p_stride, v, values, kv_dim, c0, inv_total, out, hd);
  for (; c0 + 8 <= hd; c0 += 8) weighted_values_tile<NH, 1>(p, p_stride, v, values, kv_dim, c0, inv_total, out, hd);
  for (int u = 0; u < NH; ++u)
    for (int64_t c = c0; c < hd; ++c) weighted_values_column(p + u * p_stride, v, values, kv_dim, c, inv_total[u], out + u * hd + c);
}

// ---- one (row, kv head): its group of query heads ----------------------------------------

// Softmax of each head's scores in place (p = exp(s - max)); returns 1 / total per head.
void softmax_rows(float* s, int64_t s_stride, int64_t n_heads, int64_t n, bool fast, float* inv_total) {
  for (int64_t u = 0; u < n_heads; ++u) {
    float* su = s + u * s_stride;
    const float max_score = *std::max_element(su, su + n);
    for (int64_t i = 0; i < n; ++i) su[i] -= max_score;
    if (fast) {
      exp_inplace(su, n);
      inv_total[u] = 1.0f / sum_fixed_order(su, n);
    } else {
      for (int64_t i = 0; i < n; ++i) su[i] = exp_plain(su[i]);
      inv_total[u] = 1.0f / sum_fixed_order_plain(su, n);
    }
  }
}

// One row's group of n_heads query heads that share one kv head: q and out point at the
// group's first head, keys and values at that kv head's columns (row stride kv_dim).
void attend_fast(const float* q, int64_t n_heads, int64_t hd, const VisibleKeys& v, const float* keys,
                 const float* values, int64_t kv_dim, float scale, float* out) {
  const int64_t n = n_visible(v);
  thread_local std::vector<float> scores, inv_total_buffer;
  scores.resize(static_cast<size_t>(n_heads * n));
  inv_total_buffer.resize(static_cast<size_t>(n_heads));
  float* inv_total = inv_total_buffer.data();
  for (int64_t h = 0; h < n_heads;) {  // heads in pairs (4 keys per tile), an odd one alone (8 keys)
    if (n_heads - h >= 2) {
      score_row<2, 4>(q + h * hd, hd, v, keys, kv_dim, scale, scores.data() + h * n, n);
      h += 2;
    } else {
      score_row<1, 8>(q + h * hd, hd, v, keys, kv_dim, scale, scores.data() + h * n, n);
      h += 1;
    }
  }
  softmax_rows(scores.data(), n, n_heads, n, true, inv_total);
  for (int64_t h = 0; h < n_heads;) {
    if (n_heads - h >= 2) {
      weighted_values_row<2>(scores.data() + h * n, n, v, values, kv_dim, inv_total + h, out + h * hd, hd);
      h += 2;
    } else {
      weighted_values_row<1>(scores.data() + h * n, n, v, values, kv_dim, inv_total + h, out + h * hd, hd);
      h += 1;
    }
  }
}

void attend_plain(const float* q, int64_t n_heads, int64_t hd, const VisibleKeys& v, const float* keys,
                  const float* values, int64_t kv_dim, float scale, float* out) {
  const int64_t n = n_visible(v);
  thread_local std::vector<float> scores, inv_total;  // kept across calls, as in attend_simd
  scores.resize(static_cast<size_t>(n_heads * n));
  inv_total.resize(static_cast<size_t>(n_heads));
  for (int64_t u = 0; u < n_heads; ++u)
    for (const KeyRun& range : key_ranges(v))
      for (int32_t j = range.begin; j < range.end; ++j)
        scores[u * n + range.n_offset + j - range.begin] = dot_plain(q + u * hd, keys + j * kv_dim, hd) * scale;
  softmax_rows(scores.data(), n, n_heads, n, false, inv_total.data());
  for (int64_t u = 0; u < n_heads; ++u)
    for (int64_t c = 0; c < hd; ++c)
      weighted_values_column(scores.data() + u * n, v, values, kv_dim, c, inv_total[u], out + u * hd + c);
}

using AttendFn = void (*)(const float*, int64_t, int64_t, const VisibleKeys&, const float*, const float*, int64_t,
                          float, float*);

void attention_with(AttendFn attend, const AttentionDims& dims, const float* q, int64_t q_stride,
                    const VisibleKeys* visible, int64_t n_rows, const float* keys, const float* values, float* out) {
  const int64_t hd = dims.head_dim, kv_dim = dims.kv_dim(), group = dims.n_heads / dims.n_kv_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  int64_t keys_seen = 0;  // over all rows: the work is ~4 head_dim flops per key and query head
  for (int64_t r = 0; r < n_rows; ++r) keys_seen += n_visible(visible[r]);
  const int64_t work_per_task = n_rows > 0 ? 4 * hd * group * keys_seen / n_rows : 0;
  // Tasks kv-head-major, so a thread walks the rows of one kv head and its keys stay in cache.
  parallel_for(n_rows * dims.n_kv_heads, [&](int64_t task) {
    const int64_t g = task / n_rows, r = task % n_rows;
    const int64_t h0 = g * group;
    attend(q + r * q_stride + h0 * hd, group, hd, visible[r], keys + g * hd, values + g * hd, kv_dim, scale,
           out + r * dims.q_dim() + h0 * hd);
  }, work_per_task);
}

}  // namespace

void attention(const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
               int64_t n_rows, const float* keys, const float* values, float* out) {
  attention_with(cpu_has_avx2_fma() ? attend_fast : attend_plain, dims, q, q_stride, visible, n_rows, keys, values, out);
}

void attention_plain(const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
                     int64_t n_rows, const float* keys, const float* values, float* out) {
  attention_with(attend_plain, dims, q, q_stride, visible, n_rows, keys, values, out);
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
      for (const KeyRun& range : key_ranges(visible[r]))
        for (int32_t j = range.begin; j < range.end; ++j) seen.push_back(j);
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
