#include "scoring/layout.h"

#include "core/error.h"

namespace sift {
namespace {

int32_t as_i32(int64_t value) { return static_cast<int32_t>(value); }

void append_run(RequestLayout& layout, std::span<const int32_t> ids, int64_t first_position) {
  for (size_t k = 0; k < ids.size(); ++k) {
    layout.ids.push_back(ids[k]);
    layout.positions.push_back(as_i32(first_position + static_cast<int64_t>(k)));
  }
}

void require_nonempty_items(std::span<const TokenIds> items) {
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].empty()) fail("item {} has no tokens: the item part must end at an answer position", i);
}

int64_t total_tokens(std::span<const int32_t> query, std::span<const TokenIds> items, bool query_per_item) {
  int64_t n = query_per_item ? 0 : static_cast<int64_t>(query.size());
  for (const TokenIds& item : items)
    n += static_cast<int64_t>(item.size()) + (query_per_item ? static_cast<int64_t>(query.size()) : 0);
  return n;
}

}  // namespace

ForwardRequest RequestLayout::forward_request(std::span<const int32_t> vocab_rows) const {
  ForwardRequest request;
  request.ids = ids;
  request.positions = positions;
  request.segments = segments;
  request.logit_rows = logit_rows;
  request.vocab_rows = vocab_rows;
  return request;
}

RequestLayout multi_item_layout(std::span<const int32_t> query, std::span<const TokenIds> items) {
  require_nonempty_items(items);
  const int64_t query_len = static_cast<int64_t>(query.size());
  RequestLayout layout;
  const int64_t n_tokens = total_tokens(query, items, false);
  layout.ids.reserve(n_tokens);
  layout.positions.reserve(n_tokens);
  layout.segments.reserve(items.size() + 1);
  layout.logit_rows.reserve(items.size());
  if (query_len > 0) layout.segments.push_back({0, as_i32(query_len), 0});
  append_run(layout, query, 0);
  for (const TokenIds& item : items) {
    const int64_t start = layout.n_tokens();
    const int64_t item_len = static_cast<int64_t>(item.size());
    layout.segments.push_back({as_i32(start), as_i32(item_len), as_i32(query_len)});
    append_run(layout, item, query_len);  // positions restart at Lq for every item
    layout.logit_rows.push_back(as_i32(start + item_len - 1));
  }
  return layout;
}

RequestLayout independent_layout(std::span<const int32_t> query, std::span<const TokenIds> items) {
  require_nonempty_items(items);
  const int64_t query_len = static_cast<int64_t>(query.size());
  RequestLayout layout;
  const int64_t n_tokens = total_tokens(query, items, true);
  layout.ids.reserve(n_tokens);
  layout.positions.reserve(n_tokens);
  for (const TokenIds& item : items) {
    const int64_t start = layout.n_tokens();
    const int64_t sequence_len = query_len + static_cast<int64_t>(item.size());
    layout.segments.push_back({as_i32(start), as_i32(sequence_len), 0});  // sees only itself
    append_run(layout, query, 0);
    append_run(layout, item, query_len);
    layout.logit_rows.push_back(as_i32(start + sequence_len - 1));
  }
  return layout;
}

RequestLayout cached_query_item_layout(int64_t query_len, std::span<const int32_t> item) {
  if (item.empty()) fail("item has no tokens: the item part must end at an answer position");
  RequestLayout layout;
  append_run(layout, item, query_len);
  layout.segments.push_back({0, as_i32(layout.n_tokens()), as_i32(query_len)});
  layout.logit_rows.push_back(as_i32(layout.n_tokens() - 1));
  return layout;
}

RequestLayout causal_layout(std::span<const int32_t> ids, int64_t first_position, int64_t context_len) {
  RequestLayout layout;
  append_run(layout, ids, first_position);
  if (!ids.empty()) layout.segments.push_back({0, as_i32(layout.n_tokens()), as_i32(context_len)});
  return layout;
}

}  // namespace sift
