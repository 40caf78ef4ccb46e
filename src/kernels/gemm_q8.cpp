// The Q8 x Q8 product (kernels/gemm_q8.h): the chain is stated there.
#include "kernels/gemm_q8.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/cpu_features.h"
#include "kernels/tile_target.h"

namespace sift {
namespace {

constexpr int64_t kNr = PackedMatrix::kPanelWidth;                 // 16 columns: two vectors of 8 int32 lanes
constexpr int64_t kQb = PackedMatrix::kQ8Block;                    // 32 k per block
constexpr int64_t kBlockBytes = PackedMatrix::kQ8PanelBlockBytes;  // one block of a panel: 512 bytes
constexpr int64_t kQuads = kQb / 4;                                // 8 groups of 4 consecutive k
constexpr int64_t kMr = 4;                                         // rows per micro-tile
constexpr int64_t kKb = 128;  // blocks per K slice: 4096 k, so a slice of a panel pair (128 KB) and of a
                               // row block's quantized rows (576 KB) share L2; most K fit one slice, so
                               // C is written once (every slice rereads the tile, from L3 when N is wide)
constexpr int64_t kMc = 144;  // rows per row block: their slice of quantized rows is reused by every panel

// A quantized for the micro-kernels, all of K, in micro-panels of 4 rows (u = row / 4):
//   quants[((u * NB + b) * 8 + j) * 16 + r * 4 + t] = q of row 4u + r at k = 32b + 4j + t
//   unsigned_quants, same layout: |q| for the AVX2 kernel (which gives w the sign of q), or
//                    q + 128 for the AVX-VNNI kernel (which subtracts 128 * sum(w) instead)
//   scales[(u * NB + b) * 4 + r] = d of that row and block
// NB = blocks per row; rows past M up to a multiple of 4 are zero.
struct QuantizedRows {
  int8_t* quants;  // null when only unsigned_quants is read (the VNNI kernels)
  uint8_t* unsigned_quants;
  float* scales;
  int64_t n_blocks;  // NB
  bool biased;       // unsigned_quants = q + 128 (else |q|)

  // Where block b of micro-panel u starts: in quants / unsigned_quants (its 8 quads of 4 rows
  // x 4 bytes) and in scales (its 4 rows' d).
  int64_t quant_offset(int64_t u, int64_t b) const { return (u * n_blocks + b) * kQuads * kMr * 4; }
  int64_t scale_offset(int64_t u, int64_t b) const { return (u * n_blocks + b) * kMr; }
};

// quantize_q8_block on a full block of 32 with AVX2: the same operations (max of |x|, d =
// amax / 127, x * (1 / d) rounded in the current mode), so the same bits.
__attribute__((target("avx2"))) float quantize_full_block_avx2(const float* x, int8_t* q) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 v[4];
  __m256 amax = _mm256_setzero_ps();
  for (int i = 0; i < 4; ++i) {
    v[i] = _mm256_loadu_ps(x + 8 * i);
    amax = _mm256_max_ps(amax, _mm256_andnot_ps(sign, v[i]));
  }
  __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
  m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
  m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
  const float d = _mm_cvtss_f32(m4) / 127.0f;
  const __m256 inverse = _mm256_set1_ps(d > 0.0f ? 1.0f / d : 0.0f);
  __m256i n[4];
  for (int i = 0; i < 4; ++i)
    n[i] = _mm256_cvtps_epi32(_mm256_round_ps(_mm256_mul_ps(v[i], inverse), _MM_FROUND_CUR_DIRECTION));
  // int32 -> int8 (values within +-127, so the saturating packs are exact), back in order.
  const __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(n[0], n[1]), _mm256_packs_epi32(n[2], n[3]));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(q),
                      _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
  return d;
}

// Rows 4u .. 4u+3 of A (rows past `rows` zero) into micro-panel u of `out`. Per block, each
// row's 32 quants are 8 words of 4 k; quad j of the micro-panel is word j of rows 0..3, so the
// four rows' words go through one 4 x 8 transpose of 32-bit words.
__attribute__((target("avx2"))) void quantize_row_group(const float* a, int64_t lda, int64_t rows, int64_t k_total,
                                                         int64_t u, const QuantizedRows& out) {
  alignas(32) int8_t block[kMr][kQb];
  const __m256i bias = _mm256_set1_epi8(static_cast<char>(0x80));  // q + 128 as a byte is q ^ 0x80
  for (int64_t b = 0; b < out.n_blocks; ++b) {
    const int64_t k = b * kQb, n = std::min(kQb, k_total - k);
    for (int64_t r = 0; r < kMr; ++r) {
      float d = 0.0f;
      if (r >= rows) std::fill(block[r], block[r] + kQb, int8_t{0});
      else if (n == kQb) d = quantize_full_block_avx2(a + r * lda + k, block[r]);
      else d = quantize_q8_block(a + r * lda + k, n, block[r]);
      out.scales[out.scale_offset(u, b) + r] = d;
    }
    // Words w0..w7 of rows 0..3 -> (w_j of rows 0..3) for j = 0..7, two quads per vector.
    __m256i row[kMr];
    for (int64_t r = 0; r < kMr; ++r) row[r] = _mm256_load_si256(reinterpret_cast<const __m256i*>(block[r]));
    const __m256i t0 = _mm256_unpacklo_epi32(row[0], row[1]), t1 = _mm256_unpackhi_epi32(row[0], row[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(row[2], row[3]), t3 = _mm256_unpackhi_epi32(row[2], row[3]);
    const __m256i q04 = _mm256_unpacklo_epi64(t0, t2), q15 = _mm256_unpackhi_epi64(t0, t2);  // quads 0 | 4, 1 | 5
    const __m256i q26 = _mm256_unpacklo_epi64(t1, t3), q37 = _mm256_unpackhi_epi64(t1, t3);  // quads 2 | 6, 3 | 7
    const __m256i quads[4] = {_mm256_permute2x128_si256(q04, q15, 0x20), _mm256_permute2x128_si256(q26, q37, 0x20),
                              _mm256_permute2x128_si256(q04, q15, 0x31), _mm256_permute2x128_si256(q26, q37, 0x31)};
    const int64_t at = out.quant_offset(u, b);
    for (int i = 0; i < 4; ++i) {
      if (out.quants) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.quants + at + 32 * i), quads[i]);
      const __m256i unsigned_quads = out.biased ? _mm256_xor_si256(quads[i], bias) : _mm256_abs_epi8(quads[i]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.unsigned_quants + at + 32 * i), unsigned_quads);
    }
  }
}

// ---- micro-kernels: 4 rows x 16 columns -------------------------------------------------
//
// Per block, the int32 lanes of sR0 / sR1 hold isum(row R, columns 0..7 / 8..15); a quad
// step adds, per lane, the 4 products of the row's 4 bytes (broadcast) with the column's 4
// bytes. The two kernels reach the same integers by different instructions:
//   AVX2     : vpmaddubsw(|q|, w with q's sign) (pairs; |q| |w| <= 2 * 127^2 fits int16),
//              then vpmaddwd with ones (pairs of pairs into int32);
//   AVX-VNNI : vpdpbusd(q + 128, w), 4 products into each int32 lane, with the lanes started
//              at -128 * sum(w) of the block's column: sum (q + 128) w - 128 sum w = sum q w.
// The named accumulators (not an array) keep the compiler from spilling them.

int32_t load_word(const void* p) {
  int32_t word;
  std::memcpy(&word, p, 4);
  return word;
}

// The operands of one micro-tile: its quantized rows (from the slice's first block), the
// panel's quants, scales and column sums (likewise), the slice's nb blocks, where C goes.
struct Q8Tile {
  const int8_t* quants;
  const uint8_t* unsigned_quants;
  const float* a_scales;
  const int8_t* w;
  const float* w_scales;
  const int16_t* w_sums;
  int64_t nb;
  int64_t panel_blocks;  // blocks per panel: panel p + 1's quants, scales and sums are that many blocks on
  bool first;  // the slice starts at block 0: the chains start from 0
  float* c;
  int64_t ldc, rows, n_valid;  // n_valid <= 16 columns (32 for the two-panel AVX-512 kernel)
};

// sum + the lane sums of |q| . w_signed (w with q's sign), 4 bytes per lane.
__attribute__((target("avx2"), always_inline)) inline __m256i dot4_avx2(__m256i sum, __m256i magnitude,
                                                                         __m256i w_signed, __m256i ones) {
  return _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_maddubs_epi16(magnitude, w_signed), ones));
}

// c(r, col) = fma(float(isum), da[r] * dw[col], c(r, col)), from 0 when `zero`, for one row.
__attribute__((target("avx2,fma"), always_inline)) inline void add_block_row(__m256i s_lo, __m256i s_hi, float a_scale,
                                                                              __m256 dw0, __m256 dw1, bool zero,
                                                                              float* row) {
  const __m256 da = _mm256_set1_ps(a_scale);
  const __m256 c0 = zero ? _mm256_setzero_ps() : _mm256_loadu_ps(row);
  const __m256 c1 = zero ? _mm256_setzero_ps() : _mm256_loadu_ps(row + 8);
  _mm256_storeu_ps(row, _mm256_fmadd_ps(_mm256_cvtepi32_ps(s_lo), _mm256_mul_ps(da, dw0), c0));
  _mm256_storeu_ps(row + 8, _mm256_fmadd_ps(_mm256_cvtepi32_ps(s_hi), _mm256_mul_ps(da, dw1), c1));
}

// Block b's four rows of sums into the tile (the fma chain of the header).
#define SIFT_Q8_ADD_BLOCK(t, target, b)                                                                  \
  {                                                                                                      \
    const __m256 dw0 = _mm256_loadu_ps(t.w_scales + b * kNr), dw1 = _mm256_loadu_ps(t.w_scales + b * kNr + 8); \
    const float* da = t.a_scales + b * kMr;                                                              \
    const bool zero = t.first && b == 0;                                                                 \
    add_block_row(s00, s01, da[0], dw0, dw1, zero, target.row(0));                                       \
    add_block_row(s10, s11, da[1], dw0, dw1, zero, target.row(1));                                       \
    add_block_row(s20, s21, da[2], dw0, dw1, zero, target.row(2));                                       \
    add_block_row(s30, s31, da[3], dw0, dw1, zero, target.row(3));                                       \
  }

__attribute__((target("avx2,fma"))) void micro_kernel_avx2(const Q8Tile& t) {
  TileTarget<kMr, kNr> target(t.c, t.ldc, t.rows, t.n_valid, t.first);
  const int8_t* quants = t.quants;
  const uint8_t* magnitudes = t.unsigned_quants;
  const int8_t* w = t.w;
  const __m256i ones = _mm256_set1_epi16(1);
  for (int64_t b = 0; b < t.nb; ++b) {
    __m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00, s30 = s00, s31 = s00;
    for (int64_t j = 0; j < kQuads; ++j, w += 4 * kNr, quants += kMr * 4, magnitudes += kMr * 4) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
      const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
#define SIFT_Q8_STEP(r, lo, hi)                                         \
  {                                                                     \
    const __m256i q = _mm256_set1_epi32(load_word(quants + (r) * 4));   \
    const __m256i m = _mm256_set1_epi32(load_word(magnitudes + (r) * 4)); \
    lo = dot4_avx2(lo, m, _mm256_sign_epi8(w0, q), ones);               \
    hi = dot4_avx2(hi, m, _mm256_sign_epi8(w1, q), ones);               \
  }
      SIFT_Q8_STEP(0, s00, s01) SIFT_Q8_STEP(1, s10, s11) SIFT_Q8_STEP(2, s20, s21) SIFT_Q8_STEP(3, s30, s31)
#undef SIFT_Q8_STEP
    }
    SIFT_Q8_ADD_BLOCK(t, target, b)
  }
}

__attribute__((target("avx2,fma,avxvnni"))) void micro_kernel_vnni(const Q8Tile& t) {
  TileTarget<kMr, kNr> target(t.c, t.ldc, t.rows, t.n_valid, t.first);
  const uint8_t* biased = t.unsigned_quants;
  const int8_t* w = t.w;
  for (int64_t b = 0; b < t.nb; ++b) {
    // -128 * sum(w) per column: the lanes' start
    const __m128i sums = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.w_sums + b * kNr));
    const __m128i sums_hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.w_sums + b * kNr + 8));
    const __m256i start0 = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(_mm256_cvtepi16_epi32(sums), 7));
    const __m256i start1 = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_slli_epi32(_mm256_cvtepi16_epi32(sums_hi), 7));
    __m256i s00 = start0, s01 = start1, s10 = start0, s11 = start1, s20 = start0, s21 = start1, s30 = start0,
            s31 = start1;
    for (int64_t j = 0; j < kQuads; ++j, w += 4 * kNr, biased += kMr * 4) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
      const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
#define SIFT_Q8_STEP(r, lo, hi)                                         \
  {                                                                     \
    const __m256i a = _mm256_set1_epi32(load_word(biased + (r) * 4));   \
    lo = _mm256_dpbusd_avx_epi32(lo, a, w0);                            \
    hi = _mm256_dpbusd_avx_epi32(hi, a, w1);                            \
  }
      SIFT_Q8_STEP(0, s00, s01) SIFT_Q8_STEP(1, s10, s11) SIFT_Q8_STEP(2, s20, s21) SIFT_Q8_STEP(3, s30, s31)
#undef SIFT_Q8_STEP
    }
    SIFT_Q8_ADD_BLOCK(t, target, b)
  }
}

#undef SIFT_Q8_ADD_BLOCK

// GCC 12's AVX-512 headers start some results from _mm512_undefined and then warn that they
// may be used uninitialized (GCC bug 105593); they are not.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// AVX-512 VNNI: the AVX-VNNI kernel's integers with 16 int32 lanes per zmm, so one quad of a
// panel (16 columns x 4 bytes) is one vector; V = 1 or 2 panels (4 rows x 32 columns). The
// tile's C stays in registers across the slice's blocks (the same fma chain per element:
// only the loads and stores between blocks are gone).
template <int V>
__attribute__((target("avx512f,avx512vnni"))) void micro_kernel_avx512_vnni(const Q8Tile& t) {
  TileTarget<kMr, V * kNr> target(t.c, t.ldc, t.rows, t.n_valid, t.first);
  const int64_t w_next = t.panel_blocks * kBlockBytes, s_next = t.panel_blocks * kNr;  // panel p -> p + 1
  // The operands as locals: read through `t`, every store to C would make the compiler reload them.
  const int8_t* const w_quants = t.w;
  const float* const w_scales = t.w_scales;
  const int16_t* const w_sums = t.w_sums;
  const uint8_t* const a_biased = t.unsigned_quants;
  const float* const a_scales = t.a_scales;
  const int64_t nb = t.nb;
  __m512 c[kMr][V];
#pragma GCC unroll 4
  for (int r = 0; r < kMr; ++r) {
    const float* row = target.row(r);
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) c[r][v] = t.first ? _mm512_setzero_ps() : _mm512_loadu_ps(row + v * kNr);
  }
  for (int64_t b = 0; b < nb; ++b) {
    __m512i s[kMr][V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) {  // -128 * sum(w) per column: the lanes' start
      const __m256i sums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w_sums + v * s_next + b * kNr));
      const __m512i start = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(_mm512_cvtepi16_epi32(sums), 7));
#pragma GCC unroll 4
      for (int r = 0; r < kMr; ++r) s[r][v] = start;
    }
    const int8_t* w = w_quants + b * kBlockBytes;
    const uint8_t* biased = a_biased + b * kQuads * kMr * 4;
#pragma GCC unroll 8
    for (int64_t j = 0; j < kQuads; ++j) {
      __m512i wv[V];
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) wv[v] = _mm512_loadu_si512(w + j * 4 * kNr + v * w_next);
#pragma GCC unroll 4
      for (int r = 0; r < kMr; ++r) {
        const __m512i a = _mm512_set1_epi32(load_word(biased + j * kMr * 4 + r * 4));
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) s[r][v] = _mm512_dpbusd_epi32(s[r][v], a, wv[v]);
      }
    }
    // c(r, col) = fma(float(isum), da[r] * dw[col], c(r, col))
    __m512 dw[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) dw[v] = _mm512_loadu_ps(w_scales + v * s_next + b * kNr);
#pragma GCC unroll 4
    for (int r = 0; r < kMr; ++r) {
      const __m512 da = _mm512_set1_ps(a_scales[b * kMr + r]);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) c[r][v] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s[r][v]), _mm512_mul_ps(da, dw[v]), c[r][v]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kMr; ++r) {
    float* row = target.row(r);
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) _mm512_storeu_ps(row + v * kNr, c[r][v]);
  }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

void micro_kernel_avx512_vnni_pair(const Q8Tile& t) {
  if (t.n_valid > kNr) return micro_kernel_avx512_vnni<2>(t);
  micro_kernel_avx512_vnni<1>(t);
}

using MicroKernel = void (*)(const Q8Tile&);

// ---- the plain reference ----------------------------------------------------------------

// Row `row` of A quantized in full: quants (blocks * 32), scales (blocks).
void quantize_row(const float* a, int64_t k_total, int8_t* quants, float* scales) {
  for (int64_t b = 0; b * kQb < k_total; ++b)
    scales[b] = quantize_q8_block(a + b * kQb, std::min(kQb, k_total - b * kQb), quants + b * kQb);
}

// The chain of the header for one output element: quantized row against row n of W.
float dot_reference(const int8_t* a_quants, const float* a_scales, const PackedMatrix& w, int64_t n) {
  const int8_t* panel = w.q8_panel(n / kNr);
  const float* w_scales = w.q8_scales(n / kNr);
  const int64_t column = n % kNr;
  float acc = 0.0f;
  for (int64_t b = 0; b < w.n_q8_blocks(); ++b) {
    int32_t isum = 0;
    for (int64_t k = 0; k < kQb; ++k)
      isum += int32_t{a_quants[b * kQb + k]} * panel[b * kBlockBytes + (k / 4) * 4 * kNr + column * 4 + k % 4];
    acc = std::fma(static_cast<float>(isum), a_scales[b] * w_scales[b * kNr + column], acc);
  }
  return acc;
}

}  // namespace

void gemm_q8(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc, Q8Kernel choice) {
  if (!cpu_has_avx2_fma()) return gemm_q8_reference(a, m, lda, w, c, ldc);
  if (choice == Q8Kernel::Best)
    choice = cpu_has_avx512_vnni() ? Q8Kernel::Avx512Vnni : cpu_has_avx_vnni() ? Q8Kernel::AvxVnni : Q8Kernel::Avx2;
  if ((choice == Q8Kernel::AvxVnni && !cpu_has_avx_vnni()) || (choice == Q8Kernel::Avx512Vnni && !cpu_has_avx512_vnni()))
    fail("this CPU lacks the instructions of the Q8 kernel asked for");
  const MicroKernel kernel = choice == Q8Kernel::Avx512Vnni ? micro_kernel_avx512_vnni_pair
                             : choice == Q8Kernel::AvxVnni  ? micro_kernel_vnni
                                                            : micro_kernel_avx2;
  const int64_t step = choice == Q8Kernel::Avx512Vnni ? 2 : 1;  // panels per micro-tile
  const int64_t k_total = w.cols(), n_blocks = w.n_q8_blocks(), n_panels = w.n_panels();
  const int64_t n_groups = (m + kMr - 1) / kMr;
  // A is quantized once per call, shared by the threads; kept across calls (a session's
  // forward call allocates nothing once grown).
  thread_local std::vector<int8_t> quants;
  thread_local std::vector<uint8_t> unsigned_quants;
  thread_local std::vector<float> scales;
  const bool biased = choice != Q8Kernel::Avx2;  // the VNNI kernels read only q + 128
  unsigned_quants.resize(static_cast<size_t>(n_groups * n_blocks * kMr * kQb));
  if (!biased) quants.resize(unsigned_quants.size());
  scales.resize(static_cast<size_t>(n_groups * n_blocks * kMr));
  const QuantizedRows q{biased ? nullptr : quants.data(), unsigned_quants.data(), scales.data(), n_blocks, biased};
  // As gemm: K slices, then row blocks, then this thread's static range of panels; rows are
  // quantized alone, and nothing about the split depends on m.
#pragma omp parallel if (team_allowed(w.worth_threads(m)))
  {
#pragma omp for schedule(static)
    for (int64_t u = 0; u < n_groups; ++u)
      quantize_row_group(a + u * kMr * lda, lda, std::min(kMr, m - u * kMr), k_total, u, q);
    // (the loop's implicit barrier: every row is quantized before any is used)
    const int64_t n_threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t p_begin = n_panels * thread / n_threads, p_end = n_panels * (thread + 1) / n_threads;
    for (int64_t b0 = 0; b0 < n_blocks && p_begin < p_end; b0 += kKb) {
      const int64_t nb = std::min(n_blocks, b0 + kKb) - b0;
      for (int64_t i0 = 0; i0 < m; i0 += kMc) {
        const int64_t rows = std::min(kMc, m - i0);
        for (int64_t p = p_begin; p < p_end; p += step) {
          const int8_t* panel = w.q8_panel(p) + b0 * kBlockBytes;
          const float* w_scales = w.q8_scales(p) + b0 * kNr;
          const int64_t n_valid = std::min(std::min(step, p_end - p) * kNr, w.rows() - p * kNr);
          for (int64_t i = i0; i < i0 + rows; i += kMr) {
            const int64_t at = q.quant_offset(i / kMr, b0);  // micro-panel i / 4, block b0
            kernel({q.quants ? q.quants + at : nullptr, q.unsigned_quants + at, q.scales + q.scale_offset(i / kMr, b0),
                    panel, w_scales, w.q8_column_sums(p) + b0 * kNr, nb, n_blocks, b0 == 0, c + i * ldc + p * kNr,
                    ldc, std::min(kMr, m - i), n_valid});
          }
        }
      }
    }
  }
}

void gemm_q8_reference(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc) {
  std::vector<int8_t> quants(static_cast<size_t>(w.n_q8_blocks() * kQb));
  std::vector<float> scales(static_cast<size_t>(w.n_q8_blocks()));
  for (int64_t i = 0; i < m; ++i) {
    quantize_row(a + i * lda, w.cols(), quants.data(), scales.data());
    for (int64_t n = 0; n < w.rows(); ++n) c[i * ldc + n] = dot_reference(quants.data(), scales.data(), w, n);
  }
}

void gemv_rows_q8(const float* a, const PackedMatrix& w, const int32_t* rows, int64_t n_rows, float* out) {
  thread_local std::vector<int8_t> quants;  // kept: a session's forward call allocates nothing once grown
  thread_local std::vector<float> scales;
  quants.resize(static_cast<size_t>(w.n_q8_blocks() * kQb));
  scales.resize(static_cast<size_t>(w.n_q8_blocks()));
  quantize_row(a, w.cols(), quants.data(), scales.data());
  for (int64_t r = 0; r < n_rows; ++r) out[r] = dot_reference(quants.data(), scales.data(), w, rows[r]);
}

}  // namespace sift
