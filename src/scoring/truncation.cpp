#include "scoring/truncation.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "core/error.h"
#include "scoring/plan.h"

namespace sift {
namespace {

// The byte offsets where the characters of `text` (valid UTF-8: it was encoded already)
// start, and its length at the end: boundaries[k] is the length of the first k characters.
std::vector<size_t> character_boundaries(std::string_view text) {
  std::vector<size_t> boundaries;
  for (size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) boundaries.push_back(i);
  boundaries.push_back(text.size());
  return boundaries;
}

int64_t longest(std::span<const TokenIds> items) {
  int64_t n = 0;
  for (const TokenIds& item : items) n = std::max(n, static_cast<int64_t>(item.size()));
  return n;
}

}  // namespace

TokenIds longest_fitting(std::string_view text, TruncationDirection direction, int64_t target,
                         const std::function<TokenIds(std::string_view)>& encode) {
  return longest_fitting_text(text, direction, target, encode).ids;
}

FittingText longest_fitting_text(std::string_view text, TruncationDirection direction, int64_t target,
                                 const std::function<TokenIds(std::string_view)>& encode) {
  const std::vector<size_t> boundaries = character_boundaries(text);
  const size_t n_characters = boundaries.size() - 1;
  const auto kept = [&](size_t k) {  // the text of k characters kept
    return direction == TruncationDirection::Right ? text.substr(0, boundaries[k])
                                                   : text.substr(boundaries[n_characters - k]);
  };
  // Invariant: keeping `low` characters fits; keeping `high` + 1 or more was not found to.
  size_t low = 0, high = n_characters;
  TokenIds best = encode(kept(0));
  while (low < high) {
    const size_t middle = low + (high - low + 1) / 2;
    TokenIds ids = encode(kept(middle));
    if (static_cast<int64_t>(ids.size()) <= target) {
      low = middle;
      best = std::move(ids);
    } else {
      high = middle - 1;
    }
  }
  return {kept(low).size(), std::move(best)};
}

void truncate_query_to_fit(const PromptEncoder& prompts, std::string_view query, int64_t limit,
                           TruncationDirection direction, TokenizedRow& row) {
  const int64_t query_len = static_cast<int64_t>(row.query.size());
  const int64_t longest_item = longest(row.items);
  if (query_len + longest_item <= limit) return;
  const int64_t target = limit - longest_item;
  const auto encode = [&](std::string_view text) { return prompts.query_tokens(text); };
  const int64_t empty = static_cast<int64_t>(encode("").size());
  if (empty > target)
    fail("--truncate query: the longest item ({} tokens) leaves {} tokens of the request limit of {} for the query, "
         "but its template alone is {}", longest_item, std::max<int64_t>(target, 0), limit, empty);
  row.query = longest_fitting(query, direction, target, encode);
  row.truncated_tokens += query_len - static_cast<int64_t>(row.query.size());
}

}  // namespace sift

namespace sift {

std::optional<Truncate> parse_truncate(std::string_view name) {
  if (name == "none") return Truncate::None;
  if (name == "query") return Truncate::Query;
  if (name == "items") return Truncate::Items;
  return std::nullopt;
}

std::optional<TruncationDirection> parse_truncation_direction(std::string_view name) {
  if (name == "right") return TruncationDirection::Right;
  if (name == "left") return TruncationDirection::Left;
  return std::nullopt;
}

std::string_view truncate_name(Truncate truncate) {
  switch (truncate) {
    case Truncate::None: return "none";
    case Truncate::Query: return "query";
    case Truncate::Items: return "items";
  }
  return "?";
}

std::string_view truncation_direction_name(TruncationDirection direction) {
  return direction == TruncationDirection::Right ? "right" : "left";
}

int64_t truncate_parts_to_fit(Truncate truncate, int64_t limit, int64_t bos, TokenIds& query,
                              std::vector<TokenIds>& items,
                              const std::function<TokenIds(int part, int64_t target)>& cut) {
  const int64_t query_len = bos + static_cast<int64_t>(query.size());
  int64_t cut_tokens = 0;
  if (truncate == Truncate::Query) {
    const int64_t longest_item = longest(items);
    if (query_len + longest_item <= limit) return 0;
    const int64_t target = limit - longest_item - bos;
    if (target < 0)
      fail("truncate query: the longest item ({} tokens) leaves no room for the query within the request limit of {}",
           longest_item, limit);
    TokenIds kept = cut(-1, target);
    cut_tokens = static_cast<int64_t>(query.size() - kept.size());
    query = std::move(kept);
  } else if (truncate == Truncate::Items) {
    const int64_t target = limit - query_len;
    for (size_t i = 0; i < items.size(); ++i) {
      if (query_len + static_cast<int64_t>(items[i].size()) <= limit) continue;
      if (target <= 0)
        fail("truncate items: the query ({} tokens) leaves no tokens of the request limit of {} for an item", query_len,
             limit);
      TokenIds kept = cut(static_cast<int>(i), target);
      cut_tokens += static_cast<int64_t>(items[i].size() - kept.size());
      items[i] = std::move(kept);
    }
  }
  return cut_tokens;
}

}  // namespace sift
