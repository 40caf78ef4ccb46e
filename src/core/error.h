#pragma once
// sift::Error: the one exception type for bad input and broken files. Its message says
// what went wrong and where (file, line, field), so the CLI can print it as it is.
#include <fmt/format.h>

#include <string>

#include "sift/error.h"  // the class itself is public API

namespace sift {

// fail("tensor {} has shape {}", name, shape) throws sift::Error with the formatted text.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace sift
