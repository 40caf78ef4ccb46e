#include "kernels/vector_math.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "kernels/cpu_features.h"

namespace sift {
namespace {

// exp constants (Cephes expf): ln 2 = kLn2Hi + kLn2Lo, P(r) coefficients highest first.
constexpr float kExpMax = 88.0f, kExpMin = -87.0f;  // 2^n stays a normal number
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f;
constexpr float kP3 = 4.1665795894e-2f, kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

// The fixed tree over the eight lane sums of sum_fixed_order.
float lane_tree(const float* lane) {
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

__attribute__((target("avx2,fma"))) __m256 exp8(__m256 x) {
  const __m256 below = _mm256_cmp_ps(x, _mm256_set1_ps(kExpMin), _CMP_LT_OQ);
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(kExpMin)), _mm256_set1_ps(kExpMax));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fmadd_ps(n, _mm256_set1_ps(-kLn2Hi), x);
  r = _mm256_fmadd_ps(n, _mm256_set1_ps(-kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kP0);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
  __m256 y = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r);
  y = _mm256_add_ps(y, _mm256_set1_ps(1.0f));
  const __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_andnot_ps(below, _mm256_mul_ps(y, _mm256_castsi256_ps(bits)));
}

// GCC 12's AVX-512 headers start some results from _mm512_undefined and then warn that they
// may be used uninitialized (GCC bug 105593); they are not.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
// exp8's operations on 16 lanes (the lanes below kExpMin zeroed by a mask instead of an and-not:
// the same +0).
__attribute__((target("avx512f"))) __m512 exp16(__m512 x) {
  const __mmask16 below = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpMin), _CMP_LT_OQ);
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(kExpMin)), _mm512_set1_ps(kExpMax));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(-kLn2Hi), x);
  r = _mm512_fmadd_ps(n, _mm512_set1_ps(-kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kP0);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
  __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r);
  y = _mm512_add_ps(y, _mm512_set1_ps(1.0f));
  const __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
  return _mm512_maskz_mul_ps(static_cast<__mmask16>(~below), y, _mm512_castsi512_ps(bits));
}

__attribute__((target("avx2,fma"))) void exp_inplace_avx2(float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, exp8(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) x[i] = exp_plain(x[i]);
}

__attribute__((target("avx512f,avx2,fma"))) void exp_inplace_avx512(float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, exp16(_mm512_loadu_ps(x + i)));
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, exp8(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) x[i] = exp_plain(x[i]);
}

// exp_shifted_sum: the values 8 at a time into the eight lane sums, in order (with AVX-512, 16
// exponentials at a time, their low 8 added before their high 8), then the tree, then the tail.
__attribute__((target("avx2,fma"))) float exp_shifted_sum_avx2(float* x, int64_t n, float shift) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 y = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), s));
    _mm256_storeu_ps(x + i, y);
    acc = _mm256_add_ps(acc, y);
  }
  alignas(32) float lane[8];
  _mm256_store_ps(lane, acc);
  float sum = lane_tree(lane);
  for (; i < n; ++i) sum += (x[i] = exp_plain(x[i] - shift));
  return sum;
}

__attribute__((target("avx512f,avx2,fma"))) float exp_shifted_sum_avx512(float* x, int64_t n, float shift) {
  const __m512 s = _mm512_set1_ps(shift);
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 y = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i), s));
    _mm512_storeu_ps(x + i, y);
    acc = _mm256_add_ps(acc, _mm512_castps512_ps256(y));
    acc = _mm256_add_ps(acc, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1)));
  }
  if (i + 8 <= n) {
    const __m256 y = exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), _mm512_castps512_ps256(s)));
    _mm256_storeu_ps(x + i, y);
    acc = _mm256_add_ps(acc, y);
    i += 8;
  }
  alignas(32) float lane[8];
  _mm256_store_ps(lane, acc);
  float sum = lane_tree(lane);
  for (; i < n; ++i) sum += (x[i] = exp_plain(x[i] - shift));
  return sum;
}

__attribute__((target("avx2,fma"))) float sum_fixed_order_avx2(const float* x, int64_t n) {
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) acc = _mm256_add_ps(acc, _mm256_loadu_ps(x + i));
  alignas(32) float lane[8];
  _mm256_store_ps(lane, acc);
  float sum = lane_tree(lane);
  for (; i < n; ++i) sum += x[i];
  return sum;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace

float exp_plain(float x) {
  const bool below = x < kExpMin;
  x = std::fmin(std::fmax(x, kExpMin), kExpMax);
  const float n = std::nearbyint(x * kLog2e);
  float r = std::fma(n, -kLn2Hi, x);
  r = std::fma(n, -kLn2Lo, r);
  float p = kP0;
  p = std::fma(p, r, kP1);
  p = std::fma(p, r, kP2);
  p = std::fma(p, r, kP3);
  p = std::fma(p, r, kP4);
  p = std::fma(p, r, kP5);
  const float y = std::fma(p, r * r, r) + 1.0f;
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return below ? 0.0f : y * scale;
}

void exp_inplace(float* x, int64_t n) {
  if (cpu_has_avx512f()) return exp_inplace_avx512(x, n);
  if (cpu_has_avx2_fma()) return exp_inplace_avx2(x, n);
  for (int64_t i = 0; i < n; ++i) x[i] = exp_plain(x[i]);
}

float sum_fixed_order_plain(const float* x, int64_t n) {
  float lane[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) lane[l] += x[i + l];
  float sum = lane_tree(lane);
  for (; i < n; ++i) sum += x[i];
  return sum;
}

float sum_fixed_order(const float* x, int64_t n) {
  return cpu_has_avx2_fma() ? sum_fixed_order_avx2(x, n) : sum_fixed_order_plain(x, n);
}

float exp_shifted_sum_plain(float* x, int64_t n, float shift) {
  for (int64_t i = 0; i < n; ++i) x[i] = exp_plain(x[i] - shift);
  return sum_fixed_order_plain(x, n);
}

float exp_shifted_sum(float* x, int64_t n, float shift) {
  if (cpu_has_avx512f()) return exp_shifted_sum_avx512(x, n, shift);
  if (cpu_has_avx2_fma()) return exp_shifted_sum_avx2(x, n, shift);
  return exp_shifted_sum_plain(x, n, shift);
}

}  // namespace sift
