#include "scoring/generate_mode.h"

#include <algorithm>

#include "core/error.h"
#include "scoring/generate_answers.h"
#include "scoring/plan.h"
#include "scoring/request_sizing.h"

namespace sift {

std::vector<int32_t> greedy_decode(Session& session, std::span<const int32_t> prompt, int64_t budget,
                                   const std::function<bool(int32_t)>& stop_after, const DecodeLogitsHook& on_logits) {
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
    if (on_logits) on_logits(0, logits.row(0));
    const int32_t next = greedy_token(logits.row(0));
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

GenerationRequests generation_requests(const PromptEncoder& prompts, const ScoringArtifact& artifact,
                                       std::span<const int32_t> query, const std::vector<std::string>& items,
                                       int64_t max_request_tokens, int64_t max_positions) {
  // A request holds the shared part, its item lines and room for their answers; it must fit
  // both the request limit and the model's positions.
  GenerationRequests out;
  out.plan = plan_generation(prompts, artifact, static_cast<int64_t>(query.size()), items,
                             std::min(max_request_tokens, max_positions));
  const GenerateItemCosts& costs = out.plan.items;
  for (const ItemRange& range : out.plan.requests) {
    const auto lines =
        std::span(costs.item_lines).subspan(static_cast<size_t>(range.begin), static_cast<size_t>(range.size()));
    out.prompts.push_back(prompts.generate_prompt(query, lines));
    int64_t budget = 0;
    for (int64_t i = range.begin; i < range.end; ++i) budget += costs.answer_budgets[i];
    out.budgets.push_back(budget);
  }
  return out;
}

std::function<bool(int32_t)> stop_after_lines(const Tokenizer& tokenizer, int64_t n_items) {
  return [&tokenizer, n_items, newlines = int64_t{0}](int32_t token) mutable {
    const std::string piece = tokenizer.decode({token});
    newlines += std::count(piece.begin(), piece.end(), '\n');
    return newlines >= n_items;
  };
}

namespace {

// Request k's generated tokens into the row's decisions and usage. Numbers are row positions,
// so the text is parsed for items 1..range.end and this range's are kept.
void read_request(const PromptEncoder& prompts, const ScoringArtifact& artifact, const GenerationRequests& row,
                  size_t k, const std::vector<int32_t>& generated, GenerateDecisions& out) {
  const ItemRange range = row.plan.requests[k];
  std::string text = prompts.tokenizer().decode(generated, /*skip_special_tokens=*/true);
  std::vector<std::optional<bool>> parsed = parse_answer_list(text, range.end, artifact.yes, artifact.no);
  for (int64_t i = range.begin; i < range.end; ++i) out.decisions[i] = parsed[i];
  out.answer_texts.push_back(std::move(text));
  out.prompt_tokens += static_cast<int64_t>(row.prompts[k].size());
  out.generated_tokens += static_cast<int64_t>(generated.size());
  out.requests += 1;
}

}  // namespace

GenerateDecisions decode_requests(Session& session, const PromptEncoder& prompts, const ScoringArtifact& artifact,
                                  const GenerationRequests& row, const DecodeLogitsHook& on_logits) {
  GenerateDecisions out;
  out.decisions.resize(row.plan.items.item_lines.size());
  for (size_t k = 0; k < row.prompts.size(); ++k) {
    const std::vector<int32_t> generated =
        greedy_decode(session, row.prompts[k], row.budgets[k],
                      stop_after_lines(prompts.tokenizer(), row.plan.requests[k].size()), on_logits);
    read_request(prompts, artifact, row, k, generated, out);
  }
  return out;
}

GenerateDecisions generate_decisions(Session& session, const PromptEncoder& prompts,
                                     const ScoringArtifact& artifact, std::span<const int32_t> query,
                                     const std::vector<std::string>& items, int64_t max_request_tokens) {
  return decode_requests(session, prompts, artifact,
                         generation_requests(prompts, artifact, query, items, max_request_tokens,
                                             session.model().config().max_position_embeddings));
}

std::vector<GenerateDecisions> generate_decisions_batched(Session& session, const PromptEncoder& prompts,
                                                          const ScoringArtifact& artifact,
                                                          std::span<const GenerationRequests> rows,
                                                          int64_t max_batch_tokens, const DecodeLogitsHook& on_logits) {
  // Every request of every row, in row order, as one batch of decode rows.
  std::vector<DecodeRow> decode;
  std::vector<size_t> row_of;  // decode row -> its row
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t k = 0; k < rows[r].prompts.size(); ++k) {
      decode.push_back(
          {rows[r].prompts[k], rows[r].budgets[k], stop_after_lines(prompts.tokenizer(), rows[r].plan.requests[k].size())});
      row_of.push_back(r);
    }
  DecodeLogitsHook hook;
  if (on_logits) hook = [&](size_t d, std::span<const float> logits) { on_logits(row_of[d], logits); };
  const std::vector<std::vector<int32_t>> generated = greedy_decode_batched(session, decode, max_batch_tokens, hook);

  std::vector<GenerateDecisions> out(rows.size());
  size_t next = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    out[r].decisions.resize(rows[r].plan.items.item_lines.size());
    for (size_t k = 0; k < rows[r].prompts.size(); ++k) read_request(prompts, artifact, rows[r], k, generated[next++], out[r]);
  }
  return out;
}

std::vector<RowGeneration> generate_rows(Session& session, const PromptEncoder& prompts,
                                         const ScoringArtifact& artifact, std::span<const GenerationRequests> rows,
                                         int64_t max_batch_tokens, const DecodeLogitsHook& on_logits) {
  std::vector<RowGeneration> out(rows.size());
  try {
    std::vector<GenerateDecisions> together =
        generate_decisions_batched(session, prompts, artifact, rows, max_batch_tokens, on_logits);
    for (size_t r = 0; r < rows.size(); ++r) out[r].decisions = std::move(together[r]);
    return out;
  } catch (const Error&) {
    session.truncate(0);  // the failed call's keys
  }
  for (size_t r = 0; r < rows.size(); ++r) try {
      DecodeLogitsHook hook;
      if (on_logits) hook = [&](size_t, std::span<const float> logits) { on_logits(r, logits); };
      out[r].decisions = decode_requests(session, prompts, artifact, rows[r], hook);
    } catch (const Error& e) {
      session.truncate(0);
      out[r].error = e.what();
    }
  return out;
}

}  // namespace sift
