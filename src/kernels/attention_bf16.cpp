// Attention's products in BF16 (kernels/attention_bf16.h states the chains).
#include "kernels/attention_bf16.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "kernels/bf16_tile.h"
#include "kernels/gemm_bf16.h"

namespace sift {
namespace {

constexpr int64_t kPanel = 16;         // keys per key panel, columns per value panel
constexpr int64_t kPairWords = 2 * kPanel;  // uint16 per pair of a panel
constexpr int64_t kChunkPairs = 128;   // list pairs per values pass: a (128, 16, 2) value panel slice (8 KB) in L1

int64_t round_up16(int64_t n) { return (n + 15) / 16 * 16; }

// A row's list position n as a key: context first, then own.
int32_t key_at(const VisibleKeys& v, int32_t n) {
  const int32_t n_context = v.context_end - v.context_begin;
  return n < n_context ? v.context_begin + n : v.own_begin + (n - n_context);
}

uint32_t pair_word(uint16_t even, uint16_t odd) { return uint32_t{even} | uint32_t{odd} << 16; }

// GCC 12's AVX-512 headers start some results from _mm512_undefined and then warn that they
// may be used uninitialized (GCC bug 105593); they are not.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

// Pair m of one value panel: columns [0, width) of key rows `even` and `odd` (null: zeros),
// column n's pair at dst[2n].
__attribute__((target("avx512f,avx512bw,avx512bf16"))) void pack_value_pair(const float* even, const float* odd,
                                                                             int64_t width, uint16_t* dst) {
  const __mmask16 mask = width >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << width) - 1);
  const __m512 x0 = even ? _mm512_maskz_loadu_ps(mask, even) : _mm512_setzero_ps();
  const __m512 x1 = odd ? _mm512_maskz_loadu_ps(mask, odd) : _mm512_setzero_ps();
  const __m512i w0 = _mm512_cvtepu16_epi32(reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x0)));
  const __m512i w1 = _mm512_cvtepu16_epi32(reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x1)));
  _mm512_storeu_si512(dst, _mm512_or_si512(w0, _mm512_slli_epi32(w1, 16)));
}

// chains[0..16) continued by the pairs of `words` (pair m's p word at p_words[m]; its value
// row at rows[m]: 32 words), as vdpbf16ps does each.
__attribute__((target("avx512f,avx512bw,avx512bf16"))) void continue_panel(const uint32_t* p_words,
                                                                            const uint16_t* const* rows, int64_t n_pairs,
                                                                            float* chains) {
  __m512 acc = _mm512_loadu_ps(chains);
  for (int64_t m = 0; m < n_pairs; ++m)
    acc = _mm512_dpbf16_ps(acc, reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(p_words[m]))),
                           reinterpret_cast<__m512bh>(_mm512_loadu_si512(rows[m])));
  _mm512_storeu_ps(chains, acc);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The chains of the block's vectors over `n_pairs` list pairs from list position `pos`, whose
// keys run consecutively from `key`: chunks of the value panel of key's parity.
void run_pairs(const Bf16KvPanels& kv, int64_t g, int32_t pos, int32_t key, int64_t n_pairs, const float* probs,
               int64_t n_vec, int64_t n_last, float* chains, int64_t ld, bool& first) {
  const int64_t parity = key & 1, pair0 = (key - parity) / 2;
  const int64_t n_micro = (n_vec + kBf16TileRows - 1) / kBf16TileRows;
  thread_local std::vector<uint16_t> p16;  // kept once grown
  for (int64_t m0 = 0; m0 < n_pairs; m0 += kChunkPairs) {
    const int64_t np = std::min(kChunkPairs, n_pairs - m0), kc2 = round_up16(2 * np);
    p16.resize(static_cast<size_t>(n_micro * kBf16TileRows * kc2));
    for (int64_t u = 0; u < n_micro; ++u)
      bf16_pack_rows(probs + u * kBf16TileRows * n_last + pos + 2 * m0, n_last,
                     std::min(kBf16TileRows, n_vec - u * kBf16TileRows), 2 * np, kc2, p16.data() + u * kBf16TileRows * kc2);
    for (int64_t c = 0; c < kv.n_column_panels; c += 2) {
      const int64_t n_columns = std::min<int64_t>(2, kv.n_column_panels - c) * kPanel;
      const uint16_t* b = kv.value_panel(parity, g, c) + (pair0 + m0) * kPairWords;
      for (int64_t u = 0; u < n_micro; ++u)
        bf16_tile(p16.data() + u * kBf16TileRows * kc2, b, kv.n_value_pairs * kPairWords, np, first,
                  chains + u * kBf16TileRows * ld + c * kPanel, ld, std::min(kBf16TileRows, n_vec - u * kBf16TileRows),
                  n_columns);
    }
    first = false;
  }
}

}  // namespace

bool attention_in_bf16() { return bf16_kernel() == Bf16Kernel::Avx512Bf16; }

Bf16KvPanels bf16_kv_panels(const AttentionDims& dims, int64_t n_keys, const float* keys, const float* values) {
  Bf16KvPanels kv;
  kv.hd = dims.head_dim;
  kv.k2 = round_up16(dims.head_dim);
  kv.kv_dim = dims.kv_dim();
  kv.n_keys = n_keys;
  kv.n_key_panels = (n_keys + kPanel - 1) / kPanel;
  kv.n_column_panels = (dims.head_dim + kPanel - 1) / kPanel;
  kv.n_value_pairs = n_keys / 2 + 1;
  kv.values_f32 = values;
  const int64_t key_words = dims.n_kv_heads * kv.n_key_panels * kv.k2 * kPanel;
  const int64_t value_words = dims.n_kv_heads * kv.n_column_panels * kv.n_value_pairs * kPairWords;
  thread_local std::vector<uint16_t> buffer;  // the caller's, kept across calls (grows only)
  if (static_cast<int64_t>(buffer.size()) < key_words + 2 * value_words)
    buffer.resize(static_cast<size_t>(key_words + 2 * value_words));
  uint16_t* const key_data = buffer.data();
  uint16_t* const value_data = buffer.data() + key_words;
  kv.keys = key_data;
  kv.values[0] = value_data;
  kv.values[1] = value_data + value_words;
  const int64_t hd = kv.hd, kv_dim = kv.kv_dim, n_key_panels = kv.n_key_panels;
  parallel_for(dims.n_kv_heads * n_key_panels, [&](int64_t task) {  // task = g * n_key_panels + p
    const int64_t g = task / n_key_panels, p = task % n_key_panels;
    bf16_pack_key_panel(keys + p * kPanel * kv_dim + g * hd, kv_dim, std::min(kPanel, n_keys - p * kPanel), hd, kv.k2,
                   key_data + task * kv.k2 * kPanel);
  }, hd * kPanel);
  const int64_t n_column_panels = kv.n_column_panels;
  parallel_for(2 * dims.n_kv_heads * n_column_panels, [&](int64_t task) {  // task = (parity, g, c)
    const int64_t parity = task / (dims.n_kv_heads * n_column_panels), rest = task % (dims.n_kv_heads * n_column_panels);
    const int64_t g = rest / n_column_panels, c = rest % n_column_panels;
    const int64_t width = std::min(kPanel, hd - c * kPanel);
    uint16_t* panel = value_data + parity * value_words + rest * kv.n_value_pairs * kPairWords;
    const auto row = [&](int64_t j) { return j < n_keys ? values + j * kv_dim + g * hd + c * kPanel : nullptr; };
    for (int64_t m = 0; m < kv.n_value_pairs; ++m)
      pack_value_pair(row(2 * m + parity), row(2 * m + parity + 1), width, panel + m * kPairWords);
  }, kv.n_value_pairs * kPanel);
  return kv;
}

void bf16_score_panels(const float* queries, int64_t n_vec, const Bf16KvPanels& kv, int64_t kv_head, int32_t begin,
                       int32_t end, float* s, int64_t ld) {
  if (begin >= end) return;
  const int64_t n_micro = (n_vec + kBf16TileRows - 1) / kBf16TileRows;
  thread_local std::vector<uint16_t> q16;  // kept once grown
  q16.resize(static_cast<size_t>(n_micro * kBf16TileRows * kv.k2));
  for (int64_t u = 0; u < n_micro; ++u)
    bf16_pack_rows(queries + u * kBf16TileRows * kv.hd, kv.hd, std::min(kBf16TileRows, n_vec - u * kBf16TileRows), kv.hd,
                   kv.k2, q16.data() + u * kBf16TileRows * kv.k2);
  const int64_t p0 = begin / kPanel, p1 = (end + kPanel - 1) / kPanel;
  for (int64_t p = p0; p < p1; p += 2) {
    const int64_t n_columns = std::min<int64_t>(2, p1 - p) * kPanel;
    for (int64_t u = 0; u < n_micro; ++u)
      bf16_tile(q16.data() + u * kBf16TileRows * kv.k2, kv.key_panel(kv_head, p), kv.k2 * kPanel, kv.k2 / 2, true,
                s + u * kBf16TileRows * ld + (p - p0) * kPanel, ld, std::min(kBf16TileRows, n_vec - u * kBf16TileRows),
                n_columns);
  }
}

void bf16_shared_value_chains(const Bf16KvPanels& kv, int64_t kv_head, const VisibleKeys& first, int32_t n_even,
                              const float* probs, int64_t n_vec, int64_t n_last, float* chains, int64_t ld) {
  const int32_t n_context = first.context_end - first.context_begin;
  bool first_pair = true;
  // The context's whole pairs, then (odd context) the pair joining its last key and the first
  // own key, then the own keys' pairs.
  const int32_t context_pairs = std::min(n_context, n_even) / 2;
  run_pairs(kv, kv_head, 0, first.context_begin, context_pairs, probs, n_vec, n_last, chains, ld, first_pair);
  int32_t pos = 2 * context_pairs;
  if (pos < n_even && pos + 1 == n_context) {
    thread_local std::vector<uint16_t> joined;  // the joining pair's value row per column panel
    joined.resize(static_cast<size_t>(kv.n_column_panels * kPairWords));
    const float* last_context = kv.values_f32 + static_cast<int64_t>(first.context_end - 1) * kv.kv_dim + kv_head * kv.hd;
    const float* first_own = kv.values_f32 + static_cast<int64_t>(first.own_begin) * kv.kv_dim + kv_head * kv.hd;
    for (int64_t c = 0; c < kv.n_column_panels * kPanel; ++c) {
      joined[2 * c] = c < kv.hd ? bf16_round(last_context[c]) : 0;
      joined[2 * c + 1] = c < kv.hd ? bf16_round(first_own[c]) : 0;
    }
    const int64_t n_micro = (n_vec + kBf16TileRows - 1) / kBf16TileRows;
    thread_local std::vector<uint16_t> p16;
    p16.resize(static_cast<size_t>(n_micro * kBf16TileRows * 16));
    for (int64_t u = 0; u < n_micro; ++u)
      bf16_pack_rows(probs + u * kBf16TileRows * n_last + pos, n_last, std::min(kBf16TileRows, n_vec - u * kBf16TileRows),
                     2, 16, p16.data() + u * kBf16TileRows * 16);
    for (int64_t c = 0; c < kv.n_column_panels; c += 2) {
      const int64_t n_columns = std::min<int64_t>(2, kv.n_column_panels - c) * kPanel;
      for (int64_t u = 0; u < n_micro; ++u)
        bf16_tile(p16.data() + u * kBf16TileRows * 16, joined.data() + c * kPairWords, kPairWords, 1, first_pair,
                  chains + u * kBf16TileRows * ld + c * kPanel, ld, std::min(kBf16TileRows, n_vec - u * kBf16TileRows),
                  n_columns);
    }
    first_pair = false;
    pos += 2;
  }
  if (pos < n_even)
    run_pairs(kv, kv_head, pos, key_at(first, pos), (n_even - pos) / 2, probs, n_vec, n_last, chains, ld, first_pair);
  if (first_pair) std::fill(chains, chains + n_vec * ld, 0.0f);  // no common pair: every chain starts at 0
}

void bf16_continue_value_chains(const Bf16KvPanels& kv, int64_t kv_head, const VisibleKeys& v, int32_t from,
                                const float* p, float* chains) {
  const int32_t n = (v.context_end - v.context_begin) + (v.own_end - v.own_begin);
  if (from >= n) return;
  const int64_t n_pairs = (n - from + 1) / 2;
  thread_local std::vector<uint32_t> p_words;
  thread_local std::vector<int32_t> first_keys;  // a pair of neighbouring keys: the first; else -1
  thread_local std::vector<const uint16_t*> rows;
  thread_local std::vector<uint16_t> built;  // value rows of pairs whose keys are not neighbours (or a half pair)
  p_words.resize(static_cast<size_t>(n_pairs));
  first_keys.resize(static_cast<size_t>(n_pairs));
  rows.resize(static_cast<size_t>(n_pairs));
  built.resize(static_cast<size_t>(n_pairs * kv.n_column_panels * kPairWords));
  for (int64_t m = 0; m < n_pairs; ++m) {
    const int32_t pos = from + static_cast<int32_t>(2 * m);
    const bool whole = pos + 1 < n;
    const int32_t k0 = key_at(v, pos), k1 = whole ? key_at(v, pos + 1) : -1;
    p_words[m] = pair_word(bf16_round(p[pos]), whole ? bf16_round(p[pos + 1]) : uint16_t{0});
    first_keys[m] = whole && k1 == k0 + 1 ? k0 : -1;
    if (first_keys[m] >= 0) continue;
    for (int64_t column = 0; column < kv.n_column_panels * kPanel; ++column) {
      const bool inside = column < kv.hd;
      uint16_t* word = built.data() + m * kv.n_column_panels * kPairWords + 2 * column;
      word[0] = inside ? bf16_round(kv.values_f32[k0 * kv.kv_dim + kv_head * kv.hd + column]) : 0;
      word[1] = inside && whole ? bf16_round(kv.values_f32[k1 * kv.kv_dim + kv_head * kv.hd + column]) : 0;
    }
  }
  for (int64_t c = 0; c < kv.n_column_panels; ++c) {
    for (int64_t m = 0; m < n_pairs; ++m) {
      const int32_t k0 = first_keys[m];
      rows[m] = k0 >= 0 ? kv.value_panel(k0 & 1, kv_head, c) + (k0 - (k0 & 1)) / 2 * kPairWords
                        : built.data() + (m * kv.n_column_panels + c) * kPairWords;
    }
    continue_panel(p_words.data(), rows.data(), n_pairs, chains + c * kPanel);
  }
}

float bf16_score_plain(const float* q, const float* k, int64_t hd) {
  const int64_t k2 = round_up16(hd);
  const auto at = [&](const float* x, int64_t i) { return i < hd ? bf16_round(x[i]) : uint16_t{0}; };
  float c = 0.0f;
  for (int64_t i = 0; i < k2; i += 2) c = bf16_pair_fma(at(q, i), at(q, i + 1), at(k, i), at(k, i + 1), c);
  return c;
}

void bf16_value_chains_plain(const VisibleKeys& v, const float* p, const float* values, int64_t key_stride, int64_t hd,
                             float* chains) {
  const int32_t n = (v.context_end - v.context_begin) + (v.own_end - v.own_begin);
  for (int64_t c = 0; c < hd; ++c) {
    float acc = 0.0f;
    for (int32_t pos = 0; pos < n; pos += 2) {
      const bool whole = pos + 1 < n;
      const uint16_t p0 = bf16_round(p[pos]), v0 = bf16_round(values[key_at(v, pos) * key_stride + c]);
      const uint16_t p1 = whole ? bf16_round(p[pos + 1]) : uint16_t{0};
      const uint16_t v1 = whole ? bf16_round(values[key_at(v, pos + 1) * key_stride + c]) : uint16_t{0};
      acc = bf16_pair_fma(p0, p1, v0, v1, acc);
    }
    chains[c] = acc;
  }
}

}  // namespace sift
