#include "tokenizer/utf8.h"

#include "core/error.h"

namespace sift::utf8 {
namespace {

// Valid range of the second byte after a given lead byte (Unicode Table 3-7); the third
// and fourth bytes are always 0x80..0xBF.
struct SecondByteRange {
  uint8_t low, high;
};
SecondByteRange second_byte_range(uint8_t lead) {
  if (lead == 0xE0) return {0xA0, 0xBF};
  if (lead == 0xED) return {0x80, 0x9F};
  if (lead == 0xF0) return {0x90, 0xBF};
  if (lead == 0xF4) return {0x80, 0x8F};
  return {0x80, 0xBF};
}

size_t expected_length(uint8_t lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// Number of bytes from pos forming a valid prefix of a sequence (the "maximal subpart").
size_t valid_prefix(std::string_view text, size_t pos, size_t length) {
  const auto lead = static_cast<uint8_t>(text[pos]);
  size_t n = 1;
  while (n < length && pos + n < text.size()) {
    const auto byte = static_cast<uint8_t>(text[pos + n]);
    const auto range = n == 1 ? second_byte_range(lead) : SecondByteRange{0x80, 0xBF};
    if (byte < range.low || byte > range.high) break;
    ++n;
  }
  return n;
}

}  // namespace

size_t sequence_length(std::string_view text, size_t pos) {
  const size_t length = expected_length(static_cast<uint8_t>(text[pos]));
  if (length == 0) return 0;
  return valid_prefix(text, pos, length) == length ? length : 0;
}

void validate(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<uint8_t>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const size_t length = sequence_length(text, pos);
    if (length == 0) fail("invalid UTF-8 at byte offset {}", pos);
    pos += length;
  }
}

char32_t next(std::string_view text, size_t& pos) {
  const auto lead = static_cast<uint8_t>(text[pos]);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  const size_t length = expected_length(lead);
  char32_t code_point = lead & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) code_point = (code_point << 6) | (static_cast<uint8_t>(text[pos + i]) & 0x3F);
  pos += length;
  return code_point;
}

void append(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t length = sequence_length(bytes, pos);
    if (length > 0) {
      out.append(bytes.substr(pos, length));
      pos += length;
      continue;
    }
    out += "\xEF\xBF\xBD";  // U+FFFD for the maximal ill-formed subpart
    const size_t expected = expected_length(static_cast<uint8_t>(bytes[pos]));
    pos += expected == 0 ? 1 : valid_prefix(bytes, pos, expected);
  }
  return out;
}

}  // namespace sift::utf8
