#pragma once
// The one progress reporter of sift's long commands. Its status line reads
//
//   task: done/total unit (pct%), rate unit/s, ETA h:mm:ss | detail
//
// (without "/total", the percentage and the ETA when the total is unknown), where
//   rate = done / elapsed seconds since construction,  ETA = (total - done) / rate.
// Styles: `redraw` rewrites one line in place ("\r...\033[K", for a terminal), at most every
// redraw_every_seconds; `lines` writes a plain line every line_every_seconds (logs, CI);
// `quiet` writes no progress at all. message() writes a line of its own (a skipped row, a
// warning) in every style, without breaking the redrawn line; finish() ends with one summary
// line. The clock and the sink are injected, so tests drive time and read the text.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace sift {

enum class ProgressStyle { redraw, lines, quiet };

struct ProgressOptions {
  ProgressStyle style = ProgressStyle::lines;
  double redraw_every_seconds = 0.25;
  double line_every_seconds = 5.0;
};

class ProgressReporter {
 public:
  using Clock = std::function<double()>;               // seconds on a monotonic clock
  using Sink = std::function<void(std::string_view)>;  // text exactly as it is to be written

  ProgressReporter(std::string task, std::string unit, std::optional<int64_t> total, ProgressOptions options,
                   Sink sink, Clock clock);
  // Ends a redrawn status line that finish() did not (an error on its way out), so what is
  // written next starts on a line of its own.
  ~ProgressReporter();
  ProgressReporter(const ProgressReporter&) = delete;  // one reporter per task; returned as a prvalue
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // Writes to stderr with the steady clock: redraw when stderr is a terminal, lines
  // otherwise, quiet when asked.
  static ProgressReporter to_stderr(std::string task, std::string unit, std::optional<int64_t> total,
                                    bool quiet = false);

  // Sets the count done so far (and the detail shown after "|"); reports when one is due.
  void update(int64_t done, std::string_view detail = {});
  // A line of its own, in every style (quiet too); a redrawn status line is redrawn after it.
  void message(std::string_view line);
  // Clears a redrawn status line and writes "task: summary" (not when quiet). Later calls
  // write nothing.
  void finish(std::string_view summary);

  std::string status_line() const;  // the current status, without "\r" or "\n"
  double elapsed_seconds() const;

 private:
  void write_status();

  std::string task_;
  std::string unit_;
  std::optional<int64_t> total_;
  ProgressOptions options_;
  Sink sink_;
  Clock clock_;
  double start_seconds_;
  double last_report_seconds_;
  int64_t done_ = 0;
  std::string detail_;
  bool status_shown_ = false;  // redraw: a status line is on screen
  bool finished_ = false;
};

// Whole seconds as "m:ss" under an hour, "h:mm:ss" from an hour on.
std::string format_duration(double seconds);

}  // namespace sift
