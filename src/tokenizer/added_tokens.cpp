#include "tokenizer/added_tokens.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/error.h"
#include "tokenizer/token_ids.h"
#include "tokenizer/unicode.h"
#include "tokenizer/utf8.h"

namespace sift {
namespace {

char32_t first_char(std::string_view text) {
  size_t pos = 0;
  return utf8::next(text, pos);
}

char32_t last_char(std::string_view text) {
  size_t start = text.size() - 1;
  while (start > 0 && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
  return first_char(text.substr(start));
}

// Start of the run of whitespace ending `text` (HF space_leftmost_at_end: \s*$).
size_t trailing_space_start(std::string_view text) {
  size_t end = text.size();
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
    if (!unicode::is_whitespace(first_char(text.substr(start)))) break;
    end = start;
  }
  return end;
}

// Length of the run of whitespace starting `text` (HF space_rightmost_at_start: ^\s*).
size_t leading_space_length(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t next = pos;
    if (!unicode::is_whitespace(utf8::next(text, next))) break;
    pos = next;
  }
  return pos;
}

}  // namespace

AddedVocabulary::AddedVocabulary(const nlohmann::json& added_tokens, const Normalizer* normalizer,
                                 const std::string& where) {
  if (!added_tokens.is_null() && !added_tokens.is_array()) fail("{}: added_tokens must be a list", where);
  for (size_t i = 0; !added_tokens.is_null() && i < added_tokens.size(); ++i) {
    const auto& json = added_tokens[i];
    AddedToken token;
    token.content = json.at("content").get<std::string>();
    token.id = token_id_from_json(json.at("id"), fmt::format("{}[{}].id", where, i));
    token.special = json.value("special", false);
    token.single_word = json.value("single_word", false);
    token.lstrip = json.value("lstrip", false);
    token.rstrip = json.value("rstrip", false);
    token.normalized = json.value("normalized", !token.special);
    if (token.content.empty()) continue;  // HF ignores empty added tokens
    utf8::validate(token.content);
    id_by_content_[token.content] = token.id;
    index_by_id_[token.id] = tokens_.size();
    tokens_.push_back(std::move(token));
  }
  build_match_set(raw_, false, nullptr);
  build_match_set(normalized_, true, normalizer);
}

// HF lists special tokens before the others when it builds its matchers; the order only
// decides between two tokens with the same (normalized) content.
void AddedVocabulary::build_match_set(MatchSet& set, bool normalized, const Normalizer* normalizer) {
  for (const bool special_pass : {true, false}) {
    for (size_t i = 0; i < tokens_.size(); ++i) {
      const AddedToken& token = tokens_[i];
      if (token.special != special_pass || token.normalized != normalized) continue;
      std::string pattern = token.content;
      if (normalized && normalizer) normalizer->normalize(pattern);
      if (pattern.empty()) continue;
      set.patterns.push_back(std::move(pattern));
      set.token_index.push_back(i);
    }
  }
  for (size_t p = 0; p < set.patterns.size(); ++p) {
    set.by_first_byte[static_cast<unsigned char>(set.patterns[p][0])].push_back(p);
  }
  for (auto& candidates : set.by_first_byte) {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](size_t a, size_t b) { return set.patterns[a].size() > set.patterns[b].size(); });
  }
}

std::optional<std::pair<size_t, size_t>> AddedVocabulary::find_next(const MatchSet& set, std::string_view text,
                                                                    size_t from) const {
  for (size_t start = from; start < text.size(); ++start) {
    const auto& candidates = set.by_first_byte[static_cast<unsigned char>(text[start])];
    for (const size_t p : candidates) {
      if (text.compare(start, set.patterns[p].size(), set.patterns[p]) == 0) return std::make_pair(start, p);
    }
  }
  return std::nullopt;
}

void AddedVocabulary::split(std::string_view text, Stage stage, SpecialText special_text,
                            std::span<const TextSpan> special_spans, std::vector<TextSegment>& out) const {
  const auto special_allowed = [&](size_t start, size_t stop) {
    if (special_text == SpecialText::AsPlainText) return false;
    return special_spans.empty() || std::any_of(special_spans.begin(), special_spans.end(),
                                                [&](const TextSpan& span) { return span.contains(start, stop); });
  };
  const MatchSet& set = stage == Stage::Raw ? raw_ : normalized_;
  size_t segment_start = 0;  // end of the previous token (HF start_offset)
  size_t search_from = 0;
  while (!set.patterns.empty()) {
    const auto match = find_next(set, text, search_from);
    if (!match) break;
    size_t start = match->first;
    size_t stop = start + set.patterns[match->second].size();
    search_from = stop;
    const AddedToken& token = tokens_[set.token_index[match->second]];
    if (token.special && !special_allowed(start, stop)) continue;
    if (token.single_word) {
      const bool space_before = start == 0 || !unicode::is_word_char(last_char(text.substr(0, start)));
      const bool space_after = stop == text.size() || !unicode::is_word_char(first_char(text.substr(stop)));
      if (!space_before || !space_after) continue;
    }
    if (token.lstrip) start = trailing_space_start(text.substr(0, start));
    if (token.rstrip) stop += leading_space_length(text.substr(stop));
    // Whitespace already swallowed by the previous token's rstrip stays with it.
    start = std::max(start, segment_start);
    stop = std::max(stop, start);
    if (segment_start < start) out.push_back({segment_start, start, -1});
    out.push_back({start, stop, token.id});
    segment_start = stop;
  }
  if (segment_start < text.size()) out.push_back({segment_start, text.size(), -1});
}

std::optional<int32_t> AddedVocabulary::token_to_id(std::string_view content) const {
  const auto it = id_by_content_.find(content);
  if (it == id_by_content_.end()) return std::nullopt;
  return it->second;
}

const AddedToken* AddedVocabulary::find(int32_t id) const {
  const auto it = index_by_id_.find(id);
  return it == index_by_id_.end() ? nullptr : &tokens_[it->second];
}

std::vector<int32_t> AddedVocabulary::ids() const {
  std::vector<int32_t> ids;
  ids.reserve(index_by_id_.size());
  for (const auto& [id, index] : index_by_id_) ids.push_back(id);
  return ids;
}

}  // namespace sift
