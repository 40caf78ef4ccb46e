#pragma once
// C (M, N) = A (M, K) @ W^T with W held in Q8 blocks (kernels/packed_matrix.h) and A
// quantized the same way, row by row, as the product is taken (like GGUF Q8_0 x Q8_0):
//
//   per row i, block b (k = 32b .. 32b+31):  qa[i][b], da[i][b] = quantize_q8_block(A[i][32b..])
//   isum(i, n, b) = sum over the block's k of qa[i][k] * qw[n][k]        exact in int32
//   c(i, n)       = fma(float(isum(B-1)), da[B-1] * dw[B-1], ... fma(float(isum(0)), da[0] * dw[0], 0))
//
// |isum| <= 32 * 127 * 127 < 2^24, so float(isum) is exact and the order of the products
// inside a block is free; across blocks it is one fma chain per output element, in block
// order, from 0. Rows are quantized alone and threads split columns, never rows or k, so
// row i of C is a pure function of row i of A (the same bits whatever M, the row's place
// or the thread count), and the AVX2 kernel equals the plain reference bitwise.
//
// What it trades: A and W are each rounded to 8 bits per block of 32 (relative error up to
// 1/254 of the block's largest value), so results differ from the F32 product; they are
// exact and reproducible within Q8.
#include <cstdint>

#include "kernels/packed_matrix.h"

namespace sift {

// The integer dot of the fast kernel: vpdpbusd on 512-bit vectors (AVX-512 VNNI, two panels
// per micro-tile) or 256-bit ones (AVX-VNNI) where the CPU has it, else AVX2's vpmaddubsw +
// vpmaddwd. All add the same integers (tests run each against the reference). Best: the
// first of those the CPU has; asking for one the CPU lacks fails.
enum class Q8Kernel { Best, Avx2, AvxVnni, Avx512Vnni };

// W must be a Q8 matrix; lda/ldc are row strides in floats.
void gemm_q8(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc,
             Q8Kernel kernel = Q8Kernel::Best);
// The plain reference: the same chain, one element at a time.
void gemm_q8_reference(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc);
// out[r] = row rows[r] of W against a (one row), bitwise equal to that column of gemm_q8.
void gemv_rows_q8(const float* a, const PackedMatrix& w, const int32_t* rows, int64_t n_rows, float* out);

}  // namespace sift
