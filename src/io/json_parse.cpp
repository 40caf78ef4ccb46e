#include "io/json_parse.h"

#include <fmt/format.h>

#include <algorithm>

namespace sift {
namespace {

// The part of `text` after the first `marker`, or nullopt.
std::optional<std::string_view> after(std::string_view text, std::string_view marker) {
  const size_t at = text.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return text.substr(at + marker.size());
}

// The token of nlohmann's "number overflow parsing '<token>'", if that is the message.
std::optional<std::string_view> overflowing_number(std::string_view what) {
  auto number = after(what, "number overflow parsing '");
  if (!number) return std::nullopt;
  return number->substr(0, number->rfind('\''));
}

// nlohmann's message without its "[json.exception.<kind>.<id>] ..." header, in words:
//   "... parse error at line 1, column 6: syntax error while parsing object - unexpected '}'"
//       -> "unexpected '}'"
//   "... number overflow parsing '1e999'" -> "the number 1e999 is beyond the range of a double"
std::string library_text_in_words(std::string_view what) {
  if (auto number = overflowing_number(what))
    return fmt::format("the number {} is beyond the range of a double", *number);
  if (auto syntax = after(what, "syntax error while parsing ")) {
    if (auto detail = after(*syntax, " - ")) return std::string(*detail);
    return "syntax error while parsing " + std::string(*syntax);
  }
  if (auto detail = after(what, "] ")) {
    if (auto past_position = after(*detail, ": ")) return std::string(*past_position);
    return std::string(*detail);
  }
  return std::string(what);
}

}  // namespace

std::string json_error_in_words(std::string_view text, size_t position, std::string_view what) {
  // nlohmann counts the failing byte from 1; past the end means "at the end of the text".
  size_t failing = std::min(position > 0 ? position - 1 : 0, text.size());
  // A number too large is reported at its last byte: point at its first. (The quoted text
  // can be empty or not the number at all when the input itself contains nlohmann's wording.)
  if (auto number = overflowing_number(what); number && !number->empty() && number->size() <= failing + 1)
    failing -= number->size() - 1;
  const size_t line_start = failing == 0 ? 0 : text.rfind('\n', failing - 1) + 1;  // npos + 1 == 0
  const size_t column = failing - line_start + 1;
  const std::string place =
      text.find('\n') == std::string_view::npos
          ? fmt::format("column {}", column)
          : fmt::format("line {}, column {}", 1 + std::count(text.begin(), text.begin() + failing, '\n'), column);
  return fmt::format("invalid JSON at {}: {}", place, library_text_in_words(what));
}

}  // namespace sift
