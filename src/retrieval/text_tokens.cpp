#include "retrieval/text_tokens.h"

#include <algorithm>
#include <array>

namespace sift::retrieval {

namespace {

bool is_token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '#';
}

char to_lower_ascii(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

// Sorted, so is_stopword can binary-search.
constexpr std::array<std::string_view, 24> kStopwords = {
    "a",  "an", "and", "are", "as", "at", "be", "by",  "for", "from", "i",   "in",
    "is", "it", "my",  "of",  "on", "or", "our", "the", "to",  "was",  "we", "with"};

}  // namespace

std::vector<TokenSpan> tokenize_spans(std::string_view text) {
  std::vector<TokenSpan> spans;
  std::string current;
  size_t begin = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? to_lower_ascii(text[i]) : ' ';
    if (is_token_char(c)) {
      if (current.empty()) begin = i;
      current.push_back(c);
    } else if (!current.empty()) {
      spans.push_back({std::move(current), begin, i});
      current.clear();
    }
  }
  return spans;
}

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  for (TokenSpan& span : tokenize_spans(text)) tokens.push_back(std::move(span.token));
  return tokens;
}

bool is_stopword(std::string_view token) {
  return std::binary_search(kStopwords.begin(), kStopwords.end(), token);
}

std::vector<std::string> retrieval_terms(std::string_view text) {
  std::vector<std::string> terms = tokenize(text);
  std::erase_if(terms, [](const std::string& t) {
    return is_stopword(t) || std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  });
  return terms;
}

std::string surface_key(std::string_view text) {
  std::string key;
  for (const std::string& token : tokenize(text)) {
    if (!key.empty()) key.push_back(' ');
    key += token;
  }
  return key;
}

size_t count_words(std::string_view text) {
  size_t n_words = 0;
  bool in_word = false;
  for (char c : text) {
    bool space = c == ' ' || c == '\n' || c == '\t';
    if (!space && !in_word) ++n_words;
    in_word = !space;
  }
  return n_words;
}

}  // namespace sift::retrieval
