#pragma once
// The GPT-2 byte <-> character table of the ByteLevel pre-tokenizer and decoder: printable
// bytes ('!'..'~', 0xA1..0xAC, 0xAE..0xFF) map to the same code point, the other bytes to
// U+0100 + n in increasing byte order (HF pre_tokenizers/byte_level.rs bytes_char).
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace sift::byte_level {

// UTF-8 of the character standing for each byte.
const std::array<std::string, 256>& byte_to_chars();

// Appends the byte-level form of `bytes` to `out`.
void encode(std::string_view bytes, std::string& out);

// The byte a character stands for, if it is one of the 256 table characters.
std::optional<unsigned char> char_to_byte(char32_t c);

}  // namespace sift::byte_level
