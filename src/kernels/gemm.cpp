#include "kernels/gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/cache_sizes.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm_bf16.h"
#include "kernels/gemm_q8.h"
#include "kernels/micro_tile.h"
#include "kernels/tile_target.h"
#include "kernels/transpose8x8.h"
#include <omp.h>

namespace sift {
namespace {

constexpr int64_t kNr = PackedMatrix::kPanelWidth;  // 16 columns: two 8-float vectors
constexpr int64_t kMr = kTileRows;                  // rows per micro-panel of A (a tile takes 1 or 2)
static_assert(kNr == kTileCols, "a weight panel is one micro-tile wide");
// K block: C is read and written once per block, so a longer block does that less often,
// while a 12-row micro-panel of A (12 x kKc floats: 24 KB at 512) has to stay in L1. Measured
// on the Intel Xeon (48 KB L1d, 2 MB L2) at the 0.6B shapes: in the earlier loop order 512 ran
// 12-15% faster than 256 and 768-1536 no faster; in this one 384 and 768 ran as 512 does.
constexpr int64_t kKc = 512;

// Scalar version of one panel: the same chain per element (std::fma is the fused op).
void reference_panel(const float* a, int64_t m, int64_t lda, const float* panel, int64_t k_total,
                     float* c, int64_t ldc, int64_t n_valid) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n_valid; ++j) {
      float acc = 0.0f;
      for (int64_t k = 0; k < k_total; ++k) acc = std::fma(a[i * lda + k], panel[k * kNr + j], acc);
      c[i * ldc + j] = acc;
    }
}

// dst (k1 - k0, 16) = rows k0..k1 of a BF16 / F16 panel, widened to F32 (exact).
__attribute__((target("avx2,fma,f16c"))) void widen_slice(const PackedMatrix& w, int64_t p, int64_t k0, int64_t k1,
                                                           float* dst) {
  const auto* src = reinterpret_cast<const __m128i*>(w.panel_bytes(p)) + k0 * 2;  // 16 halves = 2 x 8
  const int64_t n = (k1 - k0) * 2;
  if (w.type() == PackedType::BF16) {  // bf16 bits are the top half of the f32 bits
    for (int64_t i = 0; i < n; ++i)
      _mm256_storeu_ps(dst + i * 8, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(src + i)), 16)));
  } else {
    for (int64_t i = 0; i < n; ++i) _mm256_storeu_ps(dst + i * 8, _mm256_cvtph_ps(_mm_loadu_si128(src + i)));
  }
}

// Panel p as F32 (K, 16): the panel itself for F32, else widened element by element.
const float* plain_panel(const PackedMatrix& w, int64_t p, std::vector<float>& buffer) {
  if (w.type() == PackedType::F32) return w.panel(p);
  buffer.resize(static_cast<size_t>(w.cols() * kNr));
  for (int64_t k = 0; k < w.cols(); ++k)
    for (int64_t j = 0; j < kNr; ++j) buffer[k * kNr + j] = p * kNr + j < w.rows() ? w.at(p * kNr + j, k) : 0.0f;
  return buffer.data();
}

// One micro-panel of 6 whole rows, 8 k at a time: the rows' 8 values (and two zero rows)
// transposed in registers, so out[j] holds k + j's 6 values then 2 zeros; each is stored 8
// wide at k + j's place, its 2 extra floats overwritten by the next store, the last 6 wide.
__attribute__((target("avx2"))) void pack_six_rows_avx2(const float* src, int64_t n_cols, int64_t ld, float* d) {
  int64_t k = 0;
  for (; k + 8 <= n_cols; k += 8) {
    __m256 in[8], out[8];
    for (int r = 0; r < kMr; ++r) in[r] = _mm256_loadu_ps(src + r * ld + k);
    in[6] = in[7] = _mm256_setzero_ps();
    transpose8x8(in, out);
    float* at = d + k * kMr;
    for (int j = 0; j < 7; ++j) _mm256_storeu_ps(at + j * kMr, out[j]);
    _mm_storeu_ps(at + 7 * kMr, _mm256_castps256_ps128(out[7]));
    _mm_storel_pi(reinterpret_cast<__m64*>(at + 7 * kMr + 4), _mm256_extractf128_ps(out[7], 1));
  }
  for (; k < n_cols; ++k)
    for (int64_t r = 0; r < kMr; ++r) d[k * kMr + r] = src[r * ld + k];
}

// Rows per row block: its packed A (rows x kKc floats, at most 4 MB) is read from L3 or L2 once
// per column block; each weight slice is read from memory once per row block, so the larger
// the block, the fewer passes over the weights. 2,040 rows: whole 12-row tiles.
constexpr int64_t kRowBlockRows = 2040;

// Panels per column block: their K-block slices (kKc x 16 floats, 32 KB each) fill a quarter
// of L2, so they stay there while every micro-panel of A passes over them (2 MB of L2: 16
// panels; 8 where the size is unknown). Measured on the Intel Xeon at the 0.6B shapes, one
// thread: a quarter of L2 ran 5-10% faster than half, and 8-16 panels alike.
int64_t column_block_panels() {
  static const int64_t panels = [] {
    const int64_t l2 = cache_sizes().l2, slice = kKc * kNr * int64_t{sizeof(float)};
    return l2 <= 0 ? 8 : std::clamp(l2 / 4 / slice / 2 * 2, int64_t{2}, int64_t{64});  // whole panel pairs
  }();
  return panels;
}

// The next micro-tile's rows of C (32 columns) into L1 while this one computes. C is read
// again at every K block, and when N is wide it no longer fits L2: each tile's first loads
// would wait out L3's latency (on the Intel Xeon VM this was 10-15% of a wide product's time).
void prefetch_tile_rows(const float* c, int64_t ldc, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + kNr), _MM_HINT_T0);
  }
}

// One 6 x 16 tile in 12 ymm accumulators: C[0..rows)[0..n_valid) (+)= A packed (kc, 6) @ B (kc, 16).
__attribute__((target("avx2,fma"))) void tile_avx2(const float* a_packed, const float* b, int64_t kc, bool first,
                                                   float* c, int64_t ldc, int64_t rows, int64_t n_valid) {
  TileTarget<kMr, kNr> target(c, ldc, rows, n_valid, first);
#define SIFT_LOAD_C(r, half) (first ? _mm256_setzero_ps() : _mm256_loadu_ps(target.row(r) + (half) * 8))
  // Twelve named accumulators, so the compiler keeps them all in registers.
  __m256 c00 = SIFT_LOAD_C(0, 0), c01 = SIFT_LOAD_C(0, 1), c10 = SIFT_LOAD_C(1, 0), c11 = SIFT_LOAD_C(1, 1);
  __m256 c20 = SIFT_LOAD_C(2, 0), c21 = SIFT_LOAD_C(2, 1), c30 = SIFT_LOAD_C(3, 0), c31 = SIFT_LOAD_C(3, 1);
  __m256 c40 = SIFT_LOAD_C(4, 0), c41 = SIFT_LOAD_C(4, 1), c50 = SIFT_LOAD_C(5, 0), c51 = SIFT_LOAD_C(5, 1);
#undef SIFT_LOAD_C
  for (int64_t k = 0; k < kc; ++k, b += kNr, a_packed += kMr) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    __m256 a = _mm256_broadcast_ss(a_packed + 0);
    c00 = _mm256_fmadd_ps(a, b0, c00), c01 = _mm256_fmadd_ps(a, b1, c01);
    a = _mm256_broadcast_ss(a_packed + 1);
    c10 = _mm256_fmadd_ps(a, b0, c10), c11 = _mm256_fmadd_ps(a, b1, c11);
    a = _mm256_broadcast_ss(a_packed + 2);
    c20 = _mm256_fmadd_ps(a, b0, c20), c21 = _mm256_fmadd_ps(a, b1, c21);
    a = _mm256_broadcast_ss(a_packed + 3);
    c30 = _mm256_fmadd_ps(a, b0, c30), c31 = _mm256_fmadd_ps(a, b1, c31);
    a = _mm256_broadcast_ss(a_packed + 4);
    c40 = _mm256_fmadd_ps(a, b0, c40), c41 = _mm256_fmadd_ps(a, b1, c41);
    a = _mm256_broadcast_ss(a_packed + 5);
    c50 = _mm256_fmadd_ps(a, b0, c50), c51 = _mm256_fmadd_ps(a, b1, c51);
  }
#define SIFT_STORE_C(r, lo, hi) (_mm256_storeu_ps(target.row(r), lo), _mm256_storeu_ps(target.row(r) + 8, hi))
  SIFT_STORE_C(0, c00, c01), SIFT_STORE_C(1, c10, c11), SIFT_STORE_C(2, c20, c21);
  SIFT_STORE_C(3, c30, c31), SIFT_STORE_C(4, c40, c41), SIFT_STORE_C(5, c50, c51);
#undef SIFT_STORE_C
}

// One (6 * U) x (16 * V) tile in 6 U V zmm accumulators: U = 1 or 2 micro-panels of A (the
// second at a_packed + kc * 6), V = 1 or 2 panels of B (the second at b + b_next). The same
// chain per element as tile_avx2, sixteen columns per instruction.
template <int U, int V>
__attribute__((target("avx512f"))) void tile_avx512(const float* a_packed, const float* b, int64_t b_next, int64_t kc,
                                                    bool first, float* c, int64_t ldc, int64_t rows, int64_t n_valid) {
  constexpr int R = U * kMr;
  TileTarget<R, V * kNr> target(c, ldc, rows, n_valid, first);
  __m512 acc[R][V];  // fully unrolled below, so it lives in registers
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) acc[r][v] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(target.row(r) + v * kNr);
  const float* a_second = a_packed + (U > 1 ? kc * kMr : 0);
  for (int64_t k = 0; k < kc; ++k, b += kNr, a_packed += kMr, a_second += kMr) {
    __m512 bk[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) bk[v] = _mm512_loadu_ps(b + v * b_next);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(r < kMr ? a_packed[r] : a_second[r - kMr]);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(a, bk[v], acc[r][v]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) _mm512_storeu_ps(target.row(r) + v * kNr, acc[r][v]);
}

std::atomic<TileIsa> active_tile_isa{cpu_has_avx512f() ? TileIsa::Avx512 : TileIsa::Avx2};

}  // namespace

void pack_tile_rows(const float* src, int64_t n_rows, int64_t n_cols, int64_t ld, float* dst) {
  const int64_t n_whole = cpu_has_avx2_fma() ? n_rows / kMr * kMr : 0;  // rows packed 6 at a time
  for (int64_t t = 0; t < n_whole; t += kMr) pack_six_rows_avx2(src + t * ld, n_cols, ld, dst + t * n_cols);
  const int64_t n_padded = (n_rows + kMr - 1) / kMr * kMr;
  for (int64_t t = n_whole; t < n_padded; ++t) {
    float* d = dst + (t / kMr) * n_cols * kMr + t % kMr;
    for (int64_t k = 0; k < n_cols; ++k) d[k * kMr] = t < n_rows ? src[t * ld + k] : 0.0f;
  }
}

TileIsa tile_isa() { return active_tile_isa.load(std::memory_order_relaxed); }

void set_tile_isa(TileIsa isa) {
  if (isa == TileIsa::Avx512 && !cpu_has_avx512f()) fail("this CPU has no AVX-512F for the AVX-512 register tile");
  active_tile_isa.store(isa, std::memory_order_relaxed);
}

// kernels/micro_tile.h.
void micro_tile(const float* a_packed, const float* b, int64_t b_next, int64_t kc, bool first, float* c, int64_t ldc,
                int64_t rows, int64_t n_valid) {
  if (tile_isa() == TileIsa::Avx512) {
    if (rows > kMr) {
      if (n_valid > kNr) return tile_avx512<2, 2>(a_packed, b, b_next, kc, first, c, ldc, rows, n_valid);
      return tile_avx512<2, 1>(a_packed, b, b_next, kc, first, c, ldc, rows, n_valid);
    }
    if (n_valid > kNr) return tile_avx512<1, 2>(a_packed, b, b_next, kc, first, c, ldc, rows, n_valid);
    return tile_avx512<1, 1>(a_packed, b, b_next, kc, first, c, ldc, rows, n_valid);
  }
  for (int64_t r = 0; r < rows; r += kMr, a_packed += kc * kMr, c += kMr * ldc) {  // 6 x 16 at a time
    tile_avx2(a_packed, b, kc, first, c, ldc, std::min(kMr, rows - r), std::min(n_valid, kNr));
    if (n_valid > kNr) tile_avx2(a_packed, b + b_next, kc, first, c + kNr, ldc, std::min(kMr, rows - r), n_valid - kNr);
  }
}

void gemm(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc) {
  if (w.type() == PackedType::Q8) return gemm_q8(a, m, lda, w, c, ldc);
  if (w.type() == PackedType::BF16Dot) return gemm_bf16(a, m, lda, w, c, ldc);
  if (!cpu_has_avx2_fma_f16c()) return gemm_reference(a, m, lda, w, c, ldc);
  const bool widen = w.type() != PackedType::F32;
  const int64_t k_total = w.cols(), n_panels = w.n_panels();
  // BLIS order: K blocks; row blocks of A, packed (in L3 or L2); column blocks of this thread's
  // panels, whose K-block slices stay in L2; then each micro-panel pair of A (12 rows, 24 KB,
  // in L1) passes over the column block, tile_panels() panels at a time, so A's broadcasts
  // come from L1 and only the weight slices stream from L2. Each thread owns a static range
  // of panels; the threads pack each block of A together, a share of its micro-panels each,
  // into one of two buffers in turn (packed whole by every thread, the same work was done once
  // per thread). Nothing about the split depends on m.
  const int64_t step = tile_panels(), tile_rows = sift::tile_rows(), nc = column_block_panels();
  const int64_t block_rows = std::min(kRowBlockRows, (m + kMr - 1) / kMr * kMr);
  thread_local std::vector<float> a_packed;  // kept: a fresh block (up to 4 MB) per call would be an mmap
  if (a_packed.size() < static_cast<size_t>(2 * block_rows * kKc)) a_packed.resize(static_cast<size_t>(2 * block_rows * kKc));
  float* const buffers[2] = {a_packed.data(), a_packed.data() + block_rows * kKc};
#pragma omp parallel if (team_allowed(w.worth_threads(m)))
  {
    const int64_t n_threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t p_begin = n_panels * thread / n_threads, p_end = n_panels * (thread + 1) / n_threads;
    thread_local std::vector<float> b_wide;  // 16-bit panel slices widened: nc x (kKc, 16), 32 KB each
    if (widen) b_wide.resize(static_cast<size_t>(nc * kKc * kNr));
    int64_t blocks = 0;  // blocks of A packed so far: block t goes to buffers[t % 2]
    for (int64_t k0 = 0; k0 < k_total; k0 += kKc) {  // every thread, with panels or not: the packing is shared
      const int64_t k1 = std::min(k_total, k0 + kKc);
      for (int64_t i0 = 0; i0 < m; i0 += block_rows) {
        const int64_t rows = std::min(block_rows, m - i0);
        float* const a_block = buffers[blocks++ % 2];
#pragma omp for schedule(static)
        for (int64_t t = 0; t < (rows + kMr - 1) / kMr; ++t)  // micro-panel t of the block
          pack_tile_rows(a + (i0 + t * kMr) * lda + k0, std::min(kMr, rows - t * kMr), k1 - k0, lda,
                         a_block + t * kMr * (k1 - k0));
        // (the loop's implicit barrier: the block is packed before any thread reads it, and every
        // thread is done with the block before it, whose buffer the next block's packing reuses)
        for (int64_t n0 = p_begin; n0 < p_end; n0 += nc) {
          const int64_t n1 = std::min(p_end, n0 + nc);
          if (widen)
            for (int64_t p = n0; p < n1; ++p) widen_slice(w, p, k0, k1, b_wide.data() + (p - n0) * kKc * kNr);
          const int64_t b_next = widen ? kKc * kNr : k_total * kNr;  // panel p + 1's slice
          for (int64_t i = 0; i < rows; i += tile_rows) {
            const float* a_tile = a_block + (i / kMr) * (k1 - k0) * kMr;
            const int64_t tile_m = std::min(tile_rows, rows - i);
            float* c_rows = c + (i0 + i) * ldc;
            for (int64_t p = n0; p < n1; p += step) {
              if (p + step < n1)
                prefetch_tile_rows(c_rows + (p + step) * kNr, ldc, tile_m);
              else if (i + tile_rows < rows)  // the next micro-panel's first tile
                prefetch_tile_rows(c_rows + tile_rows * ldc + n0 * kNr, ldc, std::min(tile_rows, rows - i - tile_rows));
              const float* b = widen ? b_wide.data() + (p - n0) * kKc * kNr : w.panel(p) + k0 * kNr;
              const int64_t n_valid = std::min(std::min(step, n1 - p) * kNr, w.rows() - p * kNr);
              micro_tile(a_tile, b, b_next, k1 - k0, k0 == 0, c_rows + p * kNr, ldc, tile_m, n_valid);
            }
          }
        }
      }
    }
  }
}

void gemm_reference(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc) {
  if (w.type() == PackedType::Q8) return gemm_q8_reference(a, m, lda, w, c, ldc);
  if (w.type() == PackedType::BF16Dot) return gemm_bf16_reference(a, m, lda, w, c, ldc, bf16_kernel());
  std::vector<float> buffer;
  for (int64_t p = 0; p < w.n_panels(); ++p)
    reference_panel(a, m, lda, plain_panel(w, p, buffer), w.cols(), c + p * kNr, ldc, std::min(kNr, w.rows() - p * kNr));
}

void gemv_rows(const float* a, const PackedMatrix& w, const int32_t* rows, int64_t n_rows, float* out) {
  if (w.type() == PackedType::Q8) return gemv_rows_q8(a, w, rows, n_rows, out);
  if (w.type() == PackedType::BF16Dot) return gemv_rows_bf16(a, w, rows, n_rows, out);
  for (int64_t r = 0; r < n_rows; ++r) {
    float acc = 0.0f;
    if (w.type() == PackedType::F32) {
      const float* column = w.panel(rows[r] / kNr) + rows[r] % kNr;
      for (int64_t k = 0; k < w.cols(); ++k) acc = std::fma(a[k], column[k * kNr], acc);
    } else {
      for (int64_t k = 0; k < w.cols(); ++k) acc = std::fma(a[k], w.at(rows[r], k), acc);
    }
    out[r] = acc;
  }
}

}  // namespace sift
