#pragma once
// Request sizing (paper §4.4): a request's aggregate length is Lq + sum of its items'
// lengths, and it must fit the engine's input-length limit and memory budget. A row whose
// items do not fit in one request is split into sub-requests that each carry the query.
#include <cstdint>
#include <span>
#include <vector>

#include "model/config.h"

namespace sift {

// Activation memory one forward call may use by default, and the per-token estimate it is
// divided by (see default_max_request_tokens).
inline constexpr int64_t kDefaultRequestMemoryBytes = int64_t{4} << 30;  // 4 GiB

// F32 bytes the forward pass keeps per token of a request (upper estimate): residual,
// normed input, attention output, q, k, v, the MLP's gate/up/act (3 x intermediate), and
// the layer's K/V kept for the attention of later tokens.
int64_t activation_bytes_per_token(const ModelConfig& config);

// Default --max-request-tokens: min(max_position_embeddings,
//                                   kDefaultRequestMemoryBytes / activation_bytes_per_token).
int64_t default_max_request_tokens(const ModelConfig& config);

// How many prompt tokens of rows share one forward call by default (no --max-batch-tokens).
//
// Rows share a call to spread its fixed costs (thread start-up, one pass over the weights per
// layer), but a call's activations grow with its tokens, and once a layer's no longer fit the
// CPU's last-level cache every token costs more: on the small shape (hidden 512, 30 KiB of
// activations per token), the same rows of 1,302 tokens took 5.6 / 5.8 / 6.0 / 8.2 CPU-seconds
// in calls of 1,302 / 2,604 / 5,208 / 15,624 tokens (bench/results/2026-12-01-epyc-2vcpu.md, "Batch labeling"). So a
// call holds about kDefaultCallActivationBytes of activations:
//
//   call tokens = max(1, min(max_request_tokens, kDefaultCallActivationBytes / activation_bytes_per_token))
//
// A row longer than that runs alone in its call, split into requests only by the request limit.
inline constexpr int64_t kDefaultCallActivationBytes = int64_t{64} << 20;  // 64 MiB
int64_t default_call_tokens(const ModelConfig& config, int64_t max_request_tokens);

struct ItemRange {
  int64_t begin = 0;  // first item index
  int64_t end = 0;    // one past the last
  int64_t size() const { return end - begin; }
  bool operator==(const ItemRange&) const = default;
};

// Splits items (in input order) into the fewest contiguous groups with
// query_len + sum(item_lens in group) <= max_request_tokens. Throws Error (naming the
// lengths) when some item cannot fit even alone: query_len + item_len > max_request_tokens.
//
// Greedy (close a group only when the next item would overflow it) is optimal. Let greedy
// close its groups after items g_1 < g_2 < ... and any feasible split after o_1 < o_2 < ....
// Claim g_k >= o_k for every k ("greedy stays ahead"). k = 1: greedy's first group is the
// longest prefix that fits, and o_1's prefix fits. Step: if g_{k-1} >= o_{k-1}, the items
// g_{k-1}+1 .. o_k are a subset of the other split's k-th group o_{k-1}+1 .. o_k, so they fit
// with the query and greedy's k-th group reaches at least o_k. Hence greedy has finished
// all items by the time the other split has, and uses no more groups.
std::vector<ItemRange> split_into_requests(int64_t query_len, std::span<const int64_t> item_lens,
                                           int64_t max_request_tokens);

// The same greedy grouping without the check: an item that does not fit with the query is a
// group of its own (for counting a plan's requests, scoring/plan_cost.h).
std::vector<ItemRange> group_in_order(int64_t query_len, std::span<const int64_t> item_lens, int64_t max_request_tokens);

}  // namespace sift
