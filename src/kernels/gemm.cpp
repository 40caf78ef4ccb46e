#include "kernels/gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "core/parallel.h"

namespace sift {
namespace {

constexpr int64_t kNr = PackedMatrix::kPanelWidth;  // 16 columns: two 8-float vectors
constexpr int64_t kMr = 6;                          // rows per micro-tile: 12 accumulators
constexpr int64_t kKc = 256;                        // K block: a 16 KB panel slice stays in L1

bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// C[0..rows)[0..16) (+)= A[0..rows)[k0..k1) @ panel[k0..k1): per element an fma chain in k
// order; accumulators start at 0 when k0 == 0, else from C.
template <int kRows>
__attribute__((target("avx2,fma"))) void micro_kernel(const float* a, int64_t lda, const float* panel,
                                                      int64_t k0, int64_t k1, float* c, int64_t ldc,
                                                      int64_t n_valid) {
  __m256 acc[kRows][2];
  alignas(32) float tmp[kNr];
  for (int r = 0; r < kRows; ++r) {
    if (k0 == 0) {
      acc[r][0] = _mm256_setzero_ps();
      acc[r][1] = _mm256_setzero_ps();
    } else if (n_valid == kNr) {
      acc[r][0] = _mm256_loadu_ps(c + r * ldc);
      acc[r][1] = _mm256_loadu_ps(c + r * ldc + 8);
    } else {
      std::fill(tmp, tmp + kNr, 0.0f);
      std::copy(c + r * ldc, c + r * ldc + n_valid, tmp);
      acc[r][0] = _mm256_load_ps(tmp);
      acc[r][1] = _mm256_load_ps(tmp + 8);
    }
  }
  const float* b = panel + k0 * kNr;
  for (int64_t k = k0; k < k1; ++k, b += kNr) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
    for (int r = 0; r < kRows; ++r) {
      const __m256 ar = _mm256_broadcast_ss(a + r * lda + k);
      acc[r][0] = _mm256_fmadd_ps(ar, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(ar, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    if (n_valid == kNr) {
      _mm256_storeu_ps(c + r * ldc, acc[r][0]);
      _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
    } else {
      _mm256_store_ps(tmp, acc[r][0]);
      _mm256_store_ps(tmp + 8, acc[r][1]);
      std::copy(tmp, tmp + n_valid, c + r * ldc);
    }
  }
}

using MicroKernel = void (*)(const float*, int64_t, const float*, int64_t, int64_t, float*, int64_t, int64_t);
constexpr MicroKernel kMicroKernels[kMr + 1] = {nullptr,          micro_kernel<1>, micro_kernel<2>,
                                                micro_kernel<3>, micro_kernel<4>, micro_kernel<5>,
                                                micro_kernel<6>};

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

}  // namespace

PackedMatrix::PackedMatrix(int64_t n_rows, int64_t n_cols, const std::function<void(int64_t, float*)>& fill_row)
    : n_rows_(n_rows), n_cols_(n_cols), data_(static_cast<size_t>(n_panels() * n_cols * kPanelWidth), 0.0f) {
  std::vector<float> row(static_cast<size_t>(n_cols));
  for (int64_t n = 0; n < n_rows; ++n) {
    fill_row(n, row.data());
    float* dst = data_.data() + (n / kPanelWidth) * n_cols * kPanelWidth + n % kPanelWidth;
    for (int64_t k = 0; k < n_cols; ++k) dst[k * kPanelWidth] = row[k];
  }
}

PackedMatrix PackedMatrix::from_row_major(const float* w, int64_t n_rows, int64_t n_cols) {
  return PackedMatrix(n_rows, n_cols, [&](int64_t n, float* dst) { std::copy(w + n * n_cols, w + (n + 1) * n_cols, dst); });
}

void PackedMatrix::copy_row(int64_t n, float* dst) const {
  const float* src = panel(n / kPanelWidth) + n % kPanelWidth;
  for (int64_t k = 0; k < n_cols_; ++k) dst[k] = src[k * kPanelWidth];
}

void gemm(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc) {
  if (!cpu_has_avx2_fma()) return gemm_reference(a, m, lda, w, c, ldc);
  const int64_t k_total = w.cols();
  // Threads take whole panels (columns of C); each walks K in blocks, all rows per block.
  parallel_for(w.n_panels(), [&](int64_t p) {
    const float* panel = w.panel(p);
    const int64_t n_valid = std::min(kNr, w.rows() - p * kNr);
    float* c_panel = c + p * kNr;
    for (int64_t k0 = 0; k0 < k_total; k0 += kKc) {
      const int64_t k1 = std::min(k_total, k0 + kKc);
      for (int64_t i = 0; i < m; i += kMr) {
        const int64_t rows = std::min(kMr, m - i);
        kMicroKernels[rows](a + i * lda, lda, panel, k0, k1, c_panel + i * ldc, ldc, n_valid);
      }
    }
  });
}

void gemm_reference(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc) {
  for (int64_t p = 0; p < w.n_panels(); ++p)
    reference_panel(a, m, lda, w.panel(p), w.cols(), c + p * kNr, ldc, std::min(kNr, w.rows() - p * kNr));
}

void gemv_rows(const float* a, const PackedMatrix& w, const int32_t* rows, int64_t n_rows, float* out) {
  for (int64_t r = 0; r < n_rows; ++r) {
    const float* column = w.panel(rows[r] / kNr) + rows[r] % kNr;
    float acc = 0.0f;
    for (int64_t k = 0; k < w.cols(); ++k) acc = std::fma(a[k], column[k * kNr], acc);
    out[r] = acc;
  }
}

}  // namespace sift
