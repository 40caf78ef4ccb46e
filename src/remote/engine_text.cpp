#include "remote/engine_text.h"

#include <cstdint>

#include <fmt/format.h>

namespace sift::remote {

namespace {

// The length of the UTF-8 sequence starting text[at] and its code point; 0 when the bytes
// there are not one (a stray continuation byte, an overlong or truncated sequence).
size_t utf8_sequence(std::string_view text, size_t at, uint32_t& code_point) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[at + k]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  }
  size_t length = 0;
  uint32_t min = 0;  // the smallest code point of that length: a smaller one is overlong
  if ((lead & 0xE0) == 0xC0) {
    length = 2, min = 0x80, code_point = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, min = 0x800, code_point = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, min = 0x10000, code_point = lead & 0x07;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(k) & 0x3F);
  }
  if (code_point < min || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF)) return 0;
  return length;
}

bool is_control(uint32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

std::string engine_text(std::string_view text, size_t max_bytes) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    if (at >= max_bytes) return out + "...";
    uint32_t c = 0;
    const size_t length = utf8_sequence(text, at, c);
    if (length == 0) out += fmt::format("\\x{:02x}", static_cast<uint8_t>(text[at]));
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x80 && is_control(c)) out += fmt::format("\\x{:02x}", c);
    else if (is_control(c)) out += fmt::format("\\u{:04x}", c);
    else out.append(text.substr(at, length));
    at += length == 0 ? 1 : length;
  }
  return out;
}

}  // namespace sift::remote
