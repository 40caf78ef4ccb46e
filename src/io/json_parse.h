#pragma once
// parse_json: every JSON text sift reads (config.json, tokenizer.json, sift.json, safetensors
// headers and indexes, each JSON input line) goes through here, for two guarantees:
//
//  - Nesting is bounded. nlohmann's parser is iterative, but what sift then does with a
//    value recurses into it (copies, comparisons, dump() in error messages, the tokenizer's
//    component builders), so a text nested 100,000 deep would overflow the stack later. The
//    parser stops as soon as it opens the 65th level.
//  - Every failure is one sift::Error in words, never the library's exception text:
//      "<where>: invalid JSON at line 3, column 17: unexpected '}'; expected string literal"
//      "<where>: invalid JSON at column 9: the number 1e999 is beyond the range of a double"
//      "<where>: JSON nested deeper than 64 levels"
//    Positions count from 1 (columns in bytes); a text without a newline (a JSON line) gives
//    the column only. An empty `where` leaves out the "<where>: " prefix.
#include <nlohmann/json.hpp>

#include <istream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace sift {

// Arrays and objects inside one another; Hugging Face files need fewer than 10.
inline constexpr int kMaxJsonDepth = 64;

// The message of a failed parse of `text` at byte offset `position` (nlohmann's count: the
// failing byte is text[position - 1]), with the library's `what` turned into words.
std::string json_error_in_words(std::string_view text, size_t position, std::string_view what);

namespace detail {

// nlohmann's DOM builder with a depth count on container starts, and errors recorded (with
// their byte position) instead of thrown, so the caller can say where they are.
template <typename Json>
class BoundedDomBuilder : public nlohmann::detail::json_sax_dom_parser<Json> {
  using Base = nlohmann::detail::json_sax_dom_parser<Json>;

 public:
  BoundedDomBuilder(Json& root, std::string_view where) : Base(root, /*allow_exceptions=*/false), where_(where) {}

  bool start_object(std::size_t n) { return enter() && Base::start_object(n); }
  bool start_array(std::size_t n) { return enter() && Base::start_array(n); }
  bool end_object() { --depth_; return Base::end_object(); }
  bool end_array() { --depth_; return Base::end_array(); }
  template <typename Exception>
  bool parse_error(std::size_t position, const std::string& /*last_token*/, const Exception& error) {
    error_position_ = position;
    error_what_ = error.what();
    return false;
  }

  std::optional<std::string> error(std::string_view text) const {
    if (!error_what_) return std::nullopt;
    return json_error_in_words(text, error_position_, *error_what_);
  }

 private:
  bool enter() {
    if (depth_ >= kMaxJsonDepth) {
      if (where_.empty()) fail("JSON nested deeper than {} levels", kMaxJsonDepth);
      fail("{}: JSON nested deeper than {} levels", where_, kMaxJsonDepth);
    }
    ++depth_;
    return true;
  }

  std::string_view where_;
  int depth_ = 0;
  size_t error_position_ = 0;
  std::optional<std::string> error_what_;
};

}  // namespace detail

// Parses `text` as one JSON value; every failure is an Error (see the top of this file).
template <typename Json = nlohmann::json>
Json parse_json(std::string_view text, std::string_view where) {
  Json root;
  detail::BoundedDomBuilder<Json> builder(root, where);
  const bool ok = Json::sax_parse(text.begin(), text.end(), &builder);
  if (!ok) {
    const std::string message = builder.error(text).value_or("invalid JSON");
    if (where.empty()) throw Error(message);
    fail("{}: {}", where, message);
  }
  return root;
}

// The whole stream read as text, then parse_json.
template <typename Json = nlohmann::json>
Json parse_json(std::istream& in, std::string_view where) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parse_json<Json>(text, where);
}

}  // namespace sift
