#pragma once
// LineOutput: where a command's JSON lines go, stdout or a file, written so that no run
// destroys data:
//  - a file target is refused when it is one of the command's inputs (file_identity.h), is
//    locked against a second run (path_lock.h), and is written through an AtomicFile: the
//    target is replaced only by commit(), at the end of a run that succeeded. A device or
//    FIFO target (/dev/null, a named pipe) is written directly, as stdout is (atomic_file.h);
//  - when a write fails (a full disk), what was written is cut back to its last whole line
//    and kept: a file's lines go to "<target>.partial" (the target is left as it was),
//    stdout redirected to a file is truncated to them. The Error says how many lines that is.
//  - stdout redirected to one of the inputs (`> rows.jsonl`) is refused too.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "io/atomic_file.h"
#include "io/file_identity.h"
#include "io/path_lock.h"

namespace sift {

class LineOutput {
 public:
  // target "" or "-": stdout.
  LineOutput(const std::string& target, std::span<const NamedInput> inputs);

  // Appends whole lines (each ending in '\n').
  void write(std::string_view lines);
  // The run succeeded: a file target is replaced by what was written (stdout: nothing to do).
  void commit();

  std::string name() const;  // the target, or "stdout"
  int64_t lines_written() const { return lines_; }

 private:
  [[noreturn]] void fail_after_partial_write(std::string_view lines, size_t written, int error);

  std::filesystem::path target_;  // empty: stdout
  std::unique_ptr<PathLock> lock_;
  std::unique_ptr<AtomicFile> file_;
  std::optional<off_t> stdout_start_;  // stdout is a regular file: its offset when we began
  int64_t bytes_ = 0;                 // whole lines written
  int64_t lines_ = 0;
};

}  // namespace sift
