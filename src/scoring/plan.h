#pragma once
// Forward plans: the token layout of forward calls that hold the requests of many rows side
// by side. This file is the ONE place the multi-item visibility rule is written
// (docs/engine.md); scoring in every mode, training's packed layout and the torch mask all
// derive from it.
//
// A forward call appends T new tokens to the session's key space (model/segment.h): key
// index = cached keys first, then the call's tokens. A run of tokens (append_run) sits at
// positions p0.. and each token sees a context range of keys plus its own run up to itself.
//
// The multi-item rule (paper §4), for a request [q; c_1 .. c_k] whose query keys are at
// [qb, qb + Lq) of the key space:
//
//   query run : positions 0 .. Lq-1, no context                       (a causal prompt)
//   item i    : positions Lq .. Lq+L_i-1, context = the query's keys [qb, qb + Lq)
//   readout   : the last token of each item (its answer position)
//
// so every item sees its own query and its own earlier tokens, never another item or another
// request: its hidden states are those of the separate prompt [q; c_i]. One call holds any
// number of requests one after the other:
//
//   call ids : q_A c_A1 c_A2 | q_B c_B1 | ...     segments: {0,LqA, -}, {LqA, LA1, [0,LqA)}, ...
//
// Which requests share a call, and where each request's query keys come from (run in the
// call, shared with an earlier request of it, or kept from an earlier call), is the
// scheduler's plan (scoring/scheduler.h); this file lays a planned call out.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace sift {

using TokenIds = std::vector<int32_t>;

// Token ids as a string of their bytes: a map key (equal exactly when the ids are).
inline std::string ids_key(std::span<const int32_t> ids) {
  return {reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(int32_t)};
}

// A logit row's owner: item `item` of row `row` (indices in the caller's row list).
struct ItemSlot {
  int32_t row = 0;
  int32_t item = 0;
};

// A request of a call: the row it belongs to and the tokens it runs (its prefill cost).
struct PlannedRequest {
  int32_t row = 0;
  int64_t n_tokens = 0;
};

// One forward call: ids, positions and segments of its new tokens, the rows read out
// (logit_rows[k] is the answer position of slots[k]), and the requests it holds.
struct ForwardCall {
  std::vector<int32_t> ids{};
  std::vector<int32_t> positions{};
  std::vector<Segment> segments{};
  std::vector<int32_t> logit_rows{};
  std::vector<ItemSlot> slots{};
  std::vector<PlannedRequest> requests{};
  int64_t key_offset = 0;  // cached keys before the call's first token (0 unless a cache is used)

  int64_t n_tokens() const { return static_cast<int64_t>(ids.size()); }
  // A view for Session::forward; the call and vocab_rows must outlive it.
  ForwardRequest request(std::span<const int32_t> vocab_rows) const;
};

// Appends a run of tokens at positions first_position.. that each see the keys `context`
// (key-space indices) and their own run up to themselves. Returns the run's key range.
KeyRange append_run(ForwardCall& call, std::span<const int32_t> ids, int64_t first_position, KeyRange context);

// Appends the items of row `row` (item indices first_item..) against a query whose keys are
// `query_keys` (query_len = its length): the multi-item rule above, one readout per item.
void append_items(ForwardCall& call, KeyRange query_keys, std::span<const TokenIds> items, int32_t row,
                  int32_t first_item);

// Appends the request [query; items]: the query run, then append_items against it.
void append_request(ForwardCall& call, std::span<const int32_t> query, std::span<const TokenIds> items,
                    int32_t row, int32_t first_item);

// A scoring row at the token level: query part ids and item part ids (each non-empty).
struct TokenRow {
  std::span<const int32_t> query;
  std::span<const TokenIds> items;
};

struct PlanLimits {
  int64_t max_request_tokens = 0;  // one request: Lq + its items (positions, memory)
  int64_t max_call_tokens = 0;     // one forward call: the requests packed into it
  // What one request may hold: a request never exceeds the call limit either.
  int64_t request_limit() const { return std::min(max_request_tokens, max_call_tokens); }
  // What one [query; item] may hold: also within the model's positions (max_position_embeddings).
  int64_t request_limit(int64_t max_positions) const { return std::min(request_limit(), max_positions); }
  // The options that set these limits, as errors name them (`sift serve` has one for both).
  const char* flags = "--max-request-tokens / --max-batch-tokens";
};

// Checks that every item of the row fits a request with its query under both limits and the
// model's positions (Lq + L_i <= max_position_embeddings); throws Error naming the lengths.
// `flags` names the options that set the request limit in the error.
void check_row_fits(int64_t max_positions, const TokenRow& row, int64_t request_limit,
                    std::string_view flags = "--max-request-tokens / --max-batch-tokens");
inline void check_row_fits(const ModelConfig& config, const TokenRow& row, const PlanLimits& limits) {
  check_row_fits(config.max_position_embeddings, row, limits.request_limit(), limits.flags);
}

}  // namespace sift
