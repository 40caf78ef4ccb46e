#pragma once
// Where a register tile of kRows x kCols accumulators reads and writes C (the F32 tiles of
// kernels/gemm.cpp, the Q8 tiles of kernels/gemm_q8.cpp): C itself when the tile is full,
// else a zero-padded copy, read in unless the chains start here (`first`) and written back
// when the target goes out of scope, so edge tiles run the full tile's code.
#include <algorithm>
#include <cstdint>

namespace sift {

template <int64_t kRows, int64_t kCols>
class TileTarget {
 public:
  // C[0..rows)[0..n_valid) with row stride ldc.
  TileTarget(float* c, int64_t ldc, int64_t rows, int64_t n_valid, bool first)
      : c_(c), ldc_(ldc), rows_(rows), n_valid_(n_valid), full_(rows == kRows && n_valid == kCols) {
    if (full_) return;  // the copy is zeroed only when used (a full tile's constructor writes nothing)
    std::fill(&tile_[0][0], &tile_[0][0] + kRows * kCols, 0.0f);
    if (!first)
      for (int64_t r = 0; r < rows_; ++r) std::copy(c_ + r * ldc_, c_ + r * ldc_ + n_valid_, tile_[r]);
  }
  ~TileTarget() {
    if (!full_)
      for (int64_t r = 0; r < rows_; ++r) std::copy(tile_[r], tile_[r] + n_valid_, c_ + r * ldc_);
  }
  TileTarget(const TileTarget&) = delete;
  TileTarget& operator=(const TileTarget&) = delete;

  float* row(int64_t r) { return full_ ? c_ + r * ldc_ : tile_[r]; }
  int64_t stride() const { return full_ ? ldc_ : kCols; }  // floats from row(r) to row(r + 1)

 private:
  float* c_;
  int64_t ldc_, rows_, n_valid_;
  bool full_;
  alignas(64) float tile_[kRows][kCols];  // NOLINT: zeroed in the constructor when used
};

}  // namespace sift
