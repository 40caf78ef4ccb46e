#pragma once
// parse_json: nlohmann's parser with the nesting depth bounded. The parser itself is
// iterative, but what sift then does with a value recurses into it (copies, comparisons,
// dump() in error messages, the tokenizer's component builders), so a file nested 100,000
// deep would overflow the stack later. Every JSON file sift reads (config.json,
// tokenizer.json, sift.json, safetensors headers and indexes) and every JSON input line of
// `sift tokenize` / `detokenize` goes through here.
#include <nlohmann/json.hpp>

#include <string>
#include <utility>

#include "core/error.h"

namespace sift {

// Arrays and objects inside one another; Hugging Face files need fewer than 10.
inline constexpr int kMaxJsonDepth = 64;

// Parses `input` (text, or a std::istream) as Json::parse(input, callback, allow_exceptions)
// does: a syntax error throws Json::parse_error (a number too large for a double,
// Json::out_of_range), or with allow_exceptions false gives a discarded value. Nesting deeper than kMaxJsonDepth is an Error "<where>: JSON nested deeper
// than 64 levels", raised as soon as the parser opens the 65th level.
template <typename Json = nlohmann::json, typename Input>
Json parse_json(Input&& input, const std::string& where, bool allow_exceptions = true) {
  using Event = nlohmann::json::parse_event_t;
  const typename Json::parser_callback_t limit_depth = [&where](int depth, Event event, Json&) {
    if ((event == Event::object_start || event == Event::array_start) && depth >= kMaxJsonDepth)
      fail("{}: JSON nested deeper than {} levels", where, kMaxJsonDepth);
    return true;
  };
  return Json::parse(std::forward<Input>(input), limit_depth, allow_exceptions);
}

}  // namespace sift
