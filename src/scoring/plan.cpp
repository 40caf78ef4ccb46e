#include "scoring/plan.h"

#include <algorithm>

#include "core/error.h"

namespace sift {
namespace {

int32_t as_i32(int64_t value) { return static_cast<int32_t>(value); }

}  // namespace

ForwardRequest ForwardCall::request(std::span<const int32_t> vocab_rows) const {
  return {.ids = ids, .positions = positions, .segments = segments, .logit_rows = logit_rows, .vocab_rows = vocab_rows};
}

KeyRange append_run(ForwardCall& call, std::span<const int32_t> ids, int64_t first_position, KeyRange context) {
  const int64_t start = call.n_tokens();
  const KeyRange own{as_i32(call.key_offset + start), as_i32(call.key_offset + start + static_cast<int64_t>(ids.size()))};
  if (ids.empty()) return own;
  call.segments.push_back({.start = as_i32(start), .len = as_i32(static_cast<int64_t>(ids.size())),
                           .context_begin = context.begin, .context_end = context.end});
  call.ids.insert(call.ids.end(), ids.begin(), ids.end());
  for (size_t k = 0; k < ids.size(); ++k) call.positions.push_back(as_i32(first_position + static_cast<int64_t>(k)));
  return own;
}

void append_items(ForwardCall& call, KeyRange query_keys, std::span<const TokenIds> items, int32_t row,
                  int32_t first_item) {
  const int64_t query_len = query_keys.size();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].empty()) fail("item {} has no tokens: the item part must end at an answer position", first_item + i);
    append_run(call, items[i], query_len, query_keys);  // positions restart at Lq; sees the query and itself
    call.logit_rows.push_back(as_i32(call.n_tokens() - 1));
    call.slots.push_back({row, as_i32(first_item + static_cast<int64_t>(i))});
  }
}

void append_request(ForwardCall& call, std::span<const int32_t> query, std::span<const TokenIds> items,
                    int32_t row, int32_t first_item) {
  const int64_t start = call.n_tokens();
  const KeyRange query_keys = append_run(call, query, 0, {});
  append_items(call, query_keys, items, row, first_item);
  call.requests.push_back({row, call.n_tokens() - start});
}

void check_row_fits(int64_t max_positions, const TokenRow& row, int64_t request_limit, std::string_view flags) {
  const int64_t query_len = static_cast<int64_t>(row.query.size());
  for (size_t i = 0; i < row.items.size(); ++i) {
    const int64_t item_len = static_cast<int64_t>(row.items[i].size());
    if (item_len == 0) fail("item {} has no tokens: the item part must end at an answer position", i);
    if (query_len + item_len > max_positions)
      fail("the query ({} tokens) with item {} ({} tokens) is {} tokens, more than the model's "
           "max_position_embeddings {}", query_len, i, item_len, query_len + item_len, max_positions);
    if (query_len + item_len > request_limit)
      fail("the query ({} tokens) with item {} ({} tokens) is {} tokens, more than the request limit of {} ({})",
           query_len, i, item_len, query_len + item_len, request_limit, flags);
  }
}

}  // namespace sift
