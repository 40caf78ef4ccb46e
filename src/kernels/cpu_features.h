#pragma once
// Which instruction sets the fast kernels may use. Every fast kernel has a plain twin that
// computes the same operations in the same order, so the answer never changes results.
//
// The environment variable SIFT_CPU_WITHOUT names instruction sets to treat as absent, comma
// separated: avx512f, avx512_bf16, avx512_vnni, avx_vnni, amx (what needs one that is absent is
// absent too: without avx512f, no AVX-512 kernel). It exists so the tests and benchmarks can run
// the fallbacks a CPU without them takes, on a CPU that has them; read once per process.
#include <cpuid.h>

#include <cstdlib>
#include <string_view>

namespace sift {

// Whether SIFT_CPU_WITHOUT lists `name`.
inline bool cpu_feature_withheld(std::string_view name) {
  const char* value = std::getenv("SIFT_CPU_WITHOUT");
  std::string_view list = value ? value : "";
  while (!list.empty()) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

inline bool cpu_has_avx2_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

// AVX-512F: the F32 register tile twice as wide (kernels/micro_tile.h).
inline bool cpu_has_avx512f() {
  static const bool has =
      cpu_has_avx2_fma() && __builtin_cpu_supports("avx512f") && !cpu_feature_withheld("avx512f");
  return has;
}

// CPUID bits that __builtin_cpu_supports does not name in every compiler sift builds with
// (clang 14 knows neither "f16c" nor "avxvnni"): read from the leaf directly.
inline bool cpuid_bit(unsigned leaf, unsigned subleaf, int reg, unsigned bit) {
  unsigned r[4] = {0, 0, 0, 0};  // eax, ebx, ecx, edx
  if (!__get_cpuid_count(leaf, subleaf, &r[0], &r[1], &r[2], &r[3])) return false;
  return (r[reg] >> bit) & 1u;
}

// F16C (half-precision widening; CPUID.1:ECX bit 29) comes with every AVX2 CPU sift has met;
// asked for anyway.
inline bool cpu_has_avx2_fma_f16c() {
  static const bool has = cpu_has_avx2_fma() && cpuid_bit(1, 0, 2, 29);
  return has;
}

// AVX-VNNI (vpdpbusd on 256-bit vectors; CPUID.(7,1):EAX bit 4): the Q8 kernel's faster
// integer dot.
inline bool cpu_has_avx_vnni() {
  static const bool has = cpu_has_avx2_fma() && cpuid_bit(7, 1, 0, 4) && !cpu_feature_withheld("avx_vnni");
  return has;
}

// AVX-512 VNNI (vpdpbusd on 512-bit vectors): the Q8 kernel's widest integer dot.
inline bool cpu_has_avx512_vnni() {
  static const bool has =
      cpu_has_avx512f() && __builtin_cpu_supports("avx512vnni") && !cpu_feature_withheld("avx512_vnni");
  return has;
}

// AVX512_BF16 (vdpbf16ps: BF16 pair dot products into F32; CPUID.(7,1):EAX bit 5): the BF16
// compute kernel (kernels/gemm_bf16.h).
inline bool cpu_has_avx512_bf16() {
  static const bool has = cpu_has_avx512f() && __builtin_cpu_supports("avx512bw") && cpuid_bit(7, 1, 0, 5) &&
                          !cpu_feature_withheld("avx512_bf16");
  return has;
}

// AMX-TILE and AMX-BF16 (CPUID.(7,0):EDX bits 24 and 22): tdpbf16ps on tiles. Linux must still
// grant the process the tile state before use (kernels/gemm_bf16.cpp asks).
inline bool cpu_has_amx_bf16() {
  static const bool has =
      cpu_has_avx512_bf16() && cpuid_bit(7, 0, 3, 24) && cpuid_bit(7, 0, 3, 22) && !cpu_feature_withheld("amx");
  return has;
}

}  // namespace sift
