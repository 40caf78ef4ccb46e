#pragma once
// engine_text: text an engine sent (an error message, a model id, a fingerprint, the start of
// a body), as it goes into one of sift's messages. An engine is another program on the
// network: what it says is printed, never obeyed by the terminal, so every control character
// (C0, DEL, C1: escape sequences, carriage returns, newlines), Unicode's bidirectional
// overrides and any byte that is not UTF-8 are written as escapes (\n, \x1b, \u202e), and
// the text is cut after kEngineTextBytes bytes ("..." then marks the cut). Every message that
// quotes an engine goes through here.
#include <cstddef>
#include <string>
#include <string_view>

namespace sift::remote {

inline constexpr size_t kEngineTextBytes = 200;

std::string engine_text(std::string_view text, size_t max_bytes = kEngineTextBytes);

}  // namespace sift::remote
