#pragma once
// The F32 gemm's register tile (kernels/gemm.cpp), also used by attention for its scores and
// values:
//
//   C[r][j] = fma chain over k = 0..kc-1 in order of A[k][r] * B[k][j]   (r < rows <= tile_rows(), j < n_valid <= 32)
//
// starting from 0 when `first`, else from C's value (so a long chain can be cut into blocks).
// A is packed as pack_tile_rows() lays it out: micro-panels of kTileRows rows, each k-major
// (kc, 6), the second at a_packed + kc * 6 (rows past `rows` zero). B is one or two panels of
// 16 columns, each (kc, 16) with row stride 16: columns 0..15 at b, columns 16..31 at
// b + b_next. C has row stride ldc.
//
// The tile is as large as the CPU's vector registers make it fast: with AVX-512, 12 rows x 32
// columns in 24 zmm accumulators (two micro-panels of A: 12 broadcasts and 2 loads per 24
// FMAs, where 6 rows spent 8 loads on 12 FMAs and ran ~10% slower with A streaming from L2);
// with AVX2, 6 x 16 in 12 ymm, walked over the rows and columns asked. Every element is the
// same chain either way, so the choice never changes a bit. Callers walk B tile_panels()
// panels and A tile_rows() rows at a time, and check the CPU for AVX2 + FMA before they call.
#include <cstdint>

namespace sift {

constexpr int64_t kTileRows = 6;   // rows of a micro-panel of A (a tile takes one or two)
constexpr int64_t kTileCols = 16;  // one panel: a packed weight panel's width

enum class TileIsa { Avx2, Avx512 };
TileIsa tile_isa();  // AVX-512 where the CPU has AVX-512F, else AVX2
// For tests and benchmarks, which run the same work with each; AVX-512 on a CPU without it fails.
void set_tile_isa(TileIsa isa);
inline int64_t tile_panels() { return tile_isa() == TileIsa::Avx512 ? 2 : 1; }
inline int64_t tile_rows() { return tile_isa() == TileIsa::Avx512 ? 2 * kTileRows : kTileRows; }

void micro_tile(const float* a_packed, const float* b, int64_t b_next, int64_t kc, bool first, float* c, int64_t ldc,
                int64_t rows, int64_t n_valid);

// The A operand: src (n_rows, n_cols; row stride ld) as micro-panels of kTileRows rows, k-major:
// dst[(t / 6) * n_cols * 6 + k * 6 + t % 6] = src[t * ld + k]; rows past n_rows (to the next
// multiple of 6) are 0.
void pack_tile_rows(const float* src, int64_t n_rows, int64_t n_cols, int64_t ld, float* dst);

}  // namespace sift
