#pragma once
// UTF-8 helpers: validation with the offending byte offset, code point iteration, and the
// lossy conversion Hugging Face decoders use (Rust's String::from_utf8_lossy).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sift::utf8 {

// Throws sift::Error "invalid UTF-8 at byte offset N" if `text` is not well-formed UTF-8
// (overlong forms, surrogates and code points above U+10FFFF are invalid, as in Rust).
void validate(std::string_view text);

// Length in bytes of the well-formed sequence starting at text[pos], 0 if ill-formed.
size_t sequence_length(std::string_view text, size_t pos);

// Decodes the code point at text[pos] (text must be valid) and advances pos past it.
char32_t next(std::string_view text, size_t& pos);

void append(std::string& out, char32_t code_point);

// Replaces each maximal ill-formed subpart with U+FFFD, exactly as Rust's from_utf8_lossy.
std::string lossy(std::string_view bytes);

}  // namespace sift::utf8
