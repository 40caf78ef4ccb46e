#pragma once
// The F32 gemm's register tile (kernels/gemm.cpp), also used by attention for its scores:
//
//   C[r][j] = fma chain over k = 0..kc-1 in order of A[k][r] * B[k][j]   (r < rows <= 6, j < n_valid <= 16)
//
// starting from 0 when `first`, else from C's value (so a long chain can be cut into blocks).
// A is packed k-major with kTileRows values per k (rows past `rows` zero), B is (kc, kTileCols)
// with row stride kTileCols; C has row stride ldc. AVX2 + FMA only: callers check the CPU.
#include <cstdint>

namespace sift {

constexpr int64_t kTileRows = 6;   // 6 x 2 vectors = 12 accumulators in registers
constexpr int64_t kTileCols = 16;  // two 8-float vectors: a packed weight panel's width

void micro_tile(const float* a_packed, const float* b, int64_t kc, bool first, float* c, int64_t ldc, int64_t rows,
                int64_t n_valid);

// The A operand: src (n_rows, n_cols; row stride ld) as micro-panels of kTileRows rows, k-major:
// dst[(t / 6) * n_cols * 6 + k * 6 + t % 6] = src[t * ld + k]; rows past n_rows (to the next
// multiple of 6) are 0.
void pack_tile_rows(const float* src, int64_t n_rows, int64_t n_cols, int64_t ld, float* dst);

}  // namespace sift
