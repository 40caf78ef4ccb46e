#include "apps/cli.h"

#include <cstdio>

namespace sift::apps {

const CLI::Validator kProbability(
    [](std::string& text) -> std::string {
      double value = 0;
      if (!CLI::detail::lexical_cast(text, value) || !(value >= 0.0 && value <= 1.0))
        return "must be a number in [0, 1], got " + text;
      return std::string();
    },
    "in [0, 1]");

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

ProgressReporter progress_reporter(std::string task, std::string unit, std::optional<int64_t> total) {
  return ProgressReporter::to_stderr(std::move(task), std::move(unit), total, global_options().quiet);
}

void warn(std::string_view command, std::string_view message) {
  fmt::print(stderr, "{}: warning: {}\n", command, message);
}

}  // namespace sift::apps
