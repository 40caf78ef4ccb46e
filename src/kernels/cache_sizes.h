#pragma once
// The data caches of the CPU the process runs on, read once at run time (sysconf: glibc answers
// from CPUID), for the gemms' blocking.
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace sift {

struct CacheSizes {
  int64_t l1d = 0, l2 = 0, l3 = 0;  // bytes (L1d and L2 per core); 0 where the system does not say
};

inline const CacheSizes& cache_sizes() {
  static const CacheSizes sizes = [] {
    const auto read = [](int name) {
      const long bytes = sysconf(name);
      return bytes > 0 ? int64_t{bytes} : int64_t{0};
    };
    return CacheSizes{read(_SC_LEVEL1_DCACHE_SIZE), read(_SC_LEVEL2_CACHE_SIZE), read(_SC_LEVEL3_CACHE_SIZE)};
  }();
  return sizes;
}

// Rows of a gemm's row block: as many as fill half of L2 with `bytes_per_row` each (so the
// block stays there while weight panels stream past), a multiple of `multiple` in [min, max];
// `unknown` where L2's size is not known.
inline int64_t rows_in_half_l2(int64_t bytes_per_row, int64_t multiple, int64_t min, int64_t max, int64_t unknown) {
  const int64_t l2 = cache_sizes().l2;
  if (l2 <= 0) return unknown;
  return std::clamp(l2 / 2 / bytes_per_row / multiple * multiple, min, max);
}

}  // namespace sift
