#pragma once
// --max-line-bytes N, the limit of the one line rule (io/line_splitter.h), the same option on
// every command that reads lines: N >= 1 bytes per line, its ending not counted (default
// 64 MiB). `longer_line` says what a longer line is to this command.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace sift::apps {

inline CLI::Option* add_max_line_bytes_option(CLI::App* cmd, int64_t& value, const std::string& longer_line) {
  return cmd->add_option("--max-line-bytes", value, "bytes in an input line (default 64 MiB): " + longer_line)
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

}  // namespace sift::apps
