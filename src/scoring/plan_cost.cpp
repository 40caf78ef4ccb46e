#include "scoring/plan_cost.h"

#include "core/error.h"
#include "scoring/request_sizing.h"

namespace sift {

PlanCost plan_cost(ScoringMode mode, int64_t query_len, std::span<const int64_t> item_lens, int64_t request_tokens) {
  const auto n_items = static_cast<int64_t>(item_lens.size());
  int64_t item_tokens = 0;
  for (const int64_t len : item_lens) item_tokens += len;
  switch (mode) {
    case ScoringMode::Mis: {
      const auto requests = static_cast<int64_t>(group_in_order(query_len, item_lens, request_tokens).size());
      return {.prompt_tokens = requests * query_len + item_tokens, .decode_tokens = 0, .requests = requests};
    }
    case ScoringMode::Independent:
      return {.prompt_tokens = n_items * query_len + item_tokens, .decode_tokens = 0, .requests = n_items};
    case ScoringMode::Prefix:
      return {.prompt_tokens = (n_items > 0 ? query_len : 0) + item_tokens, .decode_tokens = 0, .requests = n_items};
    case ScoringMode::Generate: break;
  }
  fail("plan_cost: mode generate is planned from its text (plan_generation)");
}

}  // namespace sift
