#pragma once
// Long items: the ONE place that decides what happens to an item too long for a request
// (ScoringOptions::long_items, sift/labeler.h). Every scoring entry point that renders items
// with the labeler's templates goes through apply_long_item_rule: sift score, sift batch,
// the C++ API and the Python package (LoadedLabeler::tokenize), sift serve's /v1/label and
// /v1/rerank. For a row with query part Lq tokens and item parts L_i tokens:
//
//   limit  = min(max_request_tokens, max_call_tokens, max_position_embeddings)
//   budget = min(limit - Lq, max_item_tokens)          (max_item_tokens when given)
//   item i is long when L_i > budget, and then
//     Error    : the row's error, naming the item and the lengths
//     Truncate : its text cut (whole characters, the end or the beginning as
//                truncation_direction says) to the longest whose part has <= budget tokens
//     Chunk    : windows: with T = the template's own tokens (the part of an empty text),
//                C = budget - T the text tokens a window holds, S the stride (default 3C/4):
//                  window k = the item template rendered around text[b_k, e_k), an ordinary
//                             item part (the answer position last), e_k the furthest character
//                             with at most `budget` tokens in the part
//                  b_0 = 0, b_{k+1} = the furthest character after b_k with at most T + S
//                             tokens in the part of text[b_k, b_{k+1}) (at least one character on)
//                  until e_k is the end of the text
//                so consecutive windows overlap by about C - S text tokens and no text is left
//                out. The windows take the item's place in the row (one item part each); once
//                scored, the item's score is the greatest of its windows' P(YES) (the first
//                such window is its best) and its label that score's (fold_windows).
//
// The windows of a row are items of its MIS requests beside its other items, so they share
// the query's keys: a document of n windows costs Lq + sum_k L_k prefill tokens when its
// windows fit one request, and one more Lq per further request the plan splits them into
// (scoring/plan_cost.h: requests x Lq + sum L_i), unless the query-KV cache holds the query.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scoring/plan.h"
#include "scoring/prompt.h"
#include "sift/labeler.h"

namespace sift {

// What the options say of a long item, checked.
struct LongItemRule {
  LongItems action = LongItems::Error;
  std::optional<int64_t> max_item_tokens;
  std::optional<int64_t> stride;
  int64_t max_windows = kDefaultMaxWindows;
  TruncationDirection direction = TruncationDirection::Right;
};

// The rule of `options` (LongItems: long_items, else Truncate for Truncate::Items, else
// Error) for requests of at most `request_limit` tokens; an OptionError names a contradiction
// (long_items against --truncate items, chunk with --truncate query, mode generate) or a bad
// size (max_item_tokens above the request limit, a stride or max_windows below 1).
LongItemRule long_item_rule(const ScoringOptions& options, int64_t request_limit);

// One window of an item's text: bytes [begin, end) and its item part.
struct TextWindow {
  size_t begin = 0, end = 0;
  TokenIds ids;
};

// The windows of `text` (valid UTF-8) whose parts `encode` makes (the item template around a
// text), at most `window_tokens` tokens each, starting `stride` text tokens apart (the rule
// above). Throws Error when a window cannot hold the template and one character, when the
// stride is more than a window's text tokens, or when more than max_windows windows are needed.
std::vector<TextWindow> text_windows(std::string_view text, int64_t window_tokens, int64_t stride,
                                     int64_t max_windows, const std::function<TokenIds(std::string_view)>& encode);

// Applies `rule` to `row` (tokenized from `items` with `prompts`; its query as it will run):
// a long item is cut, replaced by its windows (row.windows says which), or the Error thrown,
// which names it as `items_field`[i] ("item" when empty: "item 3"). `flags` names the options
// that set the request limit, for errors.
void apply_long_item_rule(const PromptEncoder& prompts, std::span<const std::string> items, int64_t limit,
                          const LongItemRule& rule, TokenizedRow& row, std::string_view flags,
                          std::string_view items_field = "");

// The result of a row whose items included windows (`windows`, as apply_long_item_rule left
// them), scored over every window, made one score, label and calibrated probability per item: the greatest of each
// windowed item's window scores; result.windows says each one's windows and best. A result
// with an error, or folded already, is left as it is.
void fold_windows(std::span<const ItemWindows> windows, int64_t window_tokens, int64_t window_stride,
                  RowResult& result);

}  // namespace sift
