#include "core/log.h"

#include <mutex>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace sift {

void init_logging(bool verbose) {
  spdlog::drop("sift");  // one made before (ensure_logging) gives way to the program's choice
  auto logger = spdlog::stderr_color_mt("sift");
  logger->set_pattern("[%H:%M:%S] %^%l%$ %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

void ensure_logging() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!spdlog::get("sift")) init_logging(false);
  });
}

}  // namespace sift
