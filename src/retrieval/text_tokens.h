#pragma once
// The one tokenization shared by BM25 retrieval (sift label, sift synth) and synth's mention
// finding: lower-cased ASCII words made of [a-z0-9+#], everything else separates
// ("Node.js" -> node js, "C++" -> c++, "CI/CD" -> ci cd, "2019–2023" -> 2019 2023). Simple on
// purpose: both sides of every comparison go through it, so "Apache Spark" in the catalog
// and "apache spark" in a profile meet as the same two terms.
#include <string>
#include <string_view>
#include <vector>

namespace sift::retrieval {

std::vector<std::string> tokenize(std::string_view text);

// The same tokens with their [begin, end) byte offsets in `text`.
struct TokenSpan {
  std::string token;
  size_t begin;
  size_t end;
};
std::vector<TokenSpan> tokenize_spans(std::string_view text);

// Function words left out of BM25 documents and queries ("Ruby on Rails" should not be
// retrieved by every profile that says "on").
bool is_stopword(std::string_view token);

// tokenize() minus stopwords and pure numbers ("3 years", "2019"): the terms BM25 sees.
std::vector<std::string> retrieval_terms(std::string_view text);

// Canonical key of a surface form: its tokens joined by single spaces ("Node.js" -> "node js").
std::string surface_key(std::string_view text);

// Number of whitespace-separated words (for profile length statistics).
size_t count_words(std::string_view text);

}  // namespace sift::retrieval
