#include "scoring/request_sizing.h"

#include <algorithm>

#include "core/error.h"

namespace sift {

int64_t activation_bytes_per_token(const ModelConfig& c) {
  const int64_t floats = 3 * c.hidden_size + c.q_dim() + 2 * c.kv_dim() + 3 * c.intermediate_size +
                         2 * c.kv_dim();
  return floats * static_cast<int64_t>(sizeof(float));
}

int64_t default_max_request_tokens(const ModelConfig& config) {
  const int64_t by_memory = kDefaultRequestMemoryBytes / std::max<int64_t>(1, activation_bytes_per_token(config));
  return std::max<int64_t>(1, std::min(config.max_position_embeddings, by_memory));
}

int64_t default_call_tokens(const ModelConfig& config, int64_t max_request_tokens) {
  const int64_t by_cache = kDefaultCallActivationBytes / std::max<int64_t>(1, activation_bytes_per_token(config));
  return std::max<int64_t>(1, std::min(max_request_tokens, by_cache));
}

std::vector<ItemRange> split_into_requests(int64_t query_len, std::span<const int64_t> item_lens,
                                           int64_t max_request_tokens) {
  if (max_request_tokens <= 0) fail("--max-request-tokens must be positive, got {}", max_request_tokens);
  const int64_t n_items = static_cast<int64_t>(item_lens.size());
  for (int64_t i = 0; i < n_items; ++i)
    if (query_len + item_lens[i] > max_request_tokens)
      fail("the query ({} tokens) with item {} ({} tokens) is {} tokens, more than the request limit of {} "
           "(--max-request-tokens)",
           query_len, i, item_lens[i], query_len + item_lens[i], max_request_tokens);
  return group_in_order(query_len, item_lens, max_request_tokens);
}

std::vector<ItemRange> group_in_order(int64_t query_len, std::span<const int64_t> item_lens, int64_t max_request_tokens) {
  const int64_t n_items = static_cast<int64_t>(item_lens.size());
  std::vector<ItemRange> groups;
  int64_t group_tokens = query_len;
  for (int64_t i = 0; i < n_items; ++i) {
    if (groups.empty() || group_tokens + item_lens[i] > max_request_tokens) {
      groups.push_back({i, i});
      group_tokens = query_len;
    }
    groups.back().end = i + 1;
    group_tokens += item_lens[i];
  }
  return groups;
}

}  // namespace sift
