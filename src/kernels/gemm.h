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
//
// BF16 and F16 weights are widened to F32 (exactly) before they enter the chain: the fast
// kernel widens the (512, 16) slices of a column block's panels into a buffer once per row
// block, the reference widens element by element; both give the bits of the F32 matrix
// holding the same values. Q8 weights take the int8 kernel of kernels/gemm_q8.h (its own chain, stated
// there); gemm, gemm_reference and gemv_rows dispatch on the matrix's type.
#include <cstdint>

#include "kernels/packed_matrix.h"

namespace sift {

// C (M, N) = A (M, K) @ W^T; lda/ldc are row strides in floats.
void gemm(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc);
// The plain reference: the same fma chain, one element at a time.
void gemm_reference(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc);
// out[r] = dot(a, W[rows[r]]) with the same fma chain as gemm: bitwise equal to the
// corresponding column of gemm. For reading a few vocabulary rows.
void gemv_rows(const float* a, const PackedMatrix& w, const int32_t* rows, int64_t n_rows, float* out);

}  // namespace sift
