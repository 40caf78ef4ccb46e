#pragma once
// Which instruction sets the fast kernels may use. Every fast kernel has a plain twin that
// computes the same operations in the same order, so the answer never changes results.

namespace sift {

inline bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

}  // namespace sift
