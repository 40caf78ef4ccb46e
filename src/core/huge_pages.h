#pragma once
// An allocator for the large, long-lived buffers (packed weights, KV caches, a session's
// activations): a block of 2 MiB or more is 2 MiB-aligned and advised as transparent huge
// pages (madvise MADV_HUGEPAGE) before anything touches it, so its first touch faults in
// 2 MiB pages instead of 4 KiB ones (512x fewer page faults, each costly in a VM) and the
// TLB covers the weights a gemm streams. Where the kernel's THP setting is "never" the advice
// is a no-op; smaller blocks come from operator new as before.
#include <cstddef>
#include <vector>

namespace sift {

void* allocate_huge_pages(size_t bytes);                   // throws std::bad_alloc
void free_huge_pages(void* block, size_t bytes) noexcept;  // bytes as allocated

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_huge_pages(n * sizeof(T)));
  }
  void deallocate(T* block, size_t n) noexcept { free_huge_pages(block, n * sizeof(T)); }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
};

template <typename T>
using HugePageVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace sift
