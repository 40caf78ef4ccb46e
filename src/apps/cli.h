#pragma once
// What every sift command shares on the command line:
//  - the global options (--threads, -v, -q/--quiet, --pretty), accepted before or after the
//    subcommand (set in main.cpp, read here by the commands);
//  - usage errors (exit status 2) apart from runtime errors (exit status 1);
//  - JSON reports on stdout: one line, or indented with --pretty;
//  - the progress reporter of long commands, silent with --quiet.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "core/progress.h"

namespace sift::apps {

struct GlobalOptions {
  bool verbose = false;
  bool quiet = false;
  bool pretty = false;
  std::optional<int> threads;  // --threads as given (checked >= 1 in main.cpp)
};
GlobalOptions& global_options();

// A usage error: the command line asks for something that cannot be (exit status 2, like a
// flag CLI11 rejects). Anything else that fails is a runtime error (exit status 1).
template <typename... Args>
[[noreturn]] void usage_error(fmt::format_string<Args...> format, Args&&... args) {
  throw CLI::ValidationError(fmt::format(format, std::forward<Args>(args)...));
}

// A threshold on the command line: a finite number in [0, 1] (CLI::Range lets NaN through).
extern const CLI::Validator kProbability;

// The JSON report of a command on stdout: one line, or indented with --pretty. Invalid UTF-8
// in strings is replaced, never a crash.
void print_report(const nlohmann::ordered_json& report);
void print_report(const nlohmann::json& report);

// The progress reporter of a long command (core/progress.h), quiet with --quiet.
ProgressReporter progress_reporter(std::string task, std::string unit, std::optional<int64_t> total);

// One line on stderr that is not progress: "sift <command>: warning: ..." (shown with --quiet too).
void warn(std::string_view command, std::string_view message);

}  // namespace sift::apps
