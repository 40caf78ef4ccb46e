#pragma once
// An allocator for the large, long-lived buffers (packed weights, KV caches, a session's
// activations): a block of 2 MiB or more is 2 MiB-aligned and advised as transparent huge
// pages (madvise MADV_HUGEPAGE) before anything touches it, so its first touch faults in
// 2 MiB pages instead of 4 KiB ones (512x fewer page faults, each costly in a VM) and the
// TLB covers the weights a gemm streams. Where the kernel's THP setting is "never" the advice
// is a no-op; smaller blocks come from operator new as before.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace sift {

void* allocate_huge_pages(size_t bytes);                   // throws std::bad_alloc
void free_huge_pages(void* block, size_t bytes) noexcept;  // bytes as allocated

// Faults in [block, block + bytes) for writing, 2 MiB pieces split over as many threads as
// the calling thread's count (madvise MADV_POPULATE_WRITE; where the kernel lacks it, nothing
// happens and the first write faults as before; plain threads, so a process may fork after).
// Touches no byte. In a VM a first touch is costly (the host backs the page too): on the 2-vCPU Xeon VM, one thread zeroing a Qwen3-0.6B
// session's fresh 300 MB KV cache and workspace took a tenth of its first 1,301-token call,
// and zeroing the packed F32 weights most of the model's load.
void populate_pages(void* block, size_t bytes);

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

// buffer.resize(n) (the new elements value-initialized, the old kept), with the new block's
// pages faulted in by all threads first, so resize's zeroing runs on present pages.
template <typename T>
T* grow_populated(HugePageVector<T>& buffer, size_t n) {
  if (buffer.size() >= n) return buffer.data();
  if (buffer.capacity() < n) {
    buffer.reserve(std::max(n, 2 * buffer.size()));  // as resize grows it: a fresh block, the old elements moved
    populate_pages(buffer.data() + buffer.size(), (n - buffer.size()) * sizeof(T));
  }
  buffer.resize(n);
  return buffer.data();
}

}  // namespace sift
