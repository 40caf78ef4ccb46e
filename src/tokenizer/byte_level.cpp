#include "tokenizer/byte_level.h"

#include <unordered_map>

#include "tokenizer/utf8.h"

namespace sift::byte_level {
namespace {

bool is_printable_byte(int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF); }

std::array<char32_t, 256> byte_to_code_point() {
  std::array<char32_t, 256> table{};
  char32_t next_unprintable = 256;
  for (int b = 0; b < 256; ++b) table[b] = is_printable_byte(b) ? static_cast<char32_t>(b) : next_unprintable++;
  return table;
}

}  // namespace

const std::array<std::string, 256>& byte_to_chars() {
  static const std::array<std::string, 256> table = [] {
    std::array<std::string, 256> chars;
    const auto code_points = byte_to_code_point();
    for (int b = 0; b < 256; ++b) utf8::append(chars[b], code_points[b]);
    return chars;
  }();
  return table;
}

void encode(std::string_view bytes, std::string& out) {
  const auto& table = byte_to_chars();
  for (const char byte : bytes) out += table[static_cast<unsigned char>(byte)];
}

std::optional<unsigned char> char_to_byte(char32_t c) {
  static const std::unordered_map<char32_t, unsigned char> inverse = [] {
    std::unordered_map<char32_t, unsigned char> map;
    const auto code_points = byte_to_code_point();
    for (int b = 0; b < 256; ++b) map[code_points[b]] = static_cast<unsigned char>(b);
    return map;
  }();
  const auto it = inverse.find(c);
  if (it == inverse.end()) return std::nullopt;
  return it->second;
}

}  // namespace sift::byte_level
