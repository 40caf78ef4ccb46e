#pragma once
// sift::Error: the one exception type of sift's public API, for bad input and broken files.
// Its message says what went wrong and where (file, line, field, row, item).
#include <stdexcept>
#include <string>

namespace sift {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace sift
