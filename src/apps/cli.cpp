#include "apps/cli.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "core/log.h"

namespace sift::apps {

namespace {

// A finite number x with min <= x <= max, or min < x when min_open. NaN fails every
// comparison, and infinities are refused by name.
CLI::Validator decimal_range(double min, double max, bool min_open) {
  const bool unbounded = max == std::numeric_limits<double>::max();
  const std::string range = unbounded ? fmt::format("{} {}", min_open ? ">" : ">=", min)
                                      : fmt::format("in {}{}, {}]", min_open ? "(" : "[", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        const bool number = CLI::detail::lexical_cast(text, value) && std::isfinite(value);
        if (!number || (min_open ? !(value > min) : !(value >= min)) || !(value <= max))
          return fmt::format("must be a {} {}, got {}", unbounded ? "finite number" : "number", range, text);
        return std::string();
      },
      range);
}

}  // namespace

CLI::Validator decimal_in(double min, double max) { return decimal_range(min, max, false); }
CLI::Validator positive_decimal(double max) { return decimal_range(0, max, true); }
const CLI::Validator kProbability = decimal_in(0, 1);

const CLI::Validator kThreadCount(
    [](std::string& text) -> std::string {
      int value = 0;
      if (!CLI::detail::lexical_cast(text, value) || value < 1) return "must be at least 1, got " + text;
      return std::string();
    },
    ">= 1");

int capped_threads(std::string_view flag, int requested) {
  const int most = max_threads();
  if (requested <= most) return requested;
  spdlog::warn("{} {} is more than {} per core on this machine of {} cores: using {}", flag, requested,
               kMaxThreadsPerCore, omp_get_num_procs(), most);
  return most;
}

int thread_count(std::string_view flag, const std::optional<int>& given) {
  return given ? capped_threads(flag, *given) : 0;
}

GlobalOptions& global_options() {
  static GlobalOptions options;
  return options;
}

void print_report(const nlohmann::ordered_json& report) {
  const int indent = global_options().pretty ? 2 : -1;
  const std::string text = report.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

void print_report(const nlohmann::json& report) { print_report(nlohmann::ordered_json(report)); }

std::string output_rows(std::string_view lines) {
  if (!global_options().pretty) return std::string(lines);
  std::string out;
  for (size_t start = 0; start < lines.size();) {
    const size_t end = std::min(lines.find('\n', start), lines.size());
    const nlohmann::ordered_json row = nlohmann::ordered_json::parse(lines.substr(start, end - start));
    out += row.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    start = end + 1;
  }
  return out;
}

std::string counted(int64_t n, std::string_view noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

void add_strict_flag(CLI::App* command, bool& strict, std::string_view failed_row) {
  command->add_flag("--strict", strict, fmt::format("exit 1 when any row {} (default: 0, the run going on)", failed_row));
}

void check_strict(bool strict, int64_t failed, int64_t rows, std::string_view where) {
  if (strict && failed > 0)
    fail("{} of {} failed ({}); --strict makes that a failed run", failed, counted(rows, "row"), where);
}

ProgressReporter progress_reporter(std::string task, std::string unit, std::optional<int64_t> total) {
  return ProgressReporter::to_stderr(std::move(task), std::move(unit), total, global_options().quiet);
}

void warn(std::string_view command, std::string_view message) {
  fmt::print(stderr, "{}: warning: {}\n", command, message);
}

}  // namespace sift::apps
