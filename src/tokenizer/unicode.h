#pragma once
// Unicode character properties and normalization forms, as Rust's char methods and the
// unicode-normalization crate define them (what Hugging Face tokenizers use). Properties
// come from utf8proc; normalization is utf8proc's.
#include <string>
#include <string_view>

namespace sift::unicode {

bool is_whitespace(char32_t c);  // Rust char::is_whitespace: the White_Space property
bool is_numeric(char32_t c);     // Rust char::is_numeric: general category Nd, Nl or No
// Rust regex \w: Alphabetic, marks, Nd, Pc and Join_Control (letters, Nl, M*, Nd, Pc here).
bool is_word_char(char32_t c);

enum class Form { NFC, NFD, NFKC, NFKD };
std::string normalize(std::string_view text, Form form);  // text must be valid UTF-8

// Rust char::to_lowercase applied to every character (full mappings, no context rules).
std::string lowercase(std::string_view text);

}  // namespace sift::unicode
