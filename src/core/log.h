#pragma once
// Logging goes to stderr through spdlog, so stdout stays clean JSON lines.
#include <spdlog/spdlog.h>

namespace sift {
void init_logging(bool verbose);
}
