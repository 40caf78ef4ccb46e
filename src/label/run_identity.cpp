#include "label/run_identity.h"

#include <chrono>
#include <random>

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace sift::label {

std::string new_run_id() {
  std::random_device random;
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return fmt::format("{:%Y%m%dT%H%M%SZ}-{:08x}", fmt::gmtime(now), uint32_t(random()));
}

}  // namespace sift::label
