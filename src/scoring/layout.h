#pragma once
// Request layouts: the token ids, RoPE positions and attention segments of one forward
// call, for each execution mode. Pure host-side bookkeeping; the model never sees a mask.
//
// Multi-item (mis), one packed sequence [q; c_1; ...; c_N], T = Lq + sum L_i tokens:
//
//   ids       : q_0 .. q_{Lq-1} | c_1,0 .. c_1,L1-1 | c_2,0 .. | ...
//   positions : 0   .. Lq-1     | Lq .. Lq+L1-1     | Lq .. Lq+L2-1 | ...   (restart at Lq)
//   segments  : {0, Lq, 0}      | {Lq+o_1, L1, Lq}  | {Lq+o_2, L2, Lq} | ...
//               (o_i = L_1 + ... + L_{i-1}: item i's offset among the item tokens)
//   logit_rows: Lq+o_i+L_i-1 for each item (the answer position, last token of item i)
//
// so item i's tokens see all of q and their own earlier tokens, never another item: each
// item's hidden states are those of the separate prompt [q; c_i].
//
// Independent batch, N sequences [q; c_i] side by side in one call, nothing shared:
//   segments {s_i, Lq+L_i, 0}, positions 0 .. Lq+L_i-1 each, logit row s_i+Lq+L_i-1.
//
// Item against a cached query (prefix; the KV cache holds q, C = Lq):
//   segments {0, L_i, Lq}, positions Lq .. Lq+L_i-1, logit row L_i-1.
#include <cstdint>
#include <span>
#include <vector>

#include "model/model.h"

namespace sift {

using TokenIds = std::vector<int32_t>;

struct RequestLayout {
  std::vector<int32_t> ids;
  std::vector<int32_t> positions;
  std::vector<Segment> segments;
  std::vector<int32_t> logit_rows;  // one per item, in item order

  int64_t n_tokens() const { return static_cast<int64_t>(ids.size()); }
  // A view for Model::forward; the layout and vocab_rows must outlive it.
  ForwardRequest forward_request(std::span<const int32_t> vocab_rows) const;
};

// items: the item parts (each non-empty) scored in this request, in order.
RequestLayout multi_item_layout(std::span<const int32_t> query, std::span<const TokenIds> items);
RequestLayout independent_layout(std::span<const int32_t> query, std::span<const TokenIds> items);
RequestLayout cached_query_item_layout(int64_t query_len, std::span<const int32_t> item);
// A plain causal prompt at positions first_position.. (query prefill, generation prompt).
RequestLayout causal_layout(std::span<const int32_t> ids, int64_t first_position, int64_t context_len);

}  // namespace sift
