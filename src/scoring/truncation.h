#pragma once
// Truncation of a row too long for a request (ScoringOptions::truncate, sift/labeler.h):
// user text is cut, never template text, until every item fits a request with its query:
//
//   Query: Lq' + max_i L_i <= limit           the query's text cut, shared by every item
//   Items: Lq + L_i' <= limit, for each i     only the items over the limit cut
//
// where limit = min(max_request_tokens, max_call_tokens, max_position_embeddings). A text is
// cut at a character (UTF-8 code point) boundary: the longest prefix (Right) or suffix (Left)
// whose part, rendered and tokenized as one text like any other, fits. The lengths of a part
// are found by binary search over the characters kept (log2(characters) encodings of the
// part, only for rows that need it).
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sift/labeler.h"
#include "scoring/plan.h"
#include "scoring/prompt.h"

namespace sift {

// The longest prefix (Right) or suffix (Left) of `text`, in whole characters, whose part
// `encode` makes at most `target` tokens: its ids. `encode("")` must fit (the caller checks).
TokenIds longest_fitting(std::string_view text, TruncationDirection direction, int64_t target,
                         const std::function<TokenIds(std::string_view)>& encode);

// The same, with how many bytes of `text` it keeps.
struct FittingText {
  size_t bytes = 0;
  TokenIds ids;
};
FittingText longest_fitting_text(std::string_view text, TruncationDirection direction, int64_t target,
                                 const std::function<TokenIds(std::string_view)>& encode);

// Truncate::Query: the query of `row` (query and items tokenized from `query` and the items)
// cut to what its longest item leaves of `limit`; adds the prompt tokens cut to
// row.truncated_tokens. Throws Error when even the whole text cannot make it fit (the
// template alone is too long), naming the lengths. Items are cut by the long-item rule
// (scoring/long_items.h: LongItems::Truncate, which Truncate::Items spells).
void truncate_query_to_fit(const PromptEncoder& prompts, std::string_view query, int64_t limit,
                           TruncationDirection direction, TokenizedRow& row);

// The same rule over parts already tokenized (a request that may give token ids, as `sift
// serve`'s /v1/score does): Lq = bos + |query|, L_i = |items[i]|, and every Lq + L_i <= limit
// after the cut, whichever order the prompt puts them in. `cut(part, target)` gives the part's
// ids cut to at most `target` tokens (part -1: the query; i: item i), a text cut as above.
// Truncate::None cuts nothing. Returns the tokens cut; throws Error when no cut can make them
// fit, naming the lengths.
int64_t truncate_parts_to_fit(Truncate truncate, int64_t limit, int64_t bos, TokenIds& query,
                              std::vector<TokenIds>& items,
                              const std::function<TokenIds(int part, int64_t target)>& cut);

}  // namespace sift
