#include "core/progress.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

namespace sift {

namespace {

constexpr std::string_view kClearToEndOfLine = "\033[K";

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string format_duration(double seconds) {
  const int64_t total = std::isfinite(seconds) && seconds > 0 ? int64_t(std::llround(seconds)) : 0;
  const int64_t hours = total / 3600, minutes = total / 60 % 60, secs = total % 60;
  if (hours > 0) return fmt::format("{}:{:02d}:{:02d}", hours, minutes, secs);
  return fmt::format("{}:{:02d}", minutes, secs);
}

ProgressReporter::ProgressReporter(std::string task, std::string unit, std::optional<int64_t> total,
                                   ProgressOptions options, Sink sink, Clock clock)
    : task_(std::move(task)),
      unit_(std::move(unit)),
      total_(total),
      options_(options),
      sink_(std::move(sink)),
      clock_(std::move(clock)),
      start_seconds_(clock_()),
      last_report_seconds_(start_seconds_) {}

ProgressReporter::~ProgressReporter() {
  if (status_shown_) sink_("\n");
}

ProgressReporter ProgressReporter::to_stderr(std::string task, std::string unit, std::optional<int64_t> total,
                                             bool quiet) {
  ProgressOptions options;
  options.style = quiet ? ProgressStyle::quiet : isatty(STDERR_FILENO) ? ProgressStyle::redraw : ProgressStyle::lines;
  auto write = [](std::string_view text) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
  };
  return ProgressReporter(std::move(task), std::move(unit), total, options, write, steady_seconds);
}

double ProgressReporter::elapsed_seconds() const { return clock_() - start_seconds_; }

std::string ProgressReporter::status_line() const {
  const double elapsed = elapsed_seconds();
  const double rate = elapsed > 0 ? double(done_) / elapsed : 0.0;
  std::string line = fmt::format("{}: {}", task_, done_);
  if (total_) {
    const double percent = *total_ > 0 ? 100.0 * double(done_) / double(*total_) : 100.0;
    line += fmt::format("/{} {} ({:.0f}%)", *total_, unit_, percent);
  } else {
    line += fmt::format(" {}", unit_);
  }
  line += fmt::format(", {:.1f} {}/s", rate, unit_);
  if (total_ && rate > 0) line += ", ETA " + format_duration(double(*total_ - done_) / rate);
  if (!detail_.empty()) line += " | " + detail_;
  return line;
}

void ProgressReporter::update(int64_t done, std::string_view detail) {
  done_ = done;
  detail_ = detail;
  if (finished_ || options_.style == ProgressStyle::quiet) return;
  const double now = clock_();
  const double interval =
      options_.style == ProgressStyle::redraw ? options_.redraw_every_seconds : options_.line_every_seconds;
  if (now - last_report_seconds_ < interval) return;
  last_report_seconds_ = now;
  write_status();
}

void ProgressReporter::write_status() {
  if (options_.style == ProgressStyle::redraw) {
    sink_(fmt::format("\r{}{}", status_line(), kClearToEndOfLine));
    status_shown_ = true;
  } else {
    sink_(fmt::format("{}\n", status_line()));
  }
}

void ProgressReporter::message(std::string_view line) {
  if (status_shown_) {
    sink_(fmt::format("\r{}{}\n", kClearToEndOfLine, line));
    write_status();
  } else {
    sink_(fmt::format("{}\n", line));
  }
}

void ProgressReporter::finish(std::string_view summary) {
  if (finished_) return;
  finished_ = true;
  if (options_.style == ProgressStyle::quiet) return;
  sink_(fmt::format("{}{}: {}\n", status_shown_ ? fmt::format("\r{}", kClearToEndOfLine) : "", task_, summary));
  status_shown_ = false;
}

}  // namespace sift
