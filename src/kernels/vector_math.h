#pragma once
// Vectorised float math with plain twins that give the same bits.
//
// exp: Cephes-style. n = round(x / ln 2), r = x - n ln 2 (ln 2 split in two for exactness),
//   exp(r) ~ 1 + r + r^2 P(r) (degree-5 P), times 2^n through the exponent bits.
//   Relative error <= 2 ulp-ish (tested <= 3e-7 against std::exp); x is clamped to
//   [-87.3, 88.7], so very negative x gives a tiny normal number instead of a denormal
//   or 0 and large x gives ~3.4e38 instead of inf.
// sum: eight lane partial sums (element n goes to lane n % 8), a fixed pairwise tree, then
//   the tail in order. A pure function of the array, whatever the hardware.
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

}  // namespace sift
