#pragma once
// Prefill-token cost model of one query with N items (paper §4.3), per label:
//
//   independent : Lq + Li                       every request repeats the query
//   mis         : (Lq + N*Li) / N = Lq/N + Li   the query once per packed request
//   generate    : (Lq + N*Li + N*A) / N         one prompt listing every candidate, plus the
//                                               A generated answer-list tokens per candidate
//   reduction   : independent / mis = (Lq + Li) / (Lq/N + Li)  ->  1 + Lq/Li as N grows
//
// At Lq = 744, Li = 28, N = 200: independent 772 (paper: ~770), mis 31.72 (~32). The paper's
// ~63 for packed generation follows with A ~= Li + 3 = 31, an answer list whose lines restate
// the candidate (Li tokens) plus number, separator and label (~3 tokens): 3.72 + 28 + 31 =
// 62.72. sift's own generate mode writes "k: YES" lines only (A = the tokens of "k: NO\n"),
// so `sift cost` reports the measured A of that format beside the figures.
#include <cstdint>

namespace sift {

struct CostShape {
  double query_len = 0;               // Lq
  double item_len = 0;                // mean Li
  double n_items = 1;                 // N per request
  double answer_tokens_per_item = 0;  // A, packed generation only
};

double independent_tokens_per_label(const CostShape& shape);
double mis_tokens_per_label(const CostShape& shape);
double generate_tokens_per_label(const CostShape& shape);
// independent / mis; its limit for N -> infinity is 1 + Lq/Li.
double mis_reduction_factor(const CostShape& shape);
double mis_reduction_limit(const CostShape& shape);

}  // namespace sift
