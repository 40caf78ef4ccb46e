#include "core/utc_time.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cstdint>

namespace sift {

std::string utc_timestamp(std::chrono::system_clock::time_point at) {
  // Whole seconds and the milliseconds after them, rounded down (a time before 1970 too).
  const auto millis = std::chrono::floor<std::chrono::milliseconds>(at);
  const auto seconds = std::chrono::floor<std::chrono::seconds>(millis);
  const int64_t after = (millis - seconds).count();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(seconds)), after);
}

}  // namespace sift
