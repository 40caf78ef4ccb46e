#include "kernels/attention.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/attention_bf16.h"
#include "kernels/cpu_features.h"
#include "kernels/micro_tile.h"
#include "kernels/transpose8x8.h"
#include "kernels/vector_math.h"

namespace sift {
namespace {

// The arithmetic, fixed for every path (so fast == plain bitwise, and a row's bits never
// depend on its companions):
//   score_j = dot(q_h, k_j) * scale, dot one fma chain over i = 0..head_dim-1 in order, from 0;
//   p_j     = exp(score_j - max_j score_j)          (exp_inplace's exp);
//   total   = sum_fixed_order(p)                    (both in one pass: exp_shifted_sum);
//   out_h   = (fma chain over visible j in order of p_j v_j, from 0) * (1 / total).
// Both chains are the F32 gemm's (kernels/micro_tile.h), which computes them for many rows,
// keys and columns at once.

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

// ---- plain: one row, one element at a time -------------------------------------------------

float dot_plain(const float* q, const float* k, int64_t hd) {
  float sum = 0.0f;
  for (int64_t i = 0; i < hd; ++i) sum = std::fma(q[i], k[i], sum);
  return sum;
}

// Softmax of each head's scores in place (p = exp(s - max)); returns 1 / total per head.
void softmax_rows_plain(float* s, int64_t s_stride, int64_t n_heads, int64_t n, float* inv_total) {
  for (int64_t u = 0; u < n_heads; ++u) {
    float* su = s + u * s_stride;
    inv_total[u] = 1.0f / exp_shifted_sum_plain(su, n, *std::max_element(su, su + n));
  }
}

// dst[i] = src[i] * scale for i < n; returns the largest dst[i] (-inf for none). The maximum is
// the same value in any order, so it is taken 16 or 8 at a time.
// GCC 12's AVX-512 headers start some results from _mm512_undefined and then warn that they
// may be used uninitialized (GCC bug 105593); they are not.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
__attribute__((target("avx512f"))) float scale_into_avx512(const float* src, int64_t n, float scale, float* dst) {
  const __m512 s = _mm512_set1_ps(scale);
  __m512 m = _mm512_set1_ps(-INFINITY);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_mul_ps(_mm512_loadu_ps(src + i), s);
    _mm512_storeu_ps(dst + i, x);
    m = _mm512_max_ps(m, x);
  }
  float result = _mm512_reduce_max_ps(m);
  for (; i < n; ++i) result = std::max(result, dst[i] = src[i] * scale);
  return result;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

__attribute__((target("avx2,fma"))) float scale_into_avx2(const float* src, int64_t n, float scale, float* dst) {
  const __m256 s = _mm256_set1_ps(scale);
  __m256 m = _mm256_set1_ps(-INFINITY);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_mul_ps(_mm256_loadu_ps(src + i), s);
    _mm256_storeu_ps(dst + i, x);
    m = _mm256_max_ps(m, x);
  }
  alignas(32) float lane[8];
  _mm256_store_ps(lane, m);
  float result = *std::max_element(lane, lane + 8);
  for (; i < n; ++i) result = std::max(result, dst[i] = src[i] * scale);
  return result;
}

float scale_into(const float* src, int64_t n, float scale, float* dst) {
  return cpu_has_avx512f() ? scale_into_avx512(src, n, scale, dst) : scale_into_avx2(src, n, scale, dst);
}

// One row, the query heads [0, n_heads) of one kv head (keys and values at that head's
// columns, one key every key_stride floats).
void attend_plain(bool bf16, const float* q, int64_t n_heads, int64_t hd, const VisibleKeys& v, const float* keys,
                  const float* values, int64_t key_stride, float scale, float* out) {
  const int64_t n = n_visible(v);
  thread_local std::vector<float> scores, inv_total;  // kept across calls, as in attend_block
  scores.resize(static_cast<size_t>(n_heads * n));
  inv_total.resize(static_cast<size_t>(n_heads));
  for (int64_t u = 0; u < n_heads; ++u)
    for (const KeyRun& range : key_ranges(v))
      for (int32_t j = range.begin; j < range.end; ++j)
        scores[u * n + range.n_offset + j - range.begin] =
            (bf16 ? bf16_score_plain(q + u * hd, keys + j * key_stride, hd) : dot_plain(q + u * hd, keys + j * key_stride, hd)) *
            scale;
  softmax_rows_plain(scores.data(), n, n_heads, n, inv_total.data());
  if (bf16) {
    for (int64_t u = 0; u < n_heads; ++u) {
      bf16_value_chains_plain(v, scores.data() + u * n, values, key_stride, hd, out + u * hd);
      for (int64_t c = 0; c < hd; ++c) out[u * hd + c] *= inv_total[u];
    }
    return;
  }
  for (int64_t u = 0; u < n_heads; ++u)
    for (int64_t c = 0; c < hd; ++c) {
      float acc = 0.0f;
      for (const KeyRun& range : key_ranges(v))
        for (int32_t j = range.begin; j < range.end; ++j)
          acc = std::fma(scores[u * n + range.n_offset + j - range.begin], values[j * key_stride + c], acc);
      out[u * hd + c] = acc * inv_total[u];
    }
}

// ---- fast: blocks of rows through micro-tiles ----------------------------------------------

// The keys and values of one call as micro-tile operands, copied once per call and read by
// every block of rows: kv head g's keys 16p .. 16p + 15 transposed into a (head_dim, 16)
// panel at key_panel(g, p); its value columns 16c .. 16c + 15 as an (n_keys, 16) panel at
// value_panel(g, c). Keys past the call's last and columns past head_dim are 0.
struct KvPanels {
  const float* keys;
  const float* values;
  int64_t hd, n_keys, n_key_panels, n_column_panels;
  const float* key_panel(int64_t g, int64_t p) const { return keys + (g * n_key_panels + p) * hd * kTileCols; }
  const float* value_panel(int64_t g, int64_t c) const {
    return values + (g * n_column_panels + c) * n_keys * kTileCols;
  }
};

// panel[i * 16 + j] = key j's element i (key j at keys + j * key_stride) for the n_valid keys
// of one panel, 0 past them: a transposition, so any order of copying gives the same panel.
// A full panel with head_dim % 8 == 0 goes as 8 x 8 blocks through registers.
__attribute__((target("avx2"))) void transpose_key_panel(const float* keys, int64_t key_stride, int64_t n_valid,
                                                         int64_t hd, float* panel) {
  if (n_valid < kTileCols || hd % 8 != 0) {
    for (int64_t j = 0; j < kTileCols; ++j)
      for (int64_t i = 0; i < hd; ++i) panel[i * kTileCols + j] = j < n_valid ? keys[j * key_stride + i] : 0.0f;
    return;
  }
  for (int64_t i0 = 0; i0 < hd; i0 += 8)
    for (int64_t j0 = 0; j0 < kTileCols; j0 += 8) {
      __m256 r[8], t[8];  // r[k]: key j0 + k, elements i0 .. i0 + 7; t[d]: element i0 + d of the 8 keys
      for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(keys + (j0 + k) * key_stride + i0);
      transpose8x8(r, t);
      for (int d = 0; d < 8; ++d) _mm256_storeu_ps(panel + (i0 + d) * kTileCols + j0, t[d]);
    }
}

KvPanels kv_panels(const AttentionDims& dims, int64_t n_keys, const float* keys, const float* values) {
  const int64_t hd = dims.head_dim, kv_dim = dims.kv_dim();
  const int64_t n_key_panels = (n_keys + kTileCols - 1) / kTileCols, n_column_panels = (hd + kTileCols - 1) / kTileCols;
  const int64_t key_floats = dims.n_kv_heads * n_key_panels * hd * kTileCols;
  const int64_t value_floats = dims.n_kv_heads * n_column_panels * n_keys * kTileCols;
  thread_local std::vector<float> buffer;  // the caller's, kept across calls (grows only)
  if (static_cast<int64_t>(buffer.size()) < key_floats + value_floats)
    buffer.resize(static_cast<size_t>(key_floats + value_floats));
  const KvPanels panels{buffer.data(), buffer.data() + key_floats, hd, n_keys, n_key_panels, n_column_panels};
  float* const key_data = buffer.data();
  float* const value_data = buffer.data() + key_floats;
  parallel_for(dims.n_kv_heads * n_key_panels, [&](int64_t task) {  // task = g * n_key_panels + p
    const int64_t g = task / n_key_panels, p = task % n_key_panels;
    transpose_key_panel(keys + p * kTileCols * kv_dim + g * hd, kv_dim, std::min(kTileCols, n_keys - p * kTileCols), hd,
                        key_data + task * hd * kTileCols);
  }, hd * kTileCols);
  parallel_for(dims.n_kv_heads * n_column_panels, [&](int64_t task) {  // task = g * n_column_panels + c
    const int64_t g = task / n_column_panels, c0 = (task % n_column_panels) * kTileCols;
    const int64_t width = std::min(kTileCols, hd - c0);
    float* panel = value_data + task * n_keys * kTileCols;
    for (int64_t j = 0; j < n_keys; ++j) {
      std::copy_n(values + j * kv_dim + g * hd + c0, width, panel + j * kTileCols);
      std::fill(panel + j * kTileCols + width, panel + (j + 1) * kTileCols, 0.0f);
    }
  }, n_keys * kTileCols);
  return panels;
}

// Consecutive rows that see the same context and whose own keys start together (a causal
// prompt's rows, one item's rows), about kBlockVectors query vectors of them: vector
// t = r * group + u is the block's row r with the kv head's query head u.
constexpr int64_t kBlockVectors = 24;
constexpr int64_t kKeyChunk = 256;  // keys per values pass: a (256, 16) value panel slice stays in L1
struct RowBlock {
  int64_t first, n_rows;
};

bool see_same_keys_first(const VisibleKeys& a, const VisibleKeys& b) {
  return a.context_begin == b.context_begin && a.context_end == b.context_end && a.own_begin == b.own_begin;
}

// Columns of a block's score rows for the keys [begin, end): whole panels, from key
// 16 * (begin / 16) on (the keys before begin and past end are computed and not read).
int64_t panel_columns(int32_t begin, int32_t end) {
  return begin < end ? ((end + kTileCols - 1) / kTileCols - begin / kTileCols) * kTileCols : 0;
}

// s[t * ld + c] = dot(q_t, key 16 * (begin / 16) + c) for the n_vec packed query vectors and
// the keys of the panels covering [begin, end).
void score_panels(const float* q_packed, int64_t n_vec, const KvPanels& kv, int64_t kv_head, int32_t begin,
                  int32_t end, float* s, int64_t ld) {
  if (begin >= end) return;
  const int64_t p0 = begin / kTileCols, p1 = (end + kTileCols - 1) / kTileCols, step = tile_panels();
  const int64_t rows = tile_rows();
  for (int64_t p = p0; p < p1; p += step) {
    const int64_t n_columns = std::min(step, p1 - p) * kTileCols;
    for (int64_t t0 = 0; t0 < n_vec; t0 += rows)
      micro_tile(q_packed + t0 * kv.hd, kv.key_panel(kv_head, p), kv.hd * kTileCols, kv.hd, true,
                 s + t0 * ld + (p - p0) * kTileCols, ld, std::min(rows, n_vec - t0), n_columns);
  }
}

// o[c] = fma chain over the keys [begin, end) of p[n] v_j[c], continued from o (column panels
// of 16, so head_dim's padding columns are computed too and not read).
__attribute__((target("avx2,fma"))) void continue_value_chains(const KvPanels& kv, int64_t kv_head, int32_t begin,
                                                               int32_t end, const float* p, float* o) {
  for (int64_t c = 0; c < kv.n_column_panels; ++c) {
    const float* panel = kv.value_panel(kv_head, c);
    __m256 low = _mm256_loadu_ps(o + c * kTileCols), high = _mm256_loadu_ps(o + c * kTileCols + 8);
    for (int32_t j = begin; j < end; ++j) {
      const __m256 pj = _mm256_broadcast_ss(p + (j - begin));
      low = _mm256_fmadd_ps(pj, _mm256_loadu_ps(panel + j * kTileCols), low);
      high = _mm256_fmadd_ps(pj, _mm256_loadu_ps(panel + j * kTileCols + 8), high);
    }
    _mm256_storeu_ps(o + c * kTileCols, low);
    _mm256_storeu_ps(o + c * kTileCols + 8, high);
  }
}

// The rows of `block` for the query heads of kv head `kv_head`:
//  1. scores: the block's query vectors against whole key panels, in micro-tiles;
//  2. each vector's visible scores, scaled, as its list, and the softmax in place;
//  3. values: the keys every row of the block sees ([context_begin, context_end), then
//     [own_begin, shortest own_end)) lead every list, so their chains run in micro-tiles
//     over all vectors at once; each row's remaining own keys continue its chains alone;
//  4. out = chains * (1 / total).
// With kv16 (BF16), steps 1 and 3 run the BF16 chains over kv16's panels instead (kv unused).
void attend_block(const RowBlock& block, const VisibleKeys* visible, const float* q, int64_t q_stride, float* out,
                  int64_t out_stride, int64_t kv_head, int64_t group, const KvPanels& kv, const Bf16KvPanels* kv16,
                  float scale) {
  const int64_t hd = kv16 ? kv16->hd : kv.hd, n_vec = block.n_rows * group;
  const int64_t hd_padded = (kv16 ? kv16->n_column_panels : kv.n_column_panels) * kTileCols;
  const VisibleKeys& first = visible[block.first];
  int32_t own_end = first.own_end, shared_own_end = first.own_end;
  int64_t n_last = 0;  // the longest list: every vector's list stride
  for (int64_t r = block.first; r < block.first + block.n_rows; ++r) {
    own_end = std::max(own_end, visible[r].own_end);
    shared_own_end = std::min(shared_own_end, visible[r].own_end);
    n_last = std::max(n_last, n_visible(visible[r]));
  }
  auto row_of = [&](int64_t t) { return block.first + t / group; };

  thread_local std::vector<float> queries, q_packed, scores, probs, inv_totals, p_packed, chains;  // kept once grown
  // 1. Scores.
  queries.resize(static_cast<size_t>(n_vec * hd));
  for (int64_t t = 0; t < n_vec; ++t)
    std::copy_n(q + row_of(t) * q_stride + (kv_head * group + t % group) * hd, hd, queries.data() + t * hd);
  const int64_t context_columns = panel_columns(first.context_begin, first.context_end);
  const int64_t ld = context_columns + panel_columns(first.own_begin, own_end);
  scores.resize(static_cast<size_t>(n_vec * ld));
  if (kv16) {
    bf16_score_panels(queries.data(), n_vec, *kv16, kv_head, first.context_begin, first.context_end, scores.data(), ld);
    bf16_score_panels(queries.data(), n_vec, *kv16, kv_head, first.own_begin, own_end, scores.data() + context_columns, ld);
  } else {
    q_packed.resize(static_cast<size_t>((n_vec + kTileRows - 1) / kTileRows * kTileRows * hd));
    pack_tile_rows(queries.data(), n_vec, hd, hd, q_packed.data());
    score_panels(q_packed.data(), n_vec, kv, kv_head, first.context_begin, first.context_end, scores.data(), ld);
    score_panels(q_packed.data(), n_vec, kv, kv_head, first.own_begin, own_end, scores.data() + context_columns, ld);
  }

  // 2. Lists and softmax.
  probs.resize(static_cast<size_t>(n_vec * n_last));
  inv_totals.resize(static_cast<size_t>(n_vec));
  const int32_t n_context = first.context_end - first.context_begin;
  const float* context_scores = scores.data() + first.context_begin % kTileCols;
  const float* own_scores = scores.data() + context_columns + first.own_begin % kTileCols;
  for (int64_t t = 0; t < n_vec; ++t) {  // the list p = scores * scale, then p = exp(p - max p)
    const VisibleKeys& v = visible[row_of(t)];
    float* p = probs.data() + t * n_last;
    const float max_score = std::max(scale_into(context_scores + t * ld, n_context, scale, p),
                                     scale_into(own_scores + t * ld, v.own_end - v.own_begin, scale, p + n_context));
    inv_totals[t] = 1.0f / exp_shifted_sum(p, n_visible(v), max_score);
  }

  // 3. Values: the shared keys in chunks (the chains continue from chunk to chunk), then tails.
  chains.resize(static_cast<size_t>(n_vec * hd_padded));
  if (kv16) {  // BF16: pairs of list positions, so the shared part ends at an even position
    const int32_t n_even = (n_context + (shared_own_end - first.own_begin)) & ~1;
    bf16_shared_value_chains(*kv16, kv_head, first, n_even, probs.data(), n_vec, n_last, chains.data(), hd_padded);
    for (int64_t t = 0; t < n_vec; ++t)
      bf16_continue_value_chains(*kv16, kv_head, visible[row_of(t)], n_even, probs.data() + t * n_last,
                                 chains.data() + t * hd_padded);
  } else {
    p_packed.resize(static_cast<size_t>((n_vec + kTileRows - 1) / kTileRows * kTileRows * kKeyChunk));
    const int64_t step = tile_panels(), rows = tile_rows();
    bool first_chunk = true;
    for (const KeyRun& range : {KeyRun{first.context_begin, first.context_end, 0},
                                KeyRun{first.own_begin, shared_own_end, n_context}}) {
      for (int32_t j0 = range.begin; j0 < range.end; j0 += kKeyChunk) {
        const int64_t kc = std::min<int64_t>(kKeyChunk, range.end - j0);
        pack_tile_rows(probs.data() + range.n_offset + (j0 - range.begin), n_vec, kc, n_last, p_packed.data());
        for (int64_t c = 0; c < kv.n_column_panels; c += step) {
          const int64_t n_columns = std::min(step, kv.n_column_panels - c) * kTileCols;
          for (int64_t t0 = 0; t0 < n_vec; t0 += rows)
            micro_tile(p_packed.data() + t0 * kc, kv.value_panel(kv_head, c) + j0 * kTileCols, kv.n_keys * kTileCols,
                       kc, first_chunk, chains.data() + t0 * hd_padded + c * kTileCols, hd_padded,
                       std::min(rows, n_vec - t0), n_columns);
        }
        first_chunk = false;
      }
    }
    if (first_chunk) std::fill(chains.begin(), chains.end(), 0.0f);  // no shared keys (a row sees itself: not reached)
    for (int64_t t = 0; t < n_vec; ++t) {
      const VisibleKeys& v = visible[row_of(t)];
      const float* p_tail = probs.data() + t * n_last + n_context + (shared_own_end - v.own_begin);
      continue_value_chains(kv, kv_head, shared_own_end, v.own_end, p_tail, chains.data() + t * hd_padded);
    }
  }

  // 4. Out.
  for (int64_t t = 0; t < n_vec; ++t) {
    float* o = out + row_of(t) * out_stride + (kv_head * group + t % group) * hd;
    for (int64_t c = 0; c < hd; ++c) o[c] = chains[t * hd_padded + c] * inv_totals[t];
  }
}

// Tasks: (kv head, block of rows). The fast path takes rows in blocks (RowBlock), the plain
// path one by one. Either way every row's arithmetic is its own, so neither the blocks nor
// the layout the keys and values are read from changes a bit.
void attention_with(bool fast, const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
                    int64_t n_rows, const float* keys, const float* values, float* out) {
  const int64_t hd = dims.head_dim, kv_dim = dims.kv_dim(), group = dims.n_heads / dims.n_kv_heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const int64_t block_rows = fast ? std::max<int64_t>(1, kBlockVectors / group) : 1;
  thread_local std::vector<RowBlock> blocks;  // the caller's, kept: a forward call allocates nothing once grown
  blocks.clear();
  for (int64_t r = 0; r < n_rows;) {
    int64_t n = 1;
    while (n < block_rows && r + n < n_rows && see_same_keys_first(visible[r], visible[r + n])) ++n;
    blocks.push_back({r, n});
    r += n;
  }
  const int64_t n_blocks = static_cast<int64_t>(blocks.size());
  if (n_blocks == 0) return;
  const RowBlock* const block_list = blocks.data();  // a thread_local is not captured: the workers use this
  int64_t keys_seen = 0, n_keys = 0;  // over all rows: the work is ~4 head_dim flops per key and query head
  for (int64_t r = 0; r < n_rows; ++r) {
    keys_seen += n_visible(visible[r]);
    n_keys = std::max<int64_t>({n_keys, visible[r].context_end, visible[r].own_end});
  }
  const int64_t work_per_task = 4 * hd * group * keys_seen / n_blocks;
  if (!fast) {
    parallel_for(n_blocks * dims.n_kv_heads, [&](int64_t task) {
      const int64_t kv_head = task / n_blocks, row = block_list[task % n_blocks].first, h0 = kv_head * group;
      attend_plain(dims.bf16, q + row * q_stride + h0 * hd, group, hd, visible[row], keys + kv_head * hd,
                   values + kv_head * hd, kv_dim, scale, out + row * dims.q_dim() + h0 * hd);
    }, work_per_task);
    return;
  }
  Bf16KvPanels kv16;
  const KvPanels kv = dims.bf16 ? KvPanels{} : kv_panels(dims, n_keys, keys, values);
  if (dims.bf16) kv16 = bf16_kv_panels(dims, n_keys, keys, values);
  // Tasks kv-head-major, so a thread walks the rows of one kv head and its keys stay in cache.
  parallel_for(n_blocks * dims.n_kv_heads, [&](int64_t task) {
    attend_block(block_list[task % n_blocks], visible, q, q_stride, out, dims.q_dim(), task / n_blocks, group, kv,
                 dims.bf16 ? &kv16 : nullptr, scale);
  }, work_per_task);
}

}  // namespace

void attention(const AttentionDims& dims, const float* q, int64_t q_stride, const VisibleKeys* visible,
               int64_t n_rows, const float* keys, const float* values, float* out) {
  const bool fast = dims.bf16 ? cpu_has_avx512_bf16() : cpu_has_avx2_fma();
  attention_with(fast, dims, q, q_stride, visible, n_rows, keys, values, out);
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
