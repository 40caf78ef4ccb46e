#include "retrieval/bm25.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "retrieval/text_tokens.h"

namespace sift::retrieval {

Bm25Index::Bm25Index(const std::vector<std::vector<std::string>>& documents, Bm25Params params)
    : params_(params), n_documents_(int(documents.size())) {
  size_t total_length = 0;
  for (int d = 0; d < n_documents_; ++d) {
    const std::vector<std::string>& terms = documents[size_t(d)];
    lengths_.push_back(int(terms.size()));
    total_length += terms.size();
    // Ordered map: postings are appended in document order whatever the hash layout.
    std::map<std::string, int> frequencies;
    for (const std::string& t : terms) ++frequencies[t];
    for (const auto& [term, tf] : frequencies) terms_[term].postings.push_back({d, tf});
  }
  average_length_ = n_documents_ ? double(total_length) / n_documents_ : 0.0;
  for (auto& [term, entry] : terms_) {
    double n = double(entry.postings.size());
    entry.idf = std::log(1.0 + (n_documents_ - n + 0.5) / (n + 0.5));
  }
}

double Bm25Index::idf(const std::string& term) const {
  auto it = terms_.find(term);
  return it == terms_.end() ? 0.0 : it->second.idf;
}

std::vector<double> Bm25Index::score_all(const std::vector<std::string>& query_terms) const {
  std::vector<double> scores(size_t(n_documents_), 0.0);
  // Distinct terms, in a fixed (sorted) order so the float sums are reproducible.
  std::vector<std::string> distinct = query_terms;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (const std::string& term : distinct) {
    auto it = terms_.find(term);
    if (it == terms_.end()) continue;
    const TermEntry& entry = it->second;
    for (const Posting& p : entry.postings) {
      double tf = p.term_frequency;
      double length_norm = 1.0 - params_.b + params_.b * lengths_[size_t(p.document)] / average_length_;
      scores[size_t(p.document)] += entry.idf * tf * (params_.k1 + 1.0) / (tf + params_.k1 * length_norm);
    }
  }
  return scores;
}

std::vector<ScoredDocument> Bm25Index::top_k(const std::vector<std::string>& query_terms, int k) const {
  std::vector<double> scores = score_all(query_terms);
  std::vector<ScoredDocument> ranked;
  ranked.reserve(scores.size());
  for (int d = 0; d < n_documents_; ++d) ranked.push_back({d, scores[size_t(d)]});
  size_t n_keep = size_t(std::clamp(k, 0, n_documents_));
  auto better = [](const ScoredDocument& a, const ScoredDocument& b) {
    return a.score != b.score ? a.score > b.score : a.document < b.document;
  };
  std::partial_sort(ranked.begin(), ranked.begin() + std::ptrdiff_t(n_keep), ranked.end(), better);
  ranked.resize(n_keep);
  return ranked;
}

Bm25Index index_surface_forms(const std::vector<std::vector<std::string>>& surface_forms, Bm25Params params) {
  std::vector<std::vector<std::string>> documents;
  documents.reserve(surface_forms.size());
  for (const std::vector<std::string>& forms : surface_forms) {
    std::vector<std::string> terms;
    for (const std::string& surface : forms) {
      std::vector<std::string> t = retrieval_terms(surface);
      terms.insert(terms.end(), t.begin(), t.end());
    }
    documents.push_back(std::move(terms));
  }
  return Bm25Index(documents, params);
}

std::vector<ScoredDocument> retrieve(const Bm25Index& index, std::string_view text, int k) {
  return index.top_k(retrieval_terms(text), k);
}

}  // namespace sift::retrieval
