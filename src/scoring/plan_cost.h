#pragma once
// PlanCost: what a row's plan runs through the model, counted from its lengths before anything
// runs. It is the one measure of a row's work: `sift serve` admits and queues requests by it
// (--max-queue-tokens) and reports it as a baseline's usage, the pipelines of `sift score` and
// `sift batch` queue rows by it, and `sift cost` reports it per mode. It follows the
// scheduler's plans (scoring/scheduler.h) with no query keys reused (sharing a call or the
// query-KV cache can only make the work less):
//
//   mis          requests x Lq + sum L_i    the query in each request of split_into_requests
//   independent  N x Lq + sum L_i           one request [q; c_i] per item
//   prefix       Lq + sum L_i               the query once, then each item against its keys
//   generate     requests x (Lq + La) + sum line_i prefilled, at most sum budget_i decoded
//                (scoring/generate_mode.h: plan_generation)
//
// so for the same row independent runs N times the query that mis runs once, and generate
// decodes its answers one token per step after its prompt.
#include <cstdint>
#include <span>

#include "sift/labeler.h"

namespace sift {

struct PlanCost {
  int64_t prompt_tokens = 0;  // prefilled by the row's requests
  int64_t decode_tokens = 0;  // mode generate: the most its answers may decode (their budget)
  int64_t requests = 0;       // requests in the mode's own sense (result.requests)
  // What a queue counts the row as.
  int64_t tokens() const { return prompt_tokens + decode_tokens; }
};

// Modes mis, independent and prefix, from the row's token lengths: Lq and each L_i, with
// requests of at most request_tokens (an item that does not fit with the query counts as a
// request of its own; the scheduler refuses such a row). Mode generate plans text
// (plan_generation).
PlanCost plan_cost(ScoringMode mode, int64_t query_len, std::span<const int64_t> item_lens, int64_t request_tokens);

}  // namespace sift
