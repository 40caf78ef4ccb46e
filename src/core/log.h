#pragma once
// Logging goes to stderr through spdlog, so stdout stays clean JSON lines.
#include <spdlog/spdlog.h>

namespace sift {
// The CLI's logger: the logger "sift" on stderr, made spdlog's default, at info (debug when
// verbose). Call once, before any other thread logs.
void init_logging(bool verbose);

// For a program that embeds the library (the Python module, a C++ caller): makes the logger
// "sift" on stderr the default unless the program made "sift" itself, so the library's
// warnings never land on the program's stdout (spdlog's own default logger writes there).
// Idempotent and thread-safe; every labeler load calls it (scoring/loaded_labeler.cpp).
void ensure_logging();
}  // namespace sift
