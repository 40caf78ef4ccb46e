#pragma once
// Runs a test body once per F32 register tile this CPU has (kernels/micro_tile.h): AVX2, and
// AVX-512 where the CPU has it, so the bitwise checks cover the path every user's CPU takes.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu_features.h"
#include "kernels/micro_tile.h"

namespace sift::testing {

inline std::vector<TileIsa> tile_isas() {
  std::vector<TileIsa> isas;
  if (!cpu_has_avx2_fma()) return isas;  // the plain kernels only: nothing to choose
  isas.push_back(TileIsa::Avx2);
  if (cpu_has_avx512f()) isas.push_back(TileIsa::Avx512);
  return isas;
}

inline const char* tile_isa_name(TileIsa isa) { return isa == TileIsa::Avx2 ? "AVX2 tile" : "AVX-512 tile"; }

template <typename Fn>
void for_each_tile_isa(Fn&& fn) {
  const TileIsa saved = tile_isa();
  for (const TileIsa isa : tile_isas()) {
    SCOPED_TRACE(tile_isa_name(isa));
    set_tile_isa(isa);
    fn();
  }
  set_tile_isa(saved);
}

}  // namespace sift::testing
