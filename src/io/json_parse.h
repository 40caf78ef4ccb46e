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
//
// A caller that answers hostile clients (`sift serve`'s request bodies) asks for JsonStrict:
// JSON itself lets an object hold a key twice (nlohmann keeps the last) and an integer of any
// size (nlohmann rounds one beyond 64 bits to a double), and either would make the server act
// on something other than what the client sent. It may also cap one array field of the
// body (JsonArrayCap), counted while parsing. Files and input rows keep JSON's defaults.
#include <nlohmann/json.hpp>

#include <istream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/error.h"

namespace sift {

// Arrays and objects inside one another; Hugging Face files need fewer than 10.
inline constexpr int kMaxJsonDepth = 64;

// A field of the top-level object whose array is counted as it is read: the parse stops at
// its value max_values + 1 (JsonArrayTooLong), so the rest of an array too long to use is
// never built (a body of millions of tiny values would take many times its size as a DOM).
struct JsonArrayCap {
  std::string_view field;
  size_t max_values = 0;
  std::string_view other_field = {};  // a second field capped alike (a route's two names for one list)
};

// Rules beyond JSON's own; each broken one is a JsonValueError naming where.
struct JsonStrict {
  bool unique_keys = false;     // an object holds each key once
  bool exact_integers = false;  // an integer literal fits 64 bits: [-2^63, 2^64 - 1]
  std::optional<JsonArrayCap> array_cap;
};

// A value that breaks a JsonStrict rule. path() is where, as "items[3].id" ("" for the whole
// text); the message starts with it, not with `where` (the caller says which text):
//   items[0].text: the key "text" appears twice in one object
//   items[2].id: the integer 99999999999999999999 does not fit 64 bits (send it as a string)
class JsonValueError : public Error {
 public:
  JsonValueError(std::string path, const std::string& message) : Error(message), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The message of a failed parse of `text` at byte offset `position` (nlohmann's count: the
// failing byte is text[position - 1]), with the library's `what` turned into words.
std::string json_error_in_words(std::string_view text, size_t position, std::string_view what);

// The array of a JsonArrayCap holds more than max_values values; path() is its field.
class JsonArrayTooLong : public JsonValueError {
 public:
  using JsonValueError::JsonValueError;
};

namespace detail {

// nlohmann's DOM builder with a depth count on container starts, and errors recorded (with
// their byte position) instead of thrown, so the caller can say where they are.
// With JsonStrict rules it also keeps the path to the current value (one frame per open
// array or object: the index or key being read) and each open object's keys.
template <typename Json>
class BoundedDomBuilder : public nlohmann::detail::json_sax_dom_parser<Json> {
  using Base = nlohmann::detail::json_sax_dom_parser<Json>;
  using String = typename Json::string_t;

 public:
  BoundedDomBuilder(Json& root, std::string_view where, JsonStrict strict = {})
      : Base(root, /*allow_exceptions=*/false), where_(where), strict_(strict),
        tracks_path_(strict.unique_keys || strict.exact_integers || strict.array_cap) {}

  bool start_object(std::size_t n) { return enter() && value() && open(true) && Base::start_object(n); }
  bool start_array(std::size_t n) { return enter() && value() && open(false) && Base::start_array(n); }
  bool end_object() { --depth_; close(); return Base::end_object(); }
  bool end_array() { --depth_; close(); return Base::end_array(); }
  bool key(String& name) {
    if (tracks_path_) {
      Frame& frame = frames_.back();
      frame.key = name;
      if (strict_.unique_keys && !frame.keys.insert(name).second)
        broken(fmt::format("the key \"{}\" appears twice in one object", name));
    }
    return Base::key(name);
  }
  bool null() { return value() && Base::null(); }
  bool boolean(bool v) { return value() && Base::boolean(v); }
  bool number_integer(typename Json::number_integer_t v) { return value() && Base::number_integer(v); }
  bool number_unsigned(typename Json::number_unsigned_t v) { return value() && Base::number_unsigned(v); }
  bool number_float(typename Json::number_float_t v, const String& text) {
    value();
    // nlohmann reads an integer literal that overflows 64 bits as a double.
    if (strict_.exact_integers && text.find_first_of(".eE") == String::npos)
      broken(fmt::format("the integer {} does not fit 64 bits (send it as a string)", text));
    return Base::number_float(v, text);
  }
  bool string(String& v) { return value() && Base::string(v); }
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

  // One open array or object: the index of its current value, or its current key and the
  // keys read so far (with unique_keys).
  struct Frame {
    bool object = false;
    size_t n_values = 0;
    String key;
    std::unordered_set<String> keys;
  };
  bool open(bool object) {
    if (tracks_path_) frames_.emplace_back().object = object;
    return true;
  }
  void close() {
    if (tracks_path_) frames_.pop_back();
  }
  // Counts a value of the innermost array (its index is then n_values - 1), and stops at the
  // capped array's value past its cap (an array two frames down: a field of the top object).
  bool value() {
    if (!tracks_path_ || frames_.empty() || frames_.back().object) return true;
    const size_t n = ++frames_.back().n_values;
    if (!strict_.array_cap || frames_.size() != 2 || !frames_[0].object || n <= strict_.array_cap->max_values) return true;
    const std::string& key = frames_[0].key;
    if (key == strict_.array_cap->field || (!strict_.array_cap->other_field.empty() && key == strict_.array_cap->other_field))
      throw JsonArrayTooLong(key, fmt::format("{}: more than {} values", key, strict_.array_cap->max_values));
    return true;
  }
  [[noreturn]] void broken(const std::string& what) const {
    const std::string at = path();
    throw JsonValueError(at, at.empty() ? what : at + ": " + what);
  }
  // "items[3].id": each open frame's current key or index, outermost first.
  std::string path() const {
    std::string out;
    for (const Frame& frame : frames_) {
      if (!frame.object) out += fmt::format("[{}]", frame.n_values == 0 ? 0 : frame.n_values - 1);
      else out += (out.empty() ? "" : ".") + frame.key;
    }
    return out;
  }

  std::string_view where_;
  JsonStrict strict_;
  bool tracks_path_ = false;
  std::vector<Frame> frames_;
  int depth_ = 0;
  size_t error_position_ = 0;
  std::optional<std::string> error_what_;
};

}  // namespace detail

// Parses `text` as one JSON value; every failure is an Error (see the top of this file).
template <typename Json = nlohmann::json>
Json parse_json(std::string_view text, std::string_view where, JsonStrict strict = {}) {
  Json root;
  detail::BoundedDomBuilder<Json> builder(root, where, strict);
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
