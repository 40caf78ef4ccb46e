#pragma once
// `sift cost`: the prefill tokens scoring a set of rows costs under each execution mode,
// measured with the labeler's own prompts (tokenizer + sift.json; no weights needed), next
// to the paper's cost model (cost_model.h) at the rows' mean shape.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "scoring/artifact.h"
#include "scoring/prompt.h"

namespace sift {

struct RowCost {
  int64_t n_items = 0;
  int64_t query_tokens = 0;           // Lq
  int64_t item_tokens = 0;            // sum Li
  int64_t mis_tokens = 0;             // requests * Lq + sum Li
  int64_t mis_requests = 0;
  int64_t independent_tokens = 0;     // N * Lq + sum Li
  int64_t generate_prompt_tokens = 0; // packed-generation prompts (all its requests)
  int64_t generate_answer_tokens = 0; // the answer list a perfect model writes, "k: <no>\n" per item
  int64_t generate_requests = 0;
};

RowCost measure_row_cost(const PromptEncoder& prompts, const ScoringArtifact& artifact, const std::string& query,
                         const std::vector<std::string>& items, int64_t max_request_tokens);

struct CostTotals {
  int64_t rows = 0;
  int64_t errors = 0;
  RowCost sum;  // field-wise sums over rows
  void add(const RowCost& row);
};

// {"rows", "errors", "labels", "mean_query_tokens", "mean_item_tokens", "mean_items_per_row",
//  "prefill_tokens_per_label": {"mis", "generate", "independent"}, "mis_requests",
//  "reduction_factor" (independent / mis), "reduction_limit" (1 + Lq/Li),
//  "generate_answer_tokens_per_label", "cost_model": the same three at the mean shape}
nlohmann::json cost_report_json(const CostTotals& totals);

}  // namespace sift
