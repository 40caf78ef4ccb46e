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
//
// A tile computes R rows at once (R = 1, or 2 rows that see the same keys: see RowGroup
// below) so that each key and value vector loaded serves both rows; every (row, head, key)
// sum and every (row, head, column) chain is still computed alone, in the order above.

// Eight lane vectors -> the eight lane_tree sums, in order (hadd pairs lanes 0+1, 2+3, ...).
__attribute__((target("avx2,fma"))) inline __m256 lane_tree8(const __m256* a) {
  const __m256 h0123 = _mm256_hadd_ps(_mm256_hadd_ps(a[0], a[1]), _mm256_hadd_ps(a[2], a[3]));
  const __m256 h4567 = _mm256_hadd_ps(_mm256_hadd_ps(a[4], a[5]), _mm256_hadd_ps(a[6], a[7]));
  // h0123 = [s0 s1 s2 s3 | t0 t1 t2 t3]: (l0+l1)+(l2+l3) in the low half, (l4+l5)+(l6+l7) high.
  return _mm256_add_ps(_mm256_permute2f128_ps(h0123, h4567, 0x20), _mm256_permute2f128_ps(h0123, h4567, 0x31));
}

// Scores of NH adjacent heads (q[r], q[r] + hd, ...) of R rows against NK keys (k, k + k_stride, ...):
// s[r][u * s_stride + b] = dot(q_ru, k_b) * scale. R * NH * NK is 8 or a single key.
template <int R, int NH, int NK>
__attribute__((target("avx2,fma"))) void score_tile(const float* const* q, int64_t hd, const float* k, int64_t k_stride,
                                                    float scale, float* const* s, int64_t s_stride) {
  static_assert(R * NH * NK == 8 || NK == 1);
  constexpr int kAcc = R * NH * NK;  // accumulator (r, u, b) at (r * NH + u) * NK + b
  __m256 acc[kAcc];
#pragma GCC unroll 8
  for (int t = 0; t < kAcc; ++t) acc[t] = _mm256_setzero_ps();
  const int64_t hd8 = hd / 8 * 8;
  for (int64_t i = 0; i < hd8; i += 8) {
    __m256 kv[NK];
#pragma GCC unroll 8
    for (int b = 0; b < NK; ++b) kv[b] = _mm256_loadu_ps(k + b * k_stride + i);
#pragma GCC unroll 8
    for (int ru = 0; ru < R * NH; ++ru) {
      const __m256 qv = _mm256_loadu_ps(q[ru / NH] + (ru % NH) * hd + i);
#pragma GCC unroll 8
      for (int b = 0; b < NK; ++b) acc[ru * NK + b] = _mm256_fmadd_ps(qv, kv[b], acc[ru * NK + b]);
    }
  }
  alignas(32) float sums[kAcc];
  if constexpr (kAcc == 8) {
    _mm256_store_ps(sums, lane_tree8(acc));
  } else {
    alignas(32) float lane[8];
    for (int t = 0; t < kAcc; ++t) {
      _mm256_store_ps(lane, acc[t]);
      sums[t] = lane_tree(lane);
    }
  }
  for (int ru = 0; ru < R * NH; ++ru) {
    const float* q_ru = q[ru / NH] + (ru % NH) * hd;
    for (int b = 0; b < NK; ++b) {
      float sum = sums[ru * NK + b];
      for (int64_t i = hd8; i < hd; ++i) sum = std::fma(q_ru[i], k[b * k_stride + i], sum);
      s[ru / NH][(ru % NH) * s_stride + b] = sum * scale;
    }
  }
}

// Scores of NH heads of R rows against the keys of one run, NK keys at a time.
template <int R, int NH, int NK>
__attribute__((target("avx2,fma"))) void score_run(const float* const* q, int64_t hd, const KeyRun& run,
                                                   const float* keys, int64_t key_stride, float scale, float* const* s,
                                                   int64_t s_stride) {
  float* dst[R];
  for (int r = 0; r < R; ++r) dst[r] = s[r] + run.n_offset;
  int32_t j = run.begin;
  for (; j + NK <= run.end; j += NK) {
    score_tile<R, NH, NK>(q, hd, keys + j * key_stride, key_stride, scale, dst, s_stride);
    for (int r = 0; r < R; ++r) dst[r] += NK;
  }
  for (; j < run.end; ++j) {
    score_tile<R, NH, 1>(q, hd, keys + j * key_stride, key_stride, scale, dst, s_stride);
    for (int r = 0; r < R; ++r) ++dst[r];
  }
}

// acc[(r * NH + u) * NC + c] += p_ru[n] * v_j[c0 + 8c ..] for rows [r_first, R): key j, at
// position n of the rows' score lists.
template <int R, int NH, int NC>
__attribute__((target("avx2,fma"), always_inline)) inline void take_value(__m256* acc, int r_first, const float* const* p,
                                                                          int64_t p_stride, const float* vj, int64_t n) {
  __m256 vv[NC];
#pragma GCC unroll 8
  for (int c = 0; c < NC; ++c) vv[c] = _mm256_loadu_ps(vj + 8 * c);
#pragma GCC unroll 8
  for (int ru = r_first * NH; ru < R * NH; ++ru) {
    const __m256 pu = _mm256_broadcast_ss(p[ru / NH] + (ru % NH) * p_stride + n);
#pragma GCC unroll 8
    for (int c = 0; c < NC; ++c) acc[ru * NC + c] = _mm256_fmadd_ps(pu, vv[c], acc[ru * NC + c]);
  }
}

// out[r][u * hd + c0 ..][8 * NC columns] = (sum over the row's visible j in order of p_ru[n] v_j)
// * inv_total[r][u]: every row over the keys of `shared`, the last row then over `extra`.
template <int R, int NH, int NC>
__attribute__((target("avx2,fma"))) void weighted_values_tile(const float* const* p, int64_t p_stride,
                                                              const VisibleKeys& shared, const KeyRun& extra,
                                                              const float* values, int64_t key_stride, int64_t c0,
                                                              const float* const* inv_total, float* const* out,
                                                              int64_t hd) {
  constexpr int kAcc = R * NH * NC;  // accumulator (r, u, c) at (r * NH + u) * NC + c
  __m256 acc[kAcc];
#pragma GCC unroll 8
  for (int t = 0; t < kAcc; ++t) acc[t] = _mm256_setzero_ps();
  for (const KeyRun& range : key_ranges(shared))
    for (int32_t j = range.begin; j < range.end; ++j)
      take_value<R, NH, NC>(acc, 0, p, p_stride, values + j * key_stride + c0, range.n_offset + (j - range.begin));
  for (int32_t j = extra.begin; j < extra.end; ++j)
    take_value<R, NH, NC>(acc, R - 1, p, p_stride, values + j * key_stride + c0, extra.n_offset + (j - extra.begin));
  for (int ru = 0; ru < R * NH; ++ru)
    for (int c = 0; c < NC; ++c)
      _mm256_storeu_ps(out[ru / NH] + (ru % NH) * hd + c0 + 8 * c,
                       _mm256_mul_ps(acc[ru * NC + c], _mm256_set1_ps(inv_total[ru / NH][ru % NH])));
}

// One column (the head_dim % 8 tail) of one row, plain.
void weighted_values_column(const float* p, const VisibleKeys& v, const float* values, int64_t key_stride, int64_t c,
                            float inv_total, float* out) {
  float acc = 0.0f;
  for (const KeyRun& range : key_ranges(v))
    for (int32_t j = range.begin; j < range.end; ++j) acc = std::fma(p[range.n_offset + j - range.begin], values[j * key_stride + c], acc);
  *out = acc * inv_total;
}

// ---- one task: a group of rows and one kv head's group of query heads ---------------------

// R = 1 row, or 2 rows that see the same context and whose own keys start together, e.g.
// neighbours in a causal prompt or in one item. Row 0 is the one with fewer own keys; its
// keys (`shared`) are then the first keys of row 1, which also sees `extra`.
// q[r] and out[r] point at the group's first query head of row r.
struct RowGroup {
  int n_rows = 1;
  const float* q[2] = {};
  float* out[2] = {};
  VisibleKeys visible[2] = {};
};

bool see_same_keys_first(const VisibleKeys& a, const VisibleKeys& b) {
  return a.context_begin == b.context_begin && a.context_end == b.context_end && a.own_begin == b.own_begin;
}

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

template <int R, int NH>
__attribute__((target("avx2,fma"))) void scores_of_heads(const RowGroup& g, int64_t h, int64_t hd, const KeyRun& extra,
                                                         const float* keys, int64_t key_stride, float scale, float* const* s,
                                                         int64_t s_stride) {
  constexpr int kKeys = 8 / (R * NH);  // keys per tile: R * NH * kKeys = 8 sums
  const float* q[R];
  float* s_h[R];
  for (int r = 0; r < R; ++r) q[r] = g.q[r] + h * hd, s_h[r] = s[r] + h * s_stride;
  for (const KeyRun& run : key_ranges(g.visible[0])) score_run<R, NH, kKeys>(q, hd, run, keys, key_stride, scale, s_h, s_stride);
  score_run<1, NH, 8 / NH>(q + R - 1, hd, extra, keys, key_stride, scale, s_h + R - 1, s_stride);
}

template <int R, int NH>
__attribute__((target("avx2,fma"))) void values_of_heads(const RowGroup& g, int64_t h, int64_t hd, const KeyRun& extra,
                                                         float* const* p, int64_t p_stride, const float* values,
                                                         int64_t key_stride, float* const* inv_total) {
  constexpr int kWide = 8 / (R * NH);  // column vectors per pass: R * NH * kWide = 8 accumulators
  const float* p_h[R];
  const float* inv_h[R];
  float* out_h[R];
  for (int r = 0; r < R; ++r) p_h[r] = p[r] + h * p_stride, inv_h[r] = inv_total[r] + h, out_h[r] = g.out[r] + h * hd;
  int64_t c0 = 0;
  for (; c0 + 8 * kWide <= hd; c0 += 8 * kWide)
    weighted_values_tile<R, NH, kWide>(p_h, p_stride, g.visible[0], extra, values, key_stride, c0, inv_h, out_h, hd);
  for (; c0 + 8 <= hd; c0 += 8) weighted_values_tile<R, NH, 1>(p_h, p_stride, g.visible[0], extra, values, key_stride, c0, inv_h, out_h, hd);
  for (int r = 0; r < R; ++r)
    for (int u = 0; u < NH; ++u)
      for (int64_t c = c0; c < hd; ++c)
        weighted_values_column(p_h[r] + u * p_stride, g.visible[r], values, key_stride, c, inv_h[r][u], out_h[r] + u * hd + c);
}

// The group's rows for the query heads [0, n_heads) that share one kv head: keys and values
// point at that kv head's columns (row stride key_stride). Heads go in pairs, an odd one alone.
template <int R>
void attend_fast(const RowGroup& g, int64_t n_heads, int64_t hd, const float* keys, const float* values,
                 int64_t key_stride, float scale) {
  const VisibleKeys& last = g.visible[R - 1];
  // The last row's own keys after the shared ones (none when R = 1).
  const KeyRun extra{R == 1 ? last.own_end : g.visible[0].own_end, last.own_end,
                     static_cast<int32_t>(n_visible(g.visible[0]))};
  const int64_t n_last = n_visible(last);  // the longest score list: every row's list stride
  thread_local std::vector<float> scores, inv_total_buffer;
  scores.resize(static_cast<size_t>(R * n_heads * n_last));
  inv_total_buffer.resize(static_cast<size_t>(R * n_heads));
  float* s[R];
  float* inv_total[R];
  for (int r = 0; r < R; ++r) s[r] = scores.data() + r * n_heads * n_last, inv_total[r] = inv_total_buffer.data() + r * n_heads;
  for (int64_t h = 0; h < n_heads;) {
    if (n_heads - h >= 2) {
      scores_of_heads<R, 2>(g, h, hd, extra, keys, key_stride, scale, s, n_last);
      h += 2;
    } else {
      scores_of_heads<R, 1>(g, h, hd, extra, keys, key_stride, scale, s, n_last);
      h += 1;
    }
  }
  for (int r = 0; r < R; ++r) softmax_rows(s[r], n_last, n_heads, n_visible(g.visible[r]), true, inv_total[r]);
  for (int64_t h = 0; h < n_heads;) {
    if (n_heads - h >= 2) {
      values_of_heads<R, 2>(g, h, hd, extra, s, n_last, values, key_stride, inv_total);
      h += 2;
    } else {
      values_of_heads<R, 1>(g, h, hd, extra, s, n_last, values, key_stride, inv_total);
      h += 1;
    }
  }
}

void attend_plain(const float* q, int64_t n_heads, int64_t hd, const VisibleKeys& v, const float* keys,
                  const float* values, int64_t key_stride, float scale, float* out) {
  const int64_t n = n_visible(v);
  thread_local std::vector<float> scores, inv_total;  // kept across calls, as in attend_fast
  scores.resize(static_cast<size_t>(n_heads * n));
  inv_total.resize(static_cast<size_t>(n_heads));
  for (int64_t u = 0; u < n_heads; ++u)
    for (const KeyRun& range : key_ranges(v))
      for (int32_t j = range.begin; j < range.end; ++j)
        scores[u * n + range.n_offset + j - range.begin] = dot_plain(q + u * hd, keys + j * key_stride, hd) * scale;
  softmax_rows(scores.data(), n, n_heads, n, false, inv_total.data());
  for (int64_t u = 0; u < n_heads; ++u)
    for (int64_t c = 0; c < hd; ++c)
      weighted_values_column(scores.data() + u * n, v, values, key_stride, c, inv_total[u], out + u * hd + c);
}

// The keys and values as (n_kv_heads, n_keys, head_dim): each kv head's rows contiguous. In
// the cache's (n_keys, kv_dim) layout a head's consecutive keys sit kv_dim floats apart (4 KiB
// for Qwen3-0.6B), so a pass over them touches a new page per key and its loads alias in L1;
// the copy costs ~1 / (rows x group) of the attention it feeds, so it pays from a few rows on.
constexpr int64_t kHeadMajorMinRows = 16;

// Where kv head g's keys and values are read: at keys + g * head_step, one key every
// key_stride floats (the cache's rows: head_step = head_dim, key_stride = kv_dim).
struct KvLayout {
  const float* keys;
  const float* values;
  int64_t key_stride;
  int64_t head_step;
};

KvLayout head_major(const AttentionDims& dims, int64_t n_keys, const float* keys, const float* values) {
  const int64_t hd = dims.head_dim, kv_dim = dims.kv_dim(), block = n_keys * hd;
  thread_local std::vector<float> buffer;  // the caller's, kept across calls (grows only)
  if (static_cast<int64_t>(buffer.size()) < 2 * dims.n_kv_heads * block)
    buffer.resize(static_cast<size_t>(2 * dims.n_kv_heads * block));
  float* k = buffer.data();
  float* v = k + dims.n_kv_heads * block;
  parallel_for(dims.n_kv_heads, [&](int64_t g) {
    for (int64_t j = 0; j < n_keys; ++j) {
      std::copy_n(keys + j * kv_dim + g * hd, hd, k + g * block + j * hd);
      std::copy_n(values + j * kv_dim + g * hd, hd, v + g * block + j * hd);
    }
  }, 2 * block);
  return {k, v, hd, block};
}

// Tasks: (kv head, group of rows). With `fast`, neighbouring rows that see the same keys
// first go in pairs (RowGroup); the plain path takes rows one by one. Either way every row's
// arithmetic is its own, so neither the grouping nor the layout the keys are read from
// changes a bit.
void attention_with(bool fast, const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
                    int64_t n_rows, const float* keys, const float* values, float* out) {
  const int64_t hd = dims.head_dim, kv_dim = dims.kv_dim(), group = dims.n_heads / dims.n_kv_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  thread_local std::vector<RowGroup> groups;  // the caller's, kept: a forward call allocates nothing once grown
  groups.clear();
  for (int64_t r = 0; r < n_rows;) {
    RowGroup g;
    const bool pair = fast && r + 1 < n_rows && see_same_keys_first(visible[r], visible[r + 1]);
    g.n_rows = pair ? 2 : 1;
    const bool swap = pair && visible[r + 1].own_end < visible[r].own_end;  // row 0: fewer own keys
    for (int i = 0; i < g.n_rows; ++i) {
      const int64_t row = r + (swap ? 1 - i : i);
      g.q[i] = q + row * q_stride;
      g.out[i] = out + row * dims.q_dim();
      g.visible[i] = visible[row];
    }
    groups.push_back(g);
    r += g.n_rows;
  }
  const int64_t n_groups = static_cast<int64_t>(groups.size());
  const RowGroup* const group_list = groups.data();  // a thread_local is not captured: the workers use this
  int64_t keys_seen = 0, n_keys = 0;  // over all rows: the work is ~4 head_dim flops per key and query head
  for (int64_t r = 0; r < n_rows; ++r) {
    keys_seen += n_visible(visible[r]);
    n_keys = std::max<int64_t>({n_keys, visible[r].context_end, visible[r].own_end});
  }
  const KvLayout layout = fast && n_rows >= kHeadMajorMinRows ? head_major(dims, n_keys, keys, values)
                                                              : KvLayout{keys, values, kv_dim, hd};
  const int64_t work_per_task = n_groups > 0 ? 4 * hd * group * keys_seen / n_groups : 0;
  // Tasks kv-head-major, so a thread walks the rows of one kv head and its keys stay in cache.
  parallel_for(n_groups * dims.n_kv_heads, [&](int64_t task) {
    const int64_t kv_head = task / n_groups, h0 = kv_head * group;
    RowGroup g = group_list[task % n_groups];
    for (int i = 0; i < g.n_rows; ++i) g.q[i] += h0 * hd, g.out[i] += h0 * hd;
    const float* k = layout.keys + kv_head * layout.head_step;
    const float* v = layout.values + kv_head * layout.head_step;
    if (!fast)
      attend_plain(g.q[0], group, hd, g.visible[0], k, v, layout.key_stride, scale, g.out[0]);
    else if (g.n_rows == 1)
      attend_fast<1>(g, group, hd, k, v, layout.key_stride, scale);
    else
      attend_fast<2>(g, group, hd, k, v, layout.key_stride, scale);
  }, work_per_task);
}

}  // namespace

void attention(const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
               int64_t n_rows, const float* keys, const float* values, float* out) {
  attention_with(cpu_has_avx2_fma(), dims, q, q_stride, visible, n_rows, keys, values, out);
}

void attention_plain(const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
                     int64_t n_rows, const float* keys, const float* values, float* out) {
  attention_with(false, dims, q, q_stride, visible, n_rows, keys, values, out);
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
