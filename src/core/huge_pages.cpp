#include "core/huge_pages.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

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

void free_huge_pages(void* block, size_t bytes) noexcept {
  if (bytes < kHugePage) return ::operator delete(block);
  std::free(block);
}

}  // namespace sift
