#include "apps/version_text.h"

#include <fmt/format.h>

#include "kernels/cpu_features.h"
#include "kernels/micro_tile.h"
#include "sift/version.h"

// Set by CMakeLists.txt on this file only.
#ifndef SIFT_BUILD_TYPE
#define SIFT_BUILD_TYPE "unknown"
#endif

namespace sift::apps {

std::string version_text() {
#if defined(__clang__)
  const std::string compiler = fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  const std::string compiler = fmt::format("gcc {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  const std::string compiler = "an unknown compiler";
#endif
  const char* simd = !cpu_has_avx2_fma()           ? "plain kernels (no AVX2+FMA on this CPU)"
                     : tile_isa() == TileIsa::Avx512 ? "AVX2+FMA kernels, AVX-512 register tile"
                                                     : "AVX2+FMA kernels";
  return fmt::format("sift {} (commit {}, {} build, {}, {}, C++{})", sift::version(), git_commit(), SIFT_BUILD_TYPE,
                     compiler, simd, __cplusplus / 100 % 100);
}

}  // namespace sift::apps
