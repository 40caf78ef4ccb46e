#include "workflows/cost_model.h"

#include "core/error.h"

namespace sift {
namespace {
void check(const CostShape& s) {
  if (s.n_items <= 0) fail("cost model: the number of items must be positive, got {}", s.n_items);
  if (s.query_len < 0 || s.item_len < 0 || s.answer_tokens_per_item < 0)
    fail("cost model: token counts must not be negative");
}
}  // namespace

double independent_tokens_per_label(const CostShape& s) {
  check(s);
  return s.query_len + s.item_len;
}

double mis_tokens_per_label(const CostShape& s) {
  check(s);
  return (s.query_len + s.n_items * s.item_len) / s.n_items;
}

double generate_tokens_per_label(const CostShape& s) {
  check(s);
  return (s.query_len + s.n_items * s.item_len + s.n_items * s.answer_tokens_per_item) / s.n_items;
}

double mis_reduction_factor(const CostShape& s) { return independent_tokens_per_label(s) / mis_tokens_per_label(s); }

double mis_reduction_limit(const CostShape& s) {
  check(s);
  if (s.item_len <= 0) fail("cost model: the reduction limit needs a positive item length");
  return 1.0 + s.query_len / s.item_len;
}

}  // namespace sift
