#include "tokenizer/pattern.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tokenizer/utf8.h"

namespace sift {

Pattern Pattern::from_json(const nlohmann::json& json, const std::string& where) {
  Pattern pattern;
  if (json.is_object() && json.contains("Regex") && json["Regex"].is_string()) {
    pattern.regex_ = std::make_shared<const Regex>(json["Regex"].get<std::string>(), where);
  } else if (json.is_object() && json.contains("String") && json["String"].is_string()) {
    pattern.literal_ = json["String"].get<std::string>();
  } else {
    fail("{}: pattern must be {{\"Regex\": ...}} or {{\"String\": ...}}, got {}", where, json.dump());
  }
  return pattern;
}

void Pattern::find_all(std::string_view text, std::vector<ByteRange>& matches) const {
  if (regex_) {
    regex_->find_all(text, matches);
    return;
  }
  if (literal_.empty()) return;
  for (size_t pos = text.find(literal_); pos != std::string_view::npos; pos = text.find(literal_, pos)) {
    matches.emplace_back(pos, pos + literal_.size());
    pos += literal_.size();
  }
}

std::vector<MatchSpan> Pattern::find_spans(std::string_view text) const {
  if (text.empty()) return {MatchSpan{0, 0, false}};
  std::vector<ByteRange> matches;
  find_all(text, matches);
  std::vector<MatchSpan> spans;
  spans.reserve(2 * matches.size() + 1);
  size_t previous = 0;
  for (const auto& [start, end] : matches) {
    if (previous != start) spans.push_back({previous, start, false});
    spans.push_back({start, end, true});
    previous = end;
  }
  if (previous != text.size()) spans.push_back({previous, text.size(), false});
  return spans;
}

std::vector<MatchSpan> find_char_spans(std::string_view text, const std::function<bool(char32_t)>& predicate) {
  if (text.empty()) return {MatchSpan{0, 0, false}};
  std::vector<MatchSpan> spans;
  size_t last_offset = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const char32_t c = utf8::next(text, pos);
    if (!predicate(c)) continue;
    if (last_offset < start) spans.push_back({last_offset, start, false});
    spans.push_back({start, pos, true});
    last_offset = pos;
  }
  if (last_offset < text.size()) spans.push_back({last_offset, text.size(), false});
  return spans;
}

SplitBehavior split_behavior_from_json(const nlohmann::json& json, const std::string& where) {
  const std::string name = json.is_string() ? json.get<std::string>() : json.dump();
  if (name == "Removed") return SplitBehavior::Removed;
  if (name == "Isolated") return SplitBehavior::Isolated;
  if (name == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (name == "Contiguous") return SplitBehavior::Contiguous;
  fail("{}: unknown split behavior {}", where, name);
}

std::vector<ByteRange> split_ranges(const std::vector<MatchSpan>& spans, SplitBehavior behavior) {
  std::vector<ByteRange> ranges;
  ranges.reserve(spans.size());
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::Isolated:
      for (const auto& span : spans) ranges.emplace_back(span.start, span.end);
      break;
    case SplitBehavior::Removed:
      for (const auto& span : spans)
        if (!span.is_match) ranges.emplace_back(span.start, span.end);
      break;
    case SplitBehavior::Contiguous:  // consecutive spans of the same kind fuse
      for (const auto& span : spans) {
        if (span.is_match == previous_match && !ranges.empty()) {
          ranges.back().second = span.end;
        } else {
          ranges.emplace_back(span.start, span.end);
        }
        previous_match = span.is_match;
      }
      break;
    case SplitBehavior::MergedWithPrevious:  // a match joins the piece before it
      for (const auto& span : spans) {
        if (span.is_match && !previous_match && !ranges.empty()) {
          ranges.back().second = span.end;
        } else {
          ranges.emplace_back(span.start, span.end);
        }
        previous_match = span.is_match;
      }
      break;
    case SplitBehavior::MergedWithNext:  // a match joins the piece after it (scanned right to left)
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous_match && !ranges.empty()) {
          ranges.back().first = it->start;
        } else {
          ranges.emplace_back(it->start, it->end);
        }
        previous_match = it->is_match;
      }
      std::reverse(ranges.begin(), ranges.end());
      break;
  }
  return ranges;
}

}  // namespace sift
