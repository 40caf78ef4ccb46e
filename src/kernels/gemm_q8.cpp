// The Q8 x Q8 product (kernels/gemm_q8.h): the chain is stated there.
#include "kernels/gemm_q8.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernels/cpu_features.h"

namespace sift {
namespace {

constexpr int64_t kNr = PackedMatrix::kPanelWidth;                 // 16 columns: two vectors of 8 int32 lanes
constexpr int64_t kQb = PackedMatrix::kQ8Block;                    // 32 k per block
constexpr int64_t kBlockBytes = PackedMatrix::kQ8PanelBlockBytes;  // one block of a panel: 512 bytes
constexpr int64_t kQuads = kQb / 4;                                // 8 groups of 4 consecutive k
constexpr int64_t kMr = 4;                                         // rows per micro-tile
constexpr int64_t kKb = 8;   // blocks per K slice: 256 k, a 4 KB slice of a panel stays in L1
constexpr int64_t kMc = 144; // rows per row block: its quantized rows (2 x 36 KB) stay in L2

int64_t round_up(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// Rows [0, rows) of A quantized for blocks [b0, b1) (nb = b1 - b0), in micro-panels of 4 rows:
//   quants[((u * nb + b) * 8 + j) * 16 + r * 4 + t] = q of row 4u + r at k = 32 (b0 + b) + 4j + t
//   magnitudes: |quants|, same layout (the AVX2 dot multiplies |a| by w carrying a's sign)
//   scales[(u * nb + b) * 4 + r] = d of that row and block
// Rows from `rows` up to a multiple of 4 are zero.
struct QuantizedRows {
  int8_t* quants;
  int8_t* magnitudes;
  float* scales;
};

void quantize_rows(const float* a, int64_t lda, int64_t rows, int64_t k_total, int64_t b0, int64_t b1,
                   const QuantizedRows& out) {
  const int64_t nb = b1 - b0;
  int8_t block[kQb];
  for (int64_t i = 0; i < round_up(rows, kMr); ++i) {
    const int64_t u = i / kMr, r = i % kMr;
    for (int64_t b = 0; b < nb; ++b) {
      const int64_t k = (b0 + b) * kQb;
      float d = 0.0f;
      if (i < rows) d = quantize_q8_block(a + i * lda + k, std::min(kQb, k_total - k), block);
      else std::fill(block, block + kQb, int8_t{0});
      out.scales[(u * nb + b) * kMr + r] = d;
      for (int64_t j = 0; j < kQuads; ++j)
        for (int64_t t = 0; t < 4; ++t) {
          const int64_t at = ((u * nb + b) * kQuads + j) * kMr * 4 + r * 4 + t;
          out.quants[at] = block[j * 4 + t];
          out.magnitudes[at] = static_cast<int8_t>(std::abs(block[j * 4 + t]));
        }
    }
  }
}

// ---- AVX2 micro-kernel: 4 rows x 16 columns ---------------------------------------------
//
// Per block, sums[2r + h] holds isum(row r, columns 8h .. 8h+7) in its 8 int32 lanes; a
// quad step adds, per lane, the 4 products of a's 4 bytes (broadcast) with the column's 4
// bytes. Both variants add the same integers, so they give the same sums.

int32_t load_word(const int8_t* p) {
  int32_t word;
  std::memcpy(&word, p, 4);
  return word;
}

// sum += |a| . (w with a's sign), 4 bytes per lane: vpmaddubsw (pairs, |a| w <= 2 * 127^2
// fits int16) then vpmaddwd with ones (pairs of pairs into int32).
__attribute__((target("avx2"), always_inline)) inline __m256i dot4_avx2(__m256i sum, __m256i magnitude,
                                                                         __m256i signed_w) {
  const __m256i pairs = _mm256_maddubs_epi16(magnitude, signed_w);
  return _mm256_add_epi32(sum, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)));
}
// The same with AVX-VNNI's vpdpbusd (4 products into each int32 lane in one instruction).
__attribute__((target("avx2,avxvnni"), always_inline)) inline __m256i dot4_vnni(__m256i sum, __m256i magnitude,
                                                                                 __m256i signed_w) {
  return _mm256_dpbusd_avx_epi32(sum, magnitude, signed_w);
}

// One block's integer sums for the 4 rows x 16 columns; DOT4 is dot4_avx2 or dot4_vnni.
#define SIFT_Q8_BLOCK_SUMS(DOT4, w, quants, magnitudes, sums)                                         \
  for (int64_t j = 0; j < kQuads; ++j) {                                                              \
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>((w) + j * 64));            \
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>((w) + j * 64 + 32));       \
    _Pragma("GCC unroll 4") for (int64_t r = 0; r < kMr; ++r) {                                       \
      const __m256i q = _mm256_set1_epi32(load_word((quants) + (j * kMr + r) * 4));                   \
      const __m256i m = _mm256_set1_epi32(load_word((magnitudes) + (j * kMr + r) * 4));               \
      sums[2 * r] = DOT4(sums[2 * r], m, _mm256_sign_epi8(w0, q));                                    \
      sums[2 * r + 1] = DOT4(sums[2 * r + 1], m, _mm256_sign_epi8(w1, q));                            \
    }                                                                                                 \
  }

// c(r, col) = fma(float(isum), da[r] * dw[col], c(r, col)), from 0 when `zero`.
__attribute__((target("avx2,fma"), always_inline)) inline void add_block(const __m256i* sums, const float* a_scales,
                                                                          const float* w_scales, bool zero, float* c,
                                                                          int64_t ldc) {
  const __m256 dw0 = _mm256_loadu_ps(w_scales), dw1 = _mm256_loadu_ps(w_scales + 8);
#pragma GCC unroll 4
  for (int64_t r = 0; r < kMr; ++r) {
    const __m256 da = _mm256_set1_ps(a_scales[r]);
    float* row = c + r * ldc;
    const __m256 c0 = zero ? _mm256_setzero_ps() : _mm256_loadu_ps(row);
    const __m256 c1 = zero ? _mm256_setzero_ps() : _mm256_loadu_ps(row + 8);
    _mm256_storeu_ps(row, _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums[2 * r]), _mm256_mul_ps(da, dw0), c0));
    _mm256_storeu_ps(row + 8, _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums[2 * r + 1]), _mm256_mul_ps(da, dw1), c1));
  }
}

// The operands of one micro-tile: its quantized rows (from the slice's first block), the
// panel's quants and scales (likewise), the slice's nb blocks, and where C goes.
struct Q8Tile {
  const int8_t* quants;
  const int8_t* magnitudes;
  const float* a_scales;
  const int8_t* w;
  const float* w_scales;
  int64_t nb;
  bool first;  // the slice starts at block 0: the chains start from 0
  float* c;
  int64_t ldc, rows, n_valid;
};

// A full tile works on C in place; an edge tile goes through a zero-padded copy.
#define SIFT_Q8_MICRO_KERNEL(DOT4)                                                                          \
  const bool full = t.rows == kMr && t.n_valid == kNr;                                                      \
  alignas(32) float tile[kMr][kNr] = {};                                                                    \
  float* base = full ? t.c : &tile[0][0];                                                                   \
  const int64_t ld = full ? t.ldc : kNr;                                                                    \
  if (!full && !t.first)                                                                                    \
    for (int64_t r = 0; r < t.rows; ++r) std::copy(t.c + r * t.ldc, t.c + r * t.ldc + t.n_valid, tile[r]); \
  for (int64_t b = 0; b < t.nb; ++b) {                                                                      \
    __m256i sums[2 * kMr];                                                                                  \
    for (__m256i& s : sums) s = _mm256_setzero_si256();                                                     \
    const int64_t a_offset = b * kQuads * kMr * 4;                                                          \
    SIFT_Q8_BLOCK_SUMS(DOT4, t.w + b * kBlockBytes, t.quants + a_offset, t.magnitudes + a_offset, sums)     \
    add_block(sums, t.a_scales + b * kMr, t.w_scales + b * kNr, t.first && b == 0, base, ld);               \
  }                                                                                                         \
  if (!full)                                                                                                \
    for (int64_t r = 0; r < t.rows; ++r) std::copy(tile[r], tile[r] + t.n_valid, t.c + r * t.ldc);

__attribute__((target("avx2,fma"))) void micro_kernel_avx2(const Q8Tile& t) { SIFT_Q8_MICRO_KERNEL(dot4_avx2) }
__attribute__((target("avx2,fma,avxvnni"))) void micro_kernel_vnni(const Q8Tile& t) {
  SIFT_Q8_MICRO_KERNEL(dot4_vnni)
}

#undef SIFT_Q8_MICRO_KERNEL
#undef SIFT_Q8_BLOCK_SUMS

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
  const MicroKernel kernel = choice == Q8Kernel::Best && cpu_has_avx_vnni() ? micro_kernel_vnni : micro_kernel_avx2;
  const int64_t k_total = w.cols(), n_blocks = w.n_q8_blocks(), n_panels = w.n_panels();
  // As gemm: K slices, then row blocks (quantized once per thread and slice), then this
  // thread's static range of panels; nothing about the split depends on m.
#pragma omp parallel if (n_panels > 1 && m * k_total * w.rows() >= (1 << 18))
  {
    const int64_t n_threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t p_begin = n_panels * thread / n_threads, p_end = n_panels * (thread + 1) / n_threads;
    thread_local std::vector<int8_t> quants, magnitudes;  // kept across calls, like gemm's packing buffer
    thread_local std::vector<float> scales;
    quants.resize(static_cast<size_t>(kMc * kKb * kQb));
    magnitudes.resize(quants.size());
    scales.resize(static_cast<size_t>(kMc * kKb));
    for (int64_t b0 = 0; b0 < n_blocks && p_begin < p_end; b0 += kKb) {
      const int64_t b1 = std::min(n_blocks, b0 + kKb), nb = b1 - b0;
      for (int64_t i0 = 0; i0 < m; i0 += kMc) {
        const int64_t rows = std::min(kMc, m - i0);
        quantize_rows(a + i0 * lda, lda, rows, k_total, b0, b1, {quants.data(), magnitudes.data(), scales.data()});
        for (int64_t p = p_begin; p < p_end; ++p) {
          const int8_t* panel = w.q8_panel(p) + b0 * kBlockBytes;
          const float* w_scales = w.q8_scales(p) + b0 * kNr;
          const int64_t n_valid = std::min(kNr, w.rows() - p * kNr);
          for (int64_t i = 0; i < rows; i += kMr) {
            const int64_t u = i / kMr;
            kernel({quants.data() + u * nb * kQuads * kMr * 4, magnitudes.data() + u * nb * kQuads * kMr * 4,
                    scales.data() + u * nb * kMr, panel, w_scales, nb, b0 == 0, c + (i0 + i) * ldc + p * kNr, ldc,
                    std::min(kMr, rows - i), n_valid});
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
