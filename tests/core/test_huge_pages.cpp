// core/huge_pages.h: large blocks are 2 MiB-aligned and advised as transparent huge pages
// (madvise MADV_HUGEPAGE: the "hg" flag of their mapping in /proc/self/smaps); small blocks
// come from operator new as before. What the kernel then does with the advice (THP "always",
// "madvise" or "never", free 2 MiB frames or not) is its business, not checked here.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/huge_pages.h"

namespace sift {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

// The VmFlags line of the /proc/self/smaps mapping that contains `address` (" rd wr mr ..."),
// or nullopt when the kernel writes none.
std::optional<std::string> vm_flags(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + " ";
    }
  }
  return std::nullopt;
}

bool advised_huge(const void* address) { return vm_flags(address)->find(" hg ") != std::string::npos; }

TEST(HugePages, LargeBlocksAreAlignedAndKeepTheirContents) {
  HugePageVector<float> weights(size_t{16} << 20 >> 2, 1.5f);  // 16 MiB, every page touched
  EXPECT_EQ(reinterpret_cast<uintptr_t>(weights.data()) % kHugePage, 0u);
  EXPECT_EQ(weights.front(), 1.5f);
  EXPECT_EQ(weights.back(), 1.5f);
}

TEST(HugePages, LargeBlocksAreAdvisedAsHugePagesAndSmallOnesAreNot) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage"))
    GTEST_SKIP() << "this kernel has no transparent huge pages: it refuses the advice";
  const HugePageVector<float> small(1000, 1.0f);
  if (!vm_flags(small.data())) GTEST_SKIP() << "this kernel writes no VmFlags in /proc/self/smaps";
  const HugePageVector<float> weights(size_t{16} << 20 >> 2, 1.5f);
  EXPECT_TRUE(advised_huge(weights.data())) << "VmFlags:" << *vm_flags(weights.data());
  EXPECT_TRUE(advised_huge(&weights.back())) << "the whole block, to its last element";
  EXPECT_FALSE(advised_huge(small.data())) << "VmFlags:" << *vm_flags(small.data());
}

TEST(HugePages, SmallBlocksAndGrowthKeepTheirContents) {
  HugePageVector<int32_t> v;
  for (int32_t i = 0; i < (1 << 20); ++i) v.push_back(i);  // grows from 4 bytes past 2 MiB
  for (int32_t i = 0; i < (1 << 20); i += 4099) ASSERT_EQ(v[static_cast<size_t>(i)], i);
  v.resize(3);
  v.shrink_to_fit();
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v[2], 2);
}

// Pages of [block, block + bytes) resident in memory (mincore), of how many.
std::pair<size_t, size_t> resident_pages(const void* block, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in_core((bytes + page - 1) / page);
  if (mincore(const_cast<void*>(block), bytes, in_core.data()) != 0) return {0, 0};
  size_t resident = 0;
  for (unsigned char c : in_core) resident += c & 1;
  return {resident, in_core.size()};
}

TEST(HugePages, PopulatePagesFaultsInTheBlockWithoutTouchingItsBytes) {
  constexpr size_t kBytes = size_t{64} << 20;
  void* block = allocate_huge_pages(kBytes);  // aligned_alloc: mapped, not yet touched
  void* probe = allocate_huge_pages(kHugePage * 2);
  const bool supported = madvise(probe, 4096, 23 /* MADV_POPULATE_WRITE */) == 0 || errno != EINVAL;
  free_huge_pages(probe, kHugePage * 2);
  if (!supported) {
    free_huge_pages(block, kBytes);
    GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14)";
  }
  auto* bytes = static_cast<unsigned char*>(block);
  bytes[0] = 7, bytes[kBytes / 2 + 3] = 9;  // two pages touched before
  populate_pages(block, kBytes);
  const auto [resident, pages] = resident_pages(block, kBytes);
  EXPECT_EQ(resident, pages) << "pages of the 64 MiB block resident after populate_pages";
  EXPECT_EQ(bytes[0], 7);
  EXPECT_EQ(bytes[kBytes / 2 + 3], 9);
  EXPECT_EQ(bytes[kBytes - 1], 0) << "a fresh page reads zero";
  free_huge_pages(block, kBytes);
}

TEST(HugePages, GrowPopulatedKeepsTheOldElementsAndZerosTheNewOnes) {
  HugePageVector<float> v;
  for (size_t n : {size_t{10}, size_t{100000}, size_t{3} << 20, (size_t{3} << 20) + 5, size_t{1000}}) {
    const size_t before = v.size(), capacity = v.capacity();
    for (size_t i = 0; i < before; ++i) v[i] = static_cast<float>(i % 1000) + 1.0f;
    float* data = grow_populated(v, n);
    ASSERT_EQ(data, v.data());
    ASSERT_EQ(v.size(), std::max(before, n)) << "grows, never shrinks";
    if (n > capacity) {
      EXPECT_GE(v.capacity(), std::max(n, 2 * before)) << "geometric growth, as resize";
    }
    for (size_t i = 0; i < v.size(); i += 997) {
      const float expected = i < before ? static_cast<float>(i % 1000) + 1.0f : 0.0f;
      ASSERT_EQ(v[i], expected) << "element " << i << " after growing from " << before << " to " << n;
    }
    ASSERT_EQ(v.back(), v.size() > before ? 0.0f : static_cast<float>((v.size() - 1) % 1000) + 1.0f);
  }
}

}  // namespace
}  // namespace sift
