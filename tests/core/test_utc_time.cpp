#include <gtest/gtest.h>

#include <chrono>
#include <regex>

#include "core/utc_time.h"

namespace sift {
namespace {

using namespace std::chrono;

TEST(UtcTimestamp, IsIso8601UtcWithMilliseconds) {
  // 2026-12-01 03:01:00 UTC is 1796094060 s after the epoch.
  const system_clock::time_point at = system_clock::time_point(seconds(1796094060)) + milliseconds(123) + microseconds(999);
  EXPECT_EQ(utc_timestamp(at), "2026-12-01T03:01:00.123Z");  // milliseconds rounded down
  EXPECT_EQ(utc_timestamp(system_clock::time_point(seconds(0))), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(utc_timestamp(system_clock::time_point(milliseconds(-1))), "1969-12-31T23:59:59.999Z");
  EXPECT_TRUE(std::regex_match(utc_timestamp(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")));
}

TEST(UtcTimestamp, SortsAsText) {
  const system_clock::time_point at = system_clock::time_point(seconds(1796094060));
  EXPECT_LT(utc_timestamp(at + milliseconds(999)), utc_timestamp(at + seconds(1)));
  EXPECT_LT(utc_timestamp(at), utc_timestamp(at + hours(24 * 40)));
}

}  // namespace
}  // namespace sift
