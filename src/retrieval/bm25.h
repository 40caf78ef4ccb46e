#pragma once
// Okapi BM25 retrieval over a small document collection (one document per catalog
// qualification: the retrieval terms of its name and every other surface form). `sift synth`
// picks its candidates with it and `sift label` its rounds, so both rank the same way.
//
//   score(d, q) = sum over distinct terms t of q present in d:
//                 idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
//   idf(t)      = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))      (always > 0)
//
// N documents, n(t) of them contain t, |d| = number of terms in d, avgdl = mean |d|.
// Query terms count once however often the query repeats them (a profile that says
// "Python" three times is not three times as much about Python as one that says it once).
// Ranking: score descending, ties by document index ascending, so results are deterministic.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sift::retrieval {

struct Bm25Params {
  double k1 = 1.2;
  double b = 0.75;
};

struct ScoredDocument {
  int document;
  double score;
};

class Bm25Index {
 public:
  // documents[i] = the terms of document i (already tokenized).
  explicit Bm25Index(const std::vector<std::vector<std::string>>& documents, Bm25Params params = {});

  int n_documents() const { return n_documents_; }
  double average_length() const { return average_length_; }
  double idf(const std::string& term) const;  // 0 for a term no document contains

  // All documents scored against the query terms (score 0 where nothing matches).
  std::vector<double> score_all(const std::vector<std::string>& query_terms) const;
  // The k best (k is clamped to n_documents), in ranking order. Documents without any
  // matching term score 0 and come last, by index.
  std::vector<ScoredDocument> top_k(const std::vector<std::string>& query_terms, int k) const;

 private:
  struct Posting {
    int document;
    int term_frequency;
  };
  struct TermEntry {
    double idf;
    std::vector<Posting> postings;
  };
  Bm25Params params_;
  int n_documents_ = 0;
  double average_length_ = 0;
  std::vector<int> lengths_;
  std::unordered_map<std::string, TermEntry> terms_;
};

// One document per entry: the retrieval_terms (text_tokens.h) of each of its surface forms
// (name, aliases, titles), concatenated.
Bm25Index index_surface_forms(const std::vector<std::vector<std::string>>& surface_forms, Bm25Params params = {});

// The k best documents for a free text (a profile): top_k(retrieval_terms(text), k).
std::vector<ScoredDocument> retrieve(const Bm25Index& index, std::string_view text, int k);

}  // namespace sift::retrieval
