#pragma once
// Matrix products against weights: C (M, N) = A (M, K) @ W^T, W stored (N, K) as in
// Hugging Face checkpoints.
//
// Determinism by construction: every output element is one fused-multiply-add chain over
// k = 0..K-1 in order, starting from 0:  c = fma(a[K-1], w[K-1], ... fma(a[0], w[0], 0)).
// Blocking over K reloads the partial sum from C and continues the same chain; threads
// split the columns (W rows), never the rows of A. So row i of C is a pure function of
// row i of A: the same bits whatever M is or where the row sits. The fast kernel and the
// plain reference compute the same chain, so they agree bitwise.
#include <cstdint>
#include <functional>
#include <vector>

namespace sift {

// W (N, K) repacked into column panels of kPanelWidth rows of W:
//   panel p holds W[p*16 .. p*16+15][0..K-1] as (K, 16), zero-padded past N.
// The element W[n][k] lives at data[(n / 16) * K * 16 + k * 16 + n % 16].
class PackedMatrix {
 public:
  static constexpr int64_t kPanelWidth = 16;
  PackedMatrix() = default;
  // fill_row(n, dst) writes row n of W (K floats) into dst.
  PackedMatrix(int64_t n_rows, int64_t n_cols, const std::function<void(int64_t, float*)>& fill_row);
  static PackedMatrix from_row_major(const float* w, int64_t n_rows, int64_t n_cols);

  int64_t rows() const { return n_rows_; }  // N
  int64_t cols() const { return n_cols_; }  // K
  int64_t n_panels() const { return (n_rows_ + kPanelWidth - 1) / kPanelWidth; }
  const float* panel(int64_t p) const { return data_.data() + p * n_cols_ * kPanelWidth; }
  float at(int64_t n, int64_t k) const { return panel(n / kPanelWidth)[k * kPanelWidth + n % kPanelWidth]; }
  void copy_row(int64_t n, float* dst) const;  // row n of W (K floats)
  size_t bytes() const { return data_.size() * sizeof(float); }

 private:
  int64_t n_rows_ = 0, n_cols_ = 0;
  std::vector<float> data_;
};

// C (M, N) = A (M, K) @ W^T; lda/ldc are row strides in floats.
void gemm(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc);
// The plain reference: the same fma chain, one element at a time.
void gemm_reference(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc);
// out[r] = dot(a, W[rows[r]]) with the same fma chain as gemm: bitwise equal to the
// corresponding column of gemm. For reading a few vocabulary rows.
void gemv_rows(const float* a, const PackedMatrix& w, const int32_t* rows, int64_t n_rows, float* out);

}  // namespace sift
