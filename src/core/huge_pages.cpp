#include "core/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "core/parallel.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; older kernels answer EINVAL, and the first write faults
#endif

namespace sift {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;  // x86-64's transparent huge page: 2 MiB

}  // namespace

void* allocate_huge_pages(size_t bytes) {
  if (bytes < kHugePage) return ::operator new(bytes);
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;  // aligned_alloc wants a multiple
  if (rounded < bytes) throw std::bad_alloc();
  void* block = std::aligned_alloc(kHugePage, rounded);
  if (!block) throw std::bad_alloc();
  ::madvise(block, rounded, MADV_HUGEPAGE);  // advice only: without THP the pages stay 4 KiB
  return block;
}

void populate_pages(void* block, size_t bytes) {
  constexpr uintptr_t kPage = 4096;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(block) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(block) + bytes) & ~(kPage - 1);
  if (end <= begin || end - begin < 2 * kHugePage) return;  // small: the first write is as cheap
  const int64_t n_pieces = static_cast<int64_t>((end - begin + kHugePage - 1) / kHugePage);
  parallel_for(n_pieces, [&](int64_t i) {
    const uintptr_t from = begin + static_cast<uintptr_t>(i) * kHugePage;
    ::madvise(reinterpret_cast<void*>(from), std::min<uintptr_t>(kHugePage, end - from), MADV_POPULATE_WRITE);
  }, int64_t{1} << 30);  // always worth the threads
}

void free_huge_pages(void* block, size_t bytes) noexcept {
  if (bytes < kHugePage) return ::operator delete(block);
  std::free(block);
}

}  // namespace sift
