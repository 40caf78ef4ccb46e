#include "io/line_output.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace sift {

LineOutput::LineOutput(const std::string& target, std::span<const NamedInput> inputs) {
  if (target.empty() || target == "-") {
    refuse_descriptor_over_inputs(STDOUT_FILENO, "stdout", inputs);
    struct stat info {};
    if (::fstat(STDOUT_FILENO, &info) == 0 && S_ISREG(info.st_mode)) {
      const off_t at = ::lseek(STDOUT_FILENO, 0, SEEK_CUR);
      if (at >= 0) stdout_start_ = at;
    }
    return;
  }
  target_ = target;
  refuse_output_over_inputs(target_, inputs);
  lock_ = std::make_unique<PathLock>(target_);
  file_ = std::make_unique<AtomicFile>(target_);
}

std::string LineOutput::name() const { return target_.empty() ? std::string("stdout") : target_.string(); }

void LineOutput::write(std::string_view lines) {
  if (lines.empty()) return;
  size_t written = 0;
  int error = 0;
  written = file_ ? file_->append(lines, error) : write_fully(STDOUT_FILENO, lines, error);
  if (written < lines.size()) fail_after_partial_write(lines, written, error != 0 ? error : EIO);
  bytes_ += static_cast<int64_t>(lines.size());
  lines_ += std::count(lines.begin(), lines.end(), '\n');
}

void LineOutput::fail_after_partial_write(std::string_view lines, size_t written, int error) {
  // The last whole line of what reached the output.
  const size_t last_newline = lines.substr(0, written).rfind('\n');
  const size_t whole = last_newline == std::string_view::npos ? 0 : last_newline + 1;
  const int64_t kept_lines = lines_ + std::count(lines.begin(), lines.begin() + whole, '\n');
  const int64_t kept_bytes = bytes_ + static_cast<int64_t>(whole);
  const std::string why = std::strerror(error);
  if (file_ && !file_->writes_directly()) {
    const std::filesystem::path partial = target_.string() + ".partial";
    try {
      file_->truncate(kept_bytes);
      file_->keep_as(partial);
    } catch (const Error& e) {
      fail("{}: write failed after {} whole lines ({}); they could not be kept either: {}", name(), kept_lines, why,
           e.what());
    }
    fail("{}: write failed after {} whole lines ({}); they are kept in {}, {} is unchanged", name(), kept_lines, why,
         partial.string(), target_.string());
  }
  if (file_) fail("{}: write failed after {} whole lines ({})", name(), kept_lines, why);
  if (stdout_start_ && ::ftruncate(STDOUT_FILENO, *stdout_start_ + kept_bytes) == 0)
    fail("stdout: write failed after {} whole lines ({}); the file is cut back to them", kept_lines, why);
  fail("stdout: write failed after {} whole lines ({})", kept_lines, why);
}

void LineOutput::commit() {
  if (file_) file_->commit();
}

}  // namespace sift
