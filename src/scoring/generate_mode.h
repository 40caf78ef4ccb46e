#pragma once
// Packed generation (paper §2.4), the baseline MIS replaces: one prompt lists every
// candidate, the model writes an answer list by greedy decoding with a KV cache, and the
// list is parsed back (generate_answers.h). Decisions are hard (score 1 or 0) and depend on
// the companions and their order; an answer that cannot be parsed is reported as such.
//
// Prompt of a request over items b..e-1 (numbers are the items' 1-based row positions,
// so an item's line does not depend on how the row was split):
//
//   query_tokens(q) ++ generate_item_tokens(b+1, c_b) ++ ... ++ generate_item_tokens(e, c_{e-1})
//                   ++ generate_answer_tokens()
//
// assembled by PromptEncoder::generate_prompt, the same call `sift train --objective
// generate` builds its training prompts with.
//
// Decoding, one row at a time on a Session (greedy_decode, the plain reference): the prompt is
// prefilled ({0, P, [0,0)}), then one token per step ({0, 1, [0, C)} at position C), argmax
// over the full vocabulary (ties to the lowest id). It stops at the model's EOS, after as many
// newlines as items, or at the answer budget: the tokens of "k: <longer of yes/no>\n" for each
// item k, plus kAnswerSlackTokens per item. generate_decisions_batched decodes the requests of
// many rows together (scoring/batched_decode.h) and gives each row the same bytes.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/session.h"
#include "scoring/batched_decode.h"
#include "scoring/plan.h"
#include "scoring/plan_cost.h"
#include "scoring/prompt.h"
#include "scoring/request_sizing.h"

namespace sift {

inline constexpr int64_t kAnswerSlackTokens = 2;

struct GenerateDecisions {
  std::vector<std::optional<bool>> decisions;  // one per item; nullopt = unparsed
  std::vector<std::string> answer_texts;       // what the model wrote, one per request
  int64_t prompt_tokens = 0;                   // prefilled prompt tokens, all requests
  int64_t generated_tokens = 0;                // tokens decoded, all requests
  int64_t requests = 0;
};

// Prompt and answer-budget lengths of each item's part of a packed-generation request.
struct GenerateItemCosts {
  std::vector<TokenIds> item_lines;       // generate_item_tokens(i+1, item i)
  std::vector<int64_t> answer_budgets;    // answer tokens allowed for item i
};
GenerateItemCosts generate_item_costs(const PromptEncoder& prompts, const ScoringArtifact& artifact,
                                      const std::vector<std::string>& items);

// A row's packed generation as generate_decisions runs it: its item lines and answer budgets,
// split into requests that each hold the shared part (the query and the answer instruction),
// their item lines and room for their answers within `limit` tokens (an Error naming the
// lengths when an item cannot fit even alone), and what that costs (scoring/plan_cost.h).
struct GenerationPlan {
  GenerateItemCosts items;
  int64_t shared_len = 0;  // Lq + La: the query and the answer instruction
  std::vector<ItemRange> requests;
  PlanCost cost;
};
GenerationPlan plan_generation(const PromptEncoder& prompts, const ScoringArtifact& artifact, int64_t query_len,
                               const std::vector<std::string>& items, int64_t limit);

// Greedy decoding after `prompt` (prefill, then one-token steps); at most `budget` tokens;
// stops early at the model's EOS (not included) or once stop_after(token) is true for a
// generated token (included). The session's cache is used and left empty. on_logits sees the
// logits each token is chosen from (tests compare them with batched decoding's).
std::vector<int32_t> greedy_decode(Session& session, std::span<const int32_t> prompt, int64_t budget,
                                   const std::function<bool(int32_t)>& stop_after,
                                   const DecodeLogitsHook& on_logits = {});

// A row's requests as decoding takes them: per request of its plan (limit: the smaller of
// max_request_tokens and the model's positions), the prompt and its answer budget.
struct GenerationRequests {
  GenerationPlan plan;
  std::vector<TokenIds> prompts;
  std::vector<int64_t> budgets;
};
GenerationRequests generation_requests(const PromptEncoder& prompts, const ScoringArtifact& artifact,
                                       std::span<const int32_t> query, const std::vector<std::string>& items,
                                       int64_t max_request_tokens, int64_t max_positions);

// The stop rule of a request listing n_items items: true once the tokens seen so far hold
// n_items newlines (a fresh count per call of this function).
std::function<bool(int32_t)> stop_after_lines(const Tokenizer& tokenizer, int64_t n_items);

// One planned row, request after request, each decoded alone (greedy_decode); on_logits sees
// the logits each token is chosen from (its row index 0).
GenerateDecisions decode_requests(Session& session, const PromptEncoder& prompts, const ScoringArtifact& artifact,
                                  const GenerationRequests& row, const DecodeLogitsHook& on_logits = {});

// One row planned, then decoded by decode_requests: the plain reference.
GenerateDecisions generate_decisions(Session& session, const PromptEncoder& prompts,
                                     const ScoringArtifact& artifact, std::span<const int32_t> query,
                                     const std::vector<std::string>& items, int64_t max_request_tokens);

// Many rows' requests decoded together (greedy_decode_batched, at most max_batch_tokens keys
// in flight): result[r] is, byte for byte, what generate_decisions gives row r.
std::vector<GenerateDecisions> generate_decisions_batched(Session& session, const PromptEncoder& prompts,
                                                          const ScoringArtifact& artifact,
                                                          std::span<const GenerationRequests> rows,
                                                          int64_t max_batch_tokens,
                                                          const DecodeLogitsHook& on_logits = {});

// A row's generation, or why it failed.
struct RowGeneration {
  GenerateDecisions decisions;
  std::string error;  // set: the row failed (decisions empty)
};

// The rows decoded together (generate_decisions_batched); when a step fails (an Error: the
// logits of a broken checkpoint), which stops every row in flight, each row is decoded again
// alone (decode_requests, the same bytes), so only a row whose own decoding fails gets an
// error. on_logits(r, logits) sees row r's logits on either path (tests make a row fail so).
std::vector<RowGeneration> generate_rows(Session& session, const PromptEncoder& prompts,
                                         const ScoringArtifact& artifact, std::span<const GenerationRequests> rows,
                                         int64_t max_batch_tokens, const DecodeLogitsHook& on_logits = {});

}  // namespace sift
