#include "core/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace sift {

void init_logging(bool verbose) {
  auto logger = spdlog::stderr_color_mt("sift");
  logger->set_pattern("[%H:%M:%S] %^%l%$ %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace sift
