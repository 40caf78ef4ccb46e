#pragma once
// Vectorised float math with plain twins that give the same bits.
//
// exp: Cephes-style (16 lanes at a time where the CPU has AVX-512, 8 with AVX2: each lane the
//   same operations). n = round(x / ln 2), r = x - n ln 2 (ln 2 split in two for exactness),
//   exp(r) ~ 1 + r + r^2 P(r) (degree-5 P), times 2^n through the exponent bits.
//   Relative error within 2.5e-7 of std::exp (tested). x is clamped to [-87, 88] so 2^n
//   stays a normal number: x < -87 gives 0 (true value < 1.7e-38), x > 88 gives exp(88)
//   ~ 1.65e38 instead of inf.
// sum: eight lane partial sums (element n goes to lane n % 8), the tree
//   ((l0+l4)+(l1+l5))+((l2+l6)+(l3+l7)), then the tail in order. A pure function of the
//   array, whatever the hardware.
#include <cstdint>

namespace sift {

// x[i] = exp(x[i]) for i < n.
void exp_inplace(float* x, int64_t n);
// The same function one value at a time (the plain twin, bitwise equal to exp_inplace).
float exp_plain(float x);

// sum of x[0..n) in the fixed order above.
float sum_fixed_order(const float* x, int64_t n);
// The plain twin of sum_fixed_order (no SIMD).
float sum_fixed_order_plain(const float* x, int64_t n);

// Softmax's pass: x[i] = exp(x[i] - shift) for i < n, and returns the sum_fixed_order of the
// results: the same bits as subtracting, exp_inplace and sum_fixed_order in turn, in one pass.
float exp_shifted_sum(float* x, int64_t n, float shift);
// Its plain twin.
float exp_shifted_sum_plain(float* x, int64_t n, float shift);

}  // namespace sift
