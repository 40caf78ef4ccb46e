#pragma once
// An 8 x 8 block of floats transposed in registers: out[i] lane j = in[j] lane i. Used to
// lay operands out for the register tile (kernels/micro_tile.h): the keys of an attention
// call into panels, activation rows into the tile's k-major micro-panels.
#include <immintrin.h>

namespace sift {

__attribute__((target("avx2"), always_inline)) inline void transpose8x8(const __m256 in[8], __m256 out[8]) {
  __m256 t[8];  // pairs of rows interleaved
  for (int k = 0; k < 8; k += 2) t[k] = _mm256_unpacklo_ps(in[k], in[k + 1]), t[k + 1] = _mm256_unpackhi_ps(in[k], in[k + 1]);
  __m256 u[8];  // quads of rows, per 128-bit lane
  for (int k = 0; k < 8; k += 4) {
    u[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int d = 0; d < 4; ++d) {  // column d from the low lanes, d + 4 from the high
    out[d] = _mm256_permute2f128_ps(u[d], u[4 + d], 0x20);
    out[d + 4] = _mm256_permute2f128_ps(u[d], u[4 + d], 0x31);
  }
}

}  // namespace sift
