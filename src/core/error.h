#pragma once
// sift::Error: the one exception type for bad input and broken files. Its message says
// what went wrong and where (file, line, field), so the CLI can print it as it is.
// sift::OptionError, an Error, is a bad option value (the CLI's usage error, exit 2).
#include <fmt/format.h>

#include <string>

#include "sift/error.h"  // the classes themselves are public API

namespace sift {

// fail("tensor {} has shape {}", name, shape) throws sift::Error with the formatted text.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

// fail_option("--k must be in [1, {}], got {}", max, k) throws sift::OptionError: the caller
// chose an option value that cannot be (the message names the option).
template <typename... Args>
[[noreturn]] void fail_option(fmt::format_string<Args...> format, Args&&... args) {
  throw OptionError(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace sift
