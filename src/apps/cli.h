#pragma once
// What every sift command shares on the command line:
//  - the global options (--threads, -v, -q/--quiet, --pretty), accepted before or after the
//    subcommand (set in main.cpp, read here by the commands);
//  - usage errors (exit status 2) apart from runtime errors (exit status 1): CLI11's, those of
//    usage_error below, and a sift::OptionError thrown by the library for a bad option value;
//  - the checks of decimal flags and thread-count flags, one rule each;
//  - JSON reports on stdout: one line, or indented with --pretty;
//  - the progress reporter of long commands, silent with --quiet.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "core/progress.h"
#include "sift/labeler.h"

namespace sift::apps {

struct GlobalOptions {
  bool verbose = false;
  bool quiet = false;
  bool pretty = false;
  std::optional<int> threads;  // --threads as given (kThreadCount)
};
GlobalOptions& global_options();

// A usage error: the command line asks for something that cannot be (exit status 2, like a
// flag CLI11 rejects). Anything else that fails is a runtime error (exit status 1).
template <typename... Args>
[[noreturn]] void usage_error(fmt::format_string<Args...> format, Args&&... args) {
  throw CLI::ValidationError(fmt::format(format, std::forward<Args>(args)...));
}

// A decimal flag: a finite number in a range, checked by one of these (never by CLI::Range,
// PositiveNumber or NonNegativeNumber, which let NaN through). A bad value is a usage error
// naming the flag: "--noise: must be a number in [0, 0.5], got nan".
//   decimal_in(min, max):     min <= x <= max (without max: any finite x >= min)
//   positive_decimal(max):    0 < x <= max (without max: any finite x > 0)
CLI::Validator decimal_in(double min, double max = std::numeric_limits<double>::max());
CLI::Validator positive_decimal(double max = std::numeric_limits<double>::max());
// A threshold or a fraction: decimal_in(0, 1).
extern const CLI::Validator kProbability;

// A thread-count flag (the global --threads, batch's --threads and --tokenize-threads, serve's
// --threads): an integer >= 1 (kThreadCount). A count over sift::max_threads()
// (kMaxThreadsPerCore per core, sift/labeler.h) is capped there with a warning.
extern const CLI::Validator kThreadCount;
// `requested` (>= 1) capped at sift::max_threads(), with a warning naming `flag`.
int capped_threads(std::string_view flag, int requested);
// The threads a command's own thread flag asks for: capped_threads of it when given, else
// 0 (the process default: the global --threads, else all cores).
int thread_count(std::string_view flag, const std::optional<int>& given);

// The JSON report of a command on stdout: one line, or indented with --pretty. Invalid UTF-8
// in strings is replaced, never a crash.
void print_report(const nlohmann::ordered_json& report);
void print_report(const nlohmann::json& report);

// Output rows (JSON lines) as the command writes them: as they are, or, with --pretty, each
// row indented over several lines (for reading; the result is no longer JSON lines).
std::string output_rows(std::string_view lines);

// A count with its noun, singular for exactly one: counted(1, "row") is "1 row",
// counted(3, "error") "3 errors".
std::string counted(int64_t n, std::string_view noun);

// --strict of a command whose rows can fail one by one (each an error line or a warning, the
// run going on): `failed` of `rows` failed makes the run fail (exit 1). A command whose rows
// are its output (score, batch) checks once its output is complete, `where` saying where the
// error lines are ("their error lines are in out.jsonl"); a command that writes a report or
// files of all rows (cost, eval, calibrate) checks before it prints or writes anything, so a
// strict run writes a report of all its rows or nothing.
void add_strict_flag(CLI::App* command, bool& strict, std::string_view failed_row);
void check_strict(bool strict, int64_t failed, int64_t rows, std::string_view where);

// The progress reporter of a long command (core/progress.h), quiet with --quiet.
ProgressReporter progress_reporter(std::string task, std::string unit, std::optional<int64_t> total);

// One line on stderr that is not progress: "sift <command>: warning: ..." (shown with --quiet too).
void warn(std::string_view command, std::string_view message);

}  // namespace sift::apps
