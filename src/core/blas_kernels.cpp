#include "core/blas_kernels.h"

#include <dlfcn.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

namespace sift {
namespace {

constexpr const char* kCoreTypeVariable = "OPENBLAS_CORETYPE";
constexpr const char* kGenericKernels = "Prescott";  // OpenBLAS's fallback for a CPU it does not know

// OpenBLAS's name for its kernels, found in the process at run time (any BLAS links), or "".
std::string openblas_core_name() {
  auto* get = reinterpret_cast<char* (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  const char* name = get ? get() : nullptr;
  return name ? name : "";
}

// This process's arguments as it was started: /proc/self/cmdline, each ended by a NUL.
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> arguments;
  for (std::string argument; std::getline(in, argument, '\0');) arguments.push_back(argument);
  return arguments;
}

}  // namespace

std::string blas_kernels_for_this_cpu() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  if (__builtin_cpu_supports("avx")) return "Sandybridge";
  return "";
}

std::string blas_kernels_in_use() {
  const std::string core = openblas_core_name();
  return core.empty() ? "" : "OpenBLAS " + core;
}

void rerun_with_cpu_blas_kernels() {
  if (std::getenv(kCoreTypeVariable)) return;  // the user's choice, or this is the rerun
  if (openblas_core_name() != kGenericKernels) return;
  const std::string kernels = blas_kernels_for_this_cpu();
  if (kernels.empty()) return;
  std::vector<std::string> arguments = own_arguments();
  if (arguments.empty()) return;
  spdlog::debug("OpenBLAS took its generic {} kernels on this CPU; running again with {}={}", kGenericKernels,
                kCoreTypeVariable, kernels);
  ::setenv(kCoreTypeVariable, kernels.c_str(), 1);
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  spdlog::warn("could not run again with {}={} ({}): multiplying with the generic kernels", kCoreTypeVariable, kernels,
               std::strerror(errno));
  ::unsetenv(kCoreTypeVariable);
}

}  // namespace sift
