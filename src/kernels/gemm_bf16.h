#pragma once
// C (M, N) = A (M, K) @ W^T in BF16 arithmetic: W held as BF16 pairs (PackedType::BF16Dot,
// kernels/packed_matrix.h), A rounded to BF16 row by row as the product is taken, the products
// summed in F32 by the CPU's BF16 dot-product instructions.
//
// Rounding A (bf16_round, vcvtneps2bf16's rule): to nearest, ties to even; a denormal becomes
// a zero of its sign; NaN stays a quiet NaN.
//
// A product of two BF16 values is exact in F32. Every add below is rounded to nearest even, and
// as the instructions do it, a denormal operand counts as a zero of its sign (DAZ) and a
// denormal result becomes a zero of its sign (FTZ). K2 is K padded with zeros to a multiple of
// 32. The chain of c(i, n) is the kernel's:
//
//   Amx (tdpbf16ps on 16 x 32 tiles), per block b = 0, 1, .. of 32 k:
//       e = fma(a[32b+30] w[32b+30], ... fma(a[32b+2] w[32b+2], fma(a[32b] w[32b], 0)))     even k
//       o = fma(a[32b+31] w[32b+31], ... fma(a[32b+1] w[32b+1], 0))                         odd k
//       c = c + (e + o)                                                  (c = 0 before block 0)
//   Avx512Bf16 (vdpbf16ps), per pair j = 0 .. K2/2 - 1:
//       c = fma(a[2j] w[2j], fma(a[2j+1] w[2j+1], c))                    the odd k first, c from 0
//
// (The AMX chains are those the instruction reference's pseudocode states and the tests check
// bitwise on the hardware: two chains, even and odd k, per instruction.) Either chain is a pure
// function of row i of A and row n of W: rows are rounded alone, threads split columns, K is
// walked in order, so row i of C is the same bits whatever M, the row's place or the thread
// count. The two chains round differently; a process uses one kernel (bf16_kernel()). The
// plain reference computes either chain element by element, bitwise equal to its kernel.
#include <cstdint>

#include "kernels/packed_matrix.h"

namespace sift {

enum class Bf16Kernel { None, Avx512Bf16, Amx };

// The kernel this process multiplies BF16Dot matrices with, chosen once: AMX where the CPU has
// AMX-BF16 and Linux grants the process its tile state (ARCH_REQ_XCOMP_PERM), else AVX512_BF16
// (vdpbf16ps), else None (then `--weights bf16` keeps BF16 weights multiplied in F32). The
// environment variable SIFT_BF16_COMPUTE picks less: "off" gives None, "avx512" skips AMX.
Bf16Kernel bf16_kernel();
bool bf16_kernel_available(Bf16Kernel kernel);  // on this CPU, granted by the OS (ignores the variable)
// For tests and benchmarks, which run the same products with each kernel; one that is not
// available fails.
void set_bf16_kernel(Bf16Kernel kernel);
const char* bf16_kernel_name(Bf16Kernel kernel);  // "none", "avx512-bf16", "amx"

uint16_t bf16_round(float x);  // the rounding of A, above

// W must be a BF16Dot matrix; lda/ldc are row strides in floats. Runs bf16_kernel(), which
// must not be None.
void gemm_bf16(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc);
// The plain reference: `kernel`'s chain, one element at a time.
void gemm_bf16_reference(const float* a, int64_t m, int64_t lda, const PackedMatrix& w, float* c, int64_t ldc,
                         Bf16Kernel kernel);
// out[r] = row rows[r] of W against a (one row) by bf16_kernel()'s chain: bitwise that column
// of gemm_bf16.
void gemv_rows_bf16(const float* a, const PackedMatrix& w, const int32_t* rows, int64_t n_rows, float* out);

}  // namespace sift
