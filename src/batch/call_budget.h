#pragma once
// How many prompt tokens `sift batch` packs into one forward call by default.
//
// Rows share a call to spread its fixed costs (thread start-up, one pass over the weights per
// layer), but a call's activations grow with its tokens, and once a layer's no longer fit the
// CPU's last-level cache every token costs more: on the small shape (hidden 512, 30 KiB of
// activations per token), rows of 1,302 tokens took 5.5 / 5.7 / 6.0 / 8.2 CPU-seconds in calls
// of 1,302 / 2,604 / 5,208 / 15,624 tokens (bench/README.md). So calls hold about
// kBatchCallActivationBytes of activations, never more tokens than a request may have:
//
//   tokens = min(max request tokens, kBatchCallActivationBytes / activation_bytes_per_token)
//
// A row longer than that runs alone in its call, split only by the request limit. An explicit
// --max-batch-tokens replaces this (and, as in `sift score`, also caps requests).
#include <algorithm>
#include <cstdint>

#include "scoring/engine.h"
#include "scoring/request_sizing.h"

namespace sift::batch {

inline constexpr int64_t kBatchCallActivationBytes = int64_t{64} << 20;  // 64 MiB

inline int64_t batch_call_tokens(const ScoringEngine& engine, const ScoringOptions& options) {
  const PlanLimits limits = engine.limits(options);
  if (options.max_batch_tokens) return limits.max_call_tokens;
  const int64_t by_cache = kBatchCallActivationBytes / std::max<int64_t>(1, activation_bytes_per_token(engine.model().config()));
  return std::max<int64_t>(1, std::min(limits.max_call_tokens, by_cache));
}

}  // namespace sift::batch
