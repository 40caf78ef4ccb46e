#pragma once
// The AVX512_BF16 register tile of the BF16 gemm (kernels/gemm_bf16.cpp), also used by
// attention's BF16 products (kernels/attention_bf16.cpp):
//
//   C[r][n] = chain over pairs j = 0..n_pairs-1 in order of
//             c = fma(a[2j] b[2j], fma(a[2j+1] b[2j+1], c))      (vdpbf16ps: the odd k first)
//
// (r < rows <= kBf16TileRows, n < n_valid <= 32), from 0 when `first`, else from C's value;
// every add rounded to nearest even, denormal operands and results as zeros of their sign
// (bf16_pair_fma below is one step, plainly). A is one micro-panel as bf16_pack_rows lays it
// out; B is one or two panels of 16 columns, each k-pair-major (pair j's 32 words at b + 32 j:
// column n's pair at 2 n, the even k first), the second at b + b_next. C has row stride ldc.
// The caller checks the CPU for AVX512_BF16.
#include <cstdint>

namespace sift {

constexpr int64_t kBf16TileRows = 12;  // rows of a micro-panel of A and of the tile

// Rows 0..rows-1 of a (row stride lda floats; rows <= 12) rounded to BF16 (bf16_round) into one
// micro-panel of k2 / 2 pairs at out: pair j of row r at out[(j * 12 + r) * 2] (the even k
// first). Values past k and rows past `rows` are zeros; k2 is a multiple of 16.
void bf16_pack_rows(const float* a, int64_t lda, int64_t rows, int64_t k, int64_t k2, uint16_t* out);

// The same rounding and layout for 16 rows: attention's key panel (keys 0..n_valid-1 at keys +
// j * key_stride, hd values each), pair i of key j at out[(i * 16 + j) * 2].
void bf16_pack_key_panel(const float* keys, int64_t key_stride, int64_t n_valid, int64_t hd, int64_t k2, uint16_t* out);

void bf16_tile(const uint16_t* a, const uint16_t* b, int64_t b_next, int64_t n_pairs, bool first, float* c,
               int64_t ldc, int64_t rows, int64_t n_valid);

// One step of the chain, plainly: fma(a0 b0, fma(a1 b1, c)) as vdpbf16ps does it.
float bf16_pair_fma(uint16_t a0, uint16_t a1, uint16_t b0, uint16_t b1, float c);

}  // namespace sift
