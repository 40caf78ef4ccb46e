#include "io/input_file.h"

#include <iostream>

#include "core/error.h"
#include "io/line_reader.h"

namespace sift {

InputFile::InputFile(const std::string& path) {
  if (path.empty() || path == "-") return;
  path_ = path;
  std::error_code error;
  if (std::filesystem::is_directory(path_, error)) fail("{}: is a directory, not an input file", path);
  file_.open(path_, std::ios::binary);
  if (!file_) fail("{}: cannot open the input (no such file, or not readable)", path);
}

NamedInput InputFile::as_input(std::string role) const {
  // /dev/stdin resolves to the file stdin is redirected from, so `< rows.jsonl` counts too.
  return {is_stdin() ? std::filesystem::path("/dev/stdin") : path_, is_stdin() ? "stdin" : std::move(role)};
}

std::optional<int64_t> InputFile::count_lines() const {
  if (is_stdin()) return std::nullopt;
  return sift::count_lines(path_);
}

}  // namespace sift
