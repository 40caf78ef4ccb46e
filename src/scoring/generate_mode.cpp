#include "scoring/generate_mode.h"

#include <algorithm>

#include "core/error.h"
#include "scoring/generate_answers.h"
#include "scoring/plan.h"
#include "scoring/request_sizing.h"

namespace sift {
namespace {

int32_t argmax(std::span<const float> logits) {
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

}  // namespace

std::vector<int32_t> greedy_decode(Session& session, std::span<const int32_t> prompt, int64_t budget,
                                   const std::function<bool(int32_t)>& stop_after) {
  const int64_t eos = session.model().config().eos_token_id;
  std::vector<int32_t> generated;
  if (prompt.empty()) fail("packed generation: the prompt has no tokens");
  if (budget <= 0) return generated;
  session.truncate(0);
  ForwardCall call;
  const KeyRange prompt_keys = append_run(call, prompt, 0, {});  // {0, P, [0,0)}
  call.logit_rows = {static_cast<int32_t>(prompt_keys.end - 1)};
  LogitsView logits = session.forward(call.request({}));  // full vocabulary
  while (true) {
    const int32_t next = argmax(logits.row(0));
    if (next == eos) break;
    generated.push_back(next);
    if (stop_after(next) || static_cast<int64_t>(generated.size()) == budget) break;
    // One step: the token at position C sees every cached key: {0, 1, [0, C)}.
    const int64_t n_cached = session.n_cached();
    ForwardCall step{.key_offset = n_cached};
    const int32_t step_ids[1] = {next};
    append_run(step, step_ids, n_cached, {0, static_cast<int32_t>(n_cached)});
    step.logit_rows = {0};
    logits = session.forward(step.request({}));
  }
  session.truncate(0);
  return generated;
}

GenerateItemCosts generate_item_costs(const PromptEncoder& prompts, const ScoringArtifact& artifact,
                                      const std::vector<std::string>& items) {
  const Tokenizer& tokenizer = prompts.tokenizer();
  const std::string& longer = artifact.yes.size() >= artifact.no.size() ? artifact.yes : artifact.no;
  GenerateItemCosts costs;
  costs.item_lines.reserve(items.size());
  costs.answer_budgets.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const int64_t number = static_cast<int64_t>(i) + 1;
    costs.item_lines.push_back(prompts.generate_item_tokens(number, items[i]));
    const std::string line = std::to_string(number) + ": " + longer + "\n";
    costs.answer_budgets.push_back(
        static_cast<int64_t>(tokenizer.encode(line, {.add_special_tokens = false}).size()) + kAnswerSlackTokens);
  }
  return costs;
}

GenerationPlan plan_generation(const PromptEncoder& prompts, const ScoringArtifact& artifact, int64_t query_len,
                               const std::vector<std::string>& items, int64_t limit) {
  GenerationPlan plan;
  plan.items = generate_item_costs(prompts, artifact, items);
  plan.shared_len = query_len + static_cast<int64_t>(prompts.generate_answer_tokens().size());
  std::vector<int64_t> item_costs(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const auto line = static_cast<int64_t>(plan.items.item_lines[i].size());
    item_costs[i] = line + plan.items.answer_budgets[i];
    plan.cost.prompt_tokens += line;
    plan.cost.decode_tokens += plan.items.answer_budgets[i];
  }
  if (items.empty()) return plan;
  plan.requests = split_into_requests(plan.shared_len, item_costs, limit);
  plan.cost.requests = static_cast<int64_t>(plan.requests.size());
  plan.cost.prompt_tokens += plan.cost.requests * plan.shared_len;
  return plan;
}

GenerateDecisions generate_decisions(Session& session, const PromptEncoder& prompts,
                                     const ScoringArtifact& artifact, std::span<const int32_t> query,
                                     const std::vector<std::string>& items, int64_t max_request_tokens) {
  GenerateDecisions out;
  out.decisions.resize(items.size());
  if (items.empty()) return out;

  // A request holds the shared part, its item lines and room for their answers; it must fit
  // both the request limit and the model's positions.
  const int64_t limit = std::min(max_request_tokens, session.model().config().max_position_embeddings);
  const GenerationPlan plan = plan_generation(prompts, artifact, static_cast<int64_t>(query.size()), items, limit);
  const GenerateItemCosts& costs = plan.items;
  for (const ItemRange& range : plan.requests) {
    const auto lines =
        std::span(costs.item_lines).subspan(static_cast<size_t>(range.begin), static_cast<size_t>(range.size()));
    const std::vector<int32_t> prompt = prompts.generate_prompt(query, lines);
    int64_t budget = 0;
    for (int64_t i = range.begin; i < range.end; ++i) budget += costs.answer_budgets[i];

    // Stop once the model has written as many lines as the request has items.
    const Tokenizer& tokenizer = prompts.tokenizer();
    int64_t newlines = 0;
    auto enough_lines = [&](int32_t token) {
      const std::string piece = tokenizer.decode({token});
      newlines += std::count(piece.begin(), piece.end(), '\n');
      return newlines >= range.size();
    };
    const std::vector<int32_t> generated = greedy_decode(session, prompt, budget, enough_lines);
    std::string text = tokenizer.decode(generated, /*skip_special_tokens=*/true);
    // Numbers are row positions, so parse for items 1..range.end and keep this range's.
    std::vector<std::optional<bool>> parsed = parse_answer_list(text, range.end, artifact.yes, artifact.no);
    for (int64_t i = range.begin; i < range.end; ++i) out.decisions[i] = parsed[i];

    out.answer_texts.push_back(std::move(text));
    out.prompt_tokens += static_cast<int64_t>(prompt.size());
    out.generated_tokens += static_cast<int64_t>(generated.size());
    out.requests += 1;
  }
  return out;
}

}  // namespace sift
