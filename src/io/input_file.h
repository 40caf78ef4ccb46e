#pragma once
// InputFile: the --input of a command, a file or stdin ("" or "-"), with what the other
// guards need to know about it: its name in messages and its identity for the output checks.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>

#include "io/file_identity.h"

namespace sift {

class InputFile {
 public:
  // Error naming the path when it cannot be opened.
  explicit InputFile(const std::string& path);

  std::istream& stream() { return is_stdin() ? std::cin : file_; }
  bool is_stdin() const { return path_.empty(); }
  std::string name() const { return is_stdin() ? std::string("stdin") : path_.string(); }
  // For refuse_output_over_inputs: the file, or what stdin is redirected from.
  NamedInput as_input(std::string role = "--input") const;
  // Its lines (count_lines), when it is a regular file.
  std::optional<int64_t> count_lines() const;

 private:
  std::filesystem::path path_;  // empty: stdin
  std::ifstream file_;
};

}  // namespace sift
