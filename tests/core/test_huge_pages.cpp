// core/huge_pages.h: large blocks are 2 MiB-aligned and, where the kernel offers transparent
// huge pages (THP "always" or "madvise"), faulted in as huge pages; small blocks as before.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "core/huge_pages.h"

namespace sift {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

// The kernel's THP mode: the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled.
std::string thp_mode() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(file, line);
  const size_t open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// AnonHugePages (kB) of the mapping of /proc/self/smaps that contains `address`.
int64_t anon_huge_kb(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("AnonHugePages:", 0) == 0) {
      return std::stoll(line.substr(line.find(':') + 1));
    }
  }
  return -1;
}

TEST(HugePages, LargeBlocksAreAlignedAndHugeWhereTheKernelOffersThem) {
  HugePageVector<float> weights(size_t{16} << 20 >> 2, 1.5f);  // 16 MiB, every page touched
  EXPECT_EQ(reinterpret_cast<uintptr_t>(weights.data()) % kHugePage, 0u);
  EXPECT_EQ(weights.front(), 1.5f);
  EXPECT_EQ(weights.back(), 1.5f);
  const std::string mode = thp_mode();
  if (mode != "always" && mode != "madvise") GTEST_SKIP() << "transparent huge pages are '" << mode << "' here";
  // The kernel may fall back to small pages for part of the block when it cannot find free
  // 2 MiB frames at once; without the advice (THP "madvise") none of it is huge.
  EXPECT_GE(anon_huge_kb(weights.data()), 2 * 1024) << "THP " << mode;
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
