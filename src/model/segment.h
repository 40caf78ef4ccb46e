#pragma once
// What a token sees: the attention structure of a forward call, stated once (docs/engine.md).
//
// Key space of a call = the session's cached keys 0..C-1, then the call's T new tokens at
// C..C+T-1. The new tokens are cut into segments; token start+j of a segment sees
//
//   keys [context_begin, context_end)   its context: a query, a cached prompt (may be empty)
//   keys C+start .. C+start+j           its own segment up to itself, causally
//
// in that order. The context lies before the segment (context_end <= C + start), so a call
// can hold many independent sequences side by side and nothing ever builds a T x T mask.
//
//   plain causal prompt of T tokens        : {0, T, [0, 0)}
//   multi-item [q; c_1..c_N] (scoring/plan.h): {0, Lq, [0,0)}, {Lq+o_i, L_i, [0, Lq)} per item
//   item against a cached query (prefix)   : cache holds q (C = Lq); {0, L_i, [0, Lq)}
//   one decode step                        : {0, 1, [0, C)}
#include <cstdint>

#include "kernels/attention.h"

namespace sift {

// Keys [begin, end) of a call's key space.
struct KeyRange {
  int32_t begin = 0;
  int32_t end = 0;
  int64_t size() const { return end - begin; }
};

struct Segment {
  int32_t start = 0;          // first new token of the segment (0-based among the call's tokens)
  int32_t len = 0;            // tokens in the segment
  int32_t context_begin = 0;  // keys [context_begin, context_end) every token of it also sees
  int32_t context_end = 0;
};

// The keys token `start + j` of `segment` sees, with `n_cached` keys before the call.
inline VisibleKeys visible_keys(const Segment& segment, int32_t j, int64_t n_cached) {
  const auto own_begin = static_cast<int32_t>(n_cached + segment.start);
  return {segment.context_begin, segment.context_end, own_begin, own_begin + j + 1};
}

}  // namespace sift
