#pragma once
// sift::Error: the one exception type of sift's public API, for bad input and broken files.
// Its message says what went wrong and where (file, line, field, row, item).
// sift::OptionError: an Error whose cause is an option the caller chose (a threshold outside
// [0, 1], --k 0, --shard 3/2), named in its message; the CLI exits 2 (usage) for it, 1 for
// any other Error.
#include <stdexcept>
#include <string>

namespace sift {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

class OptionError : public Error {
 public:
  explicit OptionError(const std::string& message) : Error(message) {}
};

}  // namespace sift
