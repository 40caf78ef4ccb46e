#include "workflows/cost_report.h"

#include <nlohmann/json.hpp>

#include "workflows/cost_model.h"
#include "scoring/generate_mode.h"
#include "scoring/plan_cost.h"
#include "scoring/request_sizing.h"

namespace sift {

RowCost measure_row_cost(const PromptEncoder& prompts, const ScoringArtifact& artifact, const std::string& query,
                         const std::vector<std::string>& items, int64_t max_request_tokens) {
  RowCost cost;
  const std::vector<int32_t> query_ids = prompts.query_tokens(query);
  const std::vector<TokenIds> item_ids = prompts.item_tokens_batch(items);
  cost.n_items = static_cast<int64_t>(items.size());
  cost.query_tokens = static_cast<int64_t>(query_ids.size());
  std::vector<int64_t> lengths;
  for (const TokenIds& item : item_ids) {
    lengths.push_back(static_cast<int64_t>(item.size()));
    cost.item_tokens += lengths.back();
  }
  // The row's items must fit a request (scoring/plan_cost.h counts one that does not alone).
  split_into_requests(cost.query_tokens, lengths, max_request_tokens);
  const PlanCost mis = plan_cost(ScoringMode::Mis, cost.query_tokens, lengths, max_request_tokens);
  cost.mis_tokens = mis.prompt_tokens;
  cost.mis_requests = mis.requests;
  cost.independent_tokens = plan_cost(ScoringMode::Independent, cost.query_tokens, lengths, max_request_tokens).prompt_tokens;

  const GenerationPlan generate = plan_generation(prompts, artifact, cost.query_tokens, items, max_request_tokens);
  cost.generate_requests = generate.cost.requests;
  cost.generate_prompt_tokens = generate.cost.prompt_tokens;
  // What a perfect model writes: the budget less its slack.
  cost.generate_answer_tokens = generate.cost.decode_tokens - kAnswerSlackTokens * cost.n_items;
  return cost;
}

void CostTotals::add(const RowCost& row) {
  ++rows;
  sum.n_items += row.n_items;
  sum.query_tokens += row.query_tokens;
  sum.item_tokens += row.item_tokens;
  sum.mis_tokens += row.mis_tokens;
  sum.mis_requests += row.mis_requests;
  sum.independent_tokens += row.independent_tokens;
  sum.generate_prompt_tokens += row.generate_prompt_tokens;
  sum.generate_answer_tokens += row.generate_answer_tokens;
  sum.generate_requests += row.generate_requests;
}

nlohmann::json cost_report_json(const CostTotals& t) {
  using nlohmann::json;
  const double labels = static_cast<double>(t.sum.n_items);
  json report = {{"rows", t.rows}, {"errors", t.errors}, {"labels", t.sum.n_items}};
  if (t.rows == 0 || t.sum.n_items == 0) return report;
  const double per_row = 1.0 / static_cast<double>(t.rows);
  const double mean_query = static_cast<double>(t.sum.query_tokens) * per_row;
  const double mean_item = static_cast<double>(t.sum.item_tokens) / labels;
  const double mean_items = labels * per_row;
  const double mis = static_cast<double>(t.sum.mis_tokens) / labels;
  const double independent = static_cast<double>(t.sum.independent_tokens) / labels;
  const double generate = static_cast<double>(t.sum.generate_prompt_tokens + t.sum.generate_answer_tokens) / labels;
  report["mean_query_tokens"] = mean_query;
  report["mean_item_tokens"] = mean_item;
  report["mean_items_per_row"] = mean_items;
  report["prefill_tokens_per_label"] = {{"mis", mis}, {"generate", generate}, {"independent", independent}};
  report["mis_requests"] = t.sum.mis_requests;
  report["reduction_factor"] = independent / mis;
  report["generate_answer_tokens_per_label"] = static_cast<double>(t.sum.generate_answer_tokens) / labels;

  CostShape shape{mean_query, mean_item, mean_items,
                  static_cast<double>(t.sum.generate_answer_tokens) / labels};
  if (mean_item > 0) report["reduction_limit"] = mis_reduction_limit(shape);
  report["cost_model"] = {{"mis", mis_tokens_per_label(shape)},
                          {"generate", generate_tokens_per_label(shape)},
                          {"independent", independent_tokens_per_label(shape)},
                          {"reduction_factor", mis_reduction_factor(shape)}};
  return report;
}

}  // namespace sift
