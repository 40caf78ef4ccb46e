#pragma once
// A weight matrix W (N, K) (Hugging Face layout: N output rows of K inputs) held in the
// layout the gemm kernels read, in one of five element types:
//
//   F32, BF16, F16 : column panels of kPanelWidth = 16 rows of W, each stored (K, 16):
//                    W[n][k] lives at element (n / 16) * K * 16 + k * 16 + n % 16, zero-padded
//                    past N. BF16 and F16 are widened to F32 exactly when read (io/dtype.h),
//                    so a 16-bit matrix gives the F32 kernels the very values it holds.
//   BF16Dot        : BF16 multiplied as BF16 (kernels/gemm_bf16.h): panels of 16 rows of W
//                    with K padded to K2 = a multiple of kBf16Block = 32 (zeros), each stored
//                    as K2 / 2 rows of 16 columns x 2 consecutive k:
//                        W[n][k] at element (n / 16) * K2 * 16 + (k / 2) * 32 + (n % 16) * 2 + k % 2
//                    so 64 bytes hold one k pair of the panel's 16 columns (a vdpbf16ps
//                    operand) and 1 KB one block of 32 k (an AMX tile).
//   Q8             : symmetric int8 blocks of kQ8Block = 32 along k (like GGUF Q8_0). Row n,
//                    block b holds x = W[n][32b .. 32b+31] (zero past K) as
//                        d = max|x| / 127,  q = round(x / d) in [-127, 127],  x ~ d * q
//                    (d = 0 and q = 0 for an all-zero block). Quants of panel p, block b,
//                    quad j (k = 32b + 4j + t, t = 0..3), column c = n % 16:
//                        q8_panel(p)[b * 512 + j * 64 + c * 4 + t]
//                    so one 32-byte load is 8 columns x 4 consecutive k (the AVX2 lanes);
//                    scales: q8_scales(p)[b * 16 + c]; the block's sum of q (for the kernel
//                    that offsets activations by 128): q8_column_sums(p)[b * 16 + c].
//                    Quantizing is lossy: see docs/models.md, "Weights in memory".
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/huge_pages.h"

namespace sift {

enum class PackedType { F32, BF16, F16, Q8, BF16Dot };

class PackedMatrix {
 public:
  static constexpr int64_t kPanelWidth = 16;
  static constexpr int64_t kQ8Block = 32;
  static constexpr int64_t kQ8PanelBlockBytes = kQ8Block * kPanelWidth;  // 512
  static constexpr int64_t kBf16Block = 32;

  PackedMatrix() = default;
  // fill_row(n, dst) writes row n of W (K floats) into dst; each row is converted to `type`
  // as it is packed (BF16: round to nearest even; F16: likewise; both exact for values that
  // are already 16-bit).
  PackedMatrix(int64_t n_rows, int64_t n_cols, const std::function<void(int64_t, float*)>& fill_row,
               PackedType type = PackedType::F32);
  static PackedMatrix from_row_major(const float* w, int64_t n_rows, int64_t n_cols,
                                     PackedType type = PackedType::F32);

  PackedType type() const { return type_; }
  int64_t rows() const { return n_rows_; }  // N
  int64_t cols() const { return n_cols_; }  // K
  int64_t n_panels() const { return (n_rows_ + kPanelWidth - 1) / kPanelWidth; }
  int64_t n_q8_blocks() const { return (n_cols_ + kQ8Block - 1) / kQ8Block; }  // Q8: blocks per row
  // Whether a product of m activation rows with these weights is worth splitting over threads
  // (the gemms split the panels): more than one panel, and m x K x N of at least 2^18.
  bool worth_threads(int64_t m) const { return n_panels() > 1 && m * n_cols_ * n_rows_ >= (1 << 18); }
  // F32 / BF16 / F16 / BF16Dot: the k rows of a panel as stored (K, or K2 for BF16Dot).
  int64_t panel_depth() const {
    return type_ == PackedType::BF16Dot ? (n_cols_ + kBf16Block - 1) / kBf16Block * kBf16Block : n_cols_;
  }

  // F32 / BF16 / F16 / BF16Dot: panel p as stored, panel_depth() x 16 elements of element_size() bytes.
  const std::byte* panel_bytes(int64_t p) const {
    return data_.data() + p * panel_depth() * kPanelWidth * element_size();
  }
  const float* panel(int64_t p) const { return reinterpret_cast<const float*>(panel_bytes(p)); }  // F32 only
  const uint16_t* bf16_panel(int64_t p) const { return reinterpret_cast<const uint16_t*>(panel_bytes(p)); }  // BF16Dot
  size_t element_size() const;
  // Q8: panel p's quants and scales (layout above).
  const int8_t* q8_panel(int64_t p) const {
    return reinterpret_cast<const int8_t*>(data_.data()) + p * n_q8_blocks() * kQ8PanelBlockBytes;
  }
  const float* q8_scales(int64_t p) const { return scales_.data() + p * n_q8_blocks() * kPanelWidth; }
  const int16_t* q8_column_sums(int64_t p) const { return sums_.data() + p * n_q8_blocks() * kPanelWidth; }

  // W[n][k] as F32: the stored value widened, or d * q for Q8.
  float at(int64_t n, int64_t k) const;
  void copy_row(int64_t n, float* dst) const;  // row n of W (K floats), as at()
  size_t bytes() const {  // resident size
    return data_.size() + scales_.size() * sizeof(float) + sums_.size() * sizeof(int16_t);
  }

 private:
  void pack_row(int64_t n, const float* row);

  PackedType type_ = PackedType::F32;
  int64_t n_rows_ = 0, n_cols_ = 0;
  HugePageVector<std::byte> data_;  // the weights a gemm streams: huge pages where the kernel has them
  std::vector<float> scales_;  // Q8 only
  std::vector<int16_t> sums_;  // Q8 only: |sum| <= 32 * 127
};

// Quantizes n <= 32 values of x into one Q8 block: q[0..32) (zero past n), returns d. The one
// definition of the rounding, shared by weights (at load) and activations (in gemm).
float quantize_q8_block(const float* x, int64_t n, int8_t* q);

}  // namespace sift
