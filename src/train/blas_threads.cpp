#include "train/blas_threads.h"

#include <dlfcn.h>

namespace sift::train {
namespace {

template <typename Function>
Function* blas_function(const char* name) {
  return reinterpret_cast<Function*>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

void set_blas_threads(int threads) {
  if (auto* set = blas_function<void(int)>("openblas_set_num_threads")) set(threads);
}

int blas_threads() {
  auto* get = blas_function<int()>("openblas_get_num_threads");
  return get ? get() : 0;
}

}  // namespace sift::train
