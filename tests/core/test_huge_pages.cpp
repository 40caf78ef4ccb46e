// core/huge_pages.h: large blocks are 2 MiB-aligned and advised as transparent huge pages
// (madvise MADV_HUGEPAGE: the "hg" flag of their mapping in /proc/self/smaps); small blocks
// come from operator new as before. What the kernel then does with the advice (THP "always",
// "madvise" or "never", free 2 MiB frames or not) is its business, not checked here.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

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

}  // namespace
}  // namespace sift
