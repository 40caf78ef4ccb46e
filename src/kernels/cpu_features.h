#pragma once
// Which instruction sets the fast kernels may use. Every fast kernel has a plain twin that
// computes the same operations in the same order, so the answer never changes results.

namespace sift {

inline bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// F16C (half-precision widening) comes with every AVX2 CPU sift has met; asked for anyway.
inline bool cpu_has_avx2_fma_f16c() {
  static const bool has = cpu_has_avx2_fma() && __builtin_cpu_supports("f16c");
  return has;
}

// AVX-VNNI (vpdpbusd on 256-bit vectors): the Q8 kernel's faster integer dot.
inline bool cpu_has_avx_vnni() {
  static const bool has = cpu_has_avx2_fma() && __builtin_cpu_supports("avxvnni");
  return has;
}

}  // namespace sift
