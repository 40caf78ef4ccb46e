#pragma once
// Patterns and split behaviours, reproducing Hugging Face tokenizers' tokenizer/pattern.rs
// (Pattern::find_matches) and NormalizedString::split (SplitDelimiterBehavior).
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tokenizer/regex.h"

namespace sift {

// A piece of the input: [start, end) and whether it is a pattern match.
struct MatchSpan {
  size_t start = 0, end = 0;
  bool is_match = false;
};

// A regex or a literal string. A literal matches its exact text, left to right,
// non-overlapping; an empty literal matches nothing.
class Pattern {
 public:
  // From the JSON {"Regex": "..."} or {"String": "..."}; `where` names it in errors.
  static Pattern from_json(const nlohmann::json& json, const std::string& where);

  void find_all(std::string_view text, std::vector<ByteRange>& matches) const;

  // The spans covering all of `text`: matches and the gaps between them (HF find_matches).
  // An empty text gives one empty non-match span.
  std::vector<MatchSpan> find_spans(std::string_view text) const;

 private:
  std::string literal_;
  std::shared_ptr<const Regex> regex_;
};

// Spans where each character satisfying `predicate` is its own match (HF's Fn(char) -> bool
// pattern: one match per character, never a run).
std::vector<MatchSpan> find_char_spans(std::string_view text, const std::function<bool(char32_t)>& predicate);

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
SplitBehavior split_behavior_from_json(const nlohmann::json& json, const std::string& where);

// The byte ranges a split keeps, in order (HF NormalizedString::split); empty ranges are
// kept here and dropped by the caller, as PreTokenizedString::split does.
std::vector<ByteRange> split_ranges(const std::vector<MatchSpan>& spans, SplitBehavior behavior);

}  // namespace sift
