#pragma once
// Threading: OpenMP with a static split. Kernels split work over output columns or heads,
// never over a count that depends on how many tokens are batched together, so a token's
// result does not depend on its companions (the determinism contract, design.md).
#include <omp.h>

#include <cstdint>

namespace sift {

inline int n_threads() { return omp_get_max_threads(); }
inline void set_n_threads(int n) {
  if (n > 0) omp_set_num_threads(n);
}

// Calls body(i) for i in [0, n), split statically over the threads.
template <typename Body>
void parallel_for(int64_t n, Body&& body) {
#pragma omp parallel for schedule(static) if (n > 1)
  for (int64_t i = 0; i < n; ++i) body(i);
}

}  // namespace sift
