#pragma once
// Counts what a test program allocates through operator new, by replacing the global
// operator new and delete: a check on work done ("this failing load allocated less than
// 1 MiB", "a forward call allocated nothing") instead of on elapsed time, so it holds on a
// busy machine and under the sanitizers alike. Include it in exactly one translation unit of
// a test program (each tests/<module>/test_*.cpp is one program).
//
// What is counted: every allocation through operator new (containers, strings, JSON, make_*
// and the default new[] and nothrow forms, which call it); not malloc-family calls
// (HugePageVector's 2 MiB blocks, libtorch's tensors: see test_train_hostile_files.cpp).
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace sift::testing {

struct Allocations {
  int64_t count = 0;  // calls of operator new
  int64_t bytes = 0;  // bytes asked for by them
};

inline std::atomic<int64_t> g_allocation_count{0}, g_allocated_bytes{0};

// Since the program started, on every thread.
inline Allocations allocations_so_far() {
  return {g_allocation_count.load(std::memory_order_relaxed), g_allocated_bytes.load(std::memory_order_relaxed)};
}

// What running `fn` allocated (on every thread, so run it while no other thread allocates).
template <typename Fn>
Allocations allocations_of(Fn&& fn) {
  const Allocations before = allocations_so_far();
  fn();
  const Allocations after = allocations_so_far();
  return {after.count - before.count, after.bytes - before.bytes};
}

}  // namespace sift::testing

namespace sift::testing::detail {
inline void* counted_allocation(std::size_t size, std::size_t alignment) {
  g_allocation_count.fetch_add(1, std::memory_order_relaxed);
  g_allocated_bytes.fetch_add(static_cast<int64_t>(size), std::memory_order_relaxed);
  const std::size_t n = size == 0 ? 1 : size;
  void* p = alignment <= alignof(std::max_align_t) ? std::malloc(n)
                                                   : std::aligned_alloc(alignment, (n + alignment - 1) / alignment * alignment);
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace sift::testing::detail

void* operator new(std::size_t size) { return sift::testing::detail::counted_allocation(size, 0); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  return sift::testing::detail::counted_allocation(size, static_cast<std::size_t>(alignment));
}
// GCC inlines these into `delete` expressions and then takes free() for a mismatch with the
// `new` that (through counted_allocation) is malloc; it is not.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
