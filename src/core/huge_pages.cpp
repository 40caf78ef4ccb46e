#include "core/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

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
  const uintptr_t n_pieces = (end - begin + kHugePage - 1) / kHugePage;
  // Piece `first`, then every `stride`-th after it.
  const auto populate_from = [&](uintptr_t first, uintptr_t stride) {
    for (uintptr_t i = first; i < n_pieces; i += stride) {
      const uintptr_t from = begin + i * kHugePage;
      ::madvise(reinterpret_cast<void*>(from), std::min<uintptr_t>(kHugePage, end - from), MADV_POPULATE_WRITE);
    }
  };
  // Plain threads, joined here, not an OpenMP team: a model is loaded through this, and a
  // process that forks after loading (a server's workers sharing the weights, Python's
  // multiprocessing) must not hand its children the state of an OpenMP thread pool, which
  // libgomp's children wait on forever.
  const uintptr_t workers = std::min<uintptr_t>(static_cast<uintptr_t>(std::max(1, n_threads())), n_pieces);
  std::vector<std::thread> helpers;
  for (uintptr_t t = 1; t < workers; ++t) {
    try {
      helpers.emplace_back(populate_from, t, workers);
    } catch (const std::system_error&) {  // no thread to be had: this one does the rest
      for (uintptr_t rest = t; rest < workers; ++rest) populate_from(rest, workers);
      break;
    }
  }
  populate_from(0, workers);
  for (std::thread& helper : helpers) helper.join();
}

void free_huge_pages(void* block, size_t bytes) noexcept {
  if (bytes < kHugePage) return ::operator delete(block);
  std::free(block);
}

}  // namespace sift
