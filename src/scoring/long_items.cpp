#include "scoring/long_items.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "scoring/truncation.h"

namespace sift {
namespace {

bool is_character_start(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) != 0x80; }

// The last character start at or before byte `at` of `text` (0 when there is none after 0).
size_t window_char_floor(std::string_view text, size_t at) {
  while (at > 0 && at < text.size() && !is_character_start(text[at])) --at;
  return at;
}

// The start of the character after the one at byte `at`.
size_t window_next_char(std::string_view text, size_t at) {
  ++at;
  while (at < text.size() && !is_character_start(text[at])) ++at;
  return at;
}

// Characters (code points) in text[0, bytes), for byte offsets that only grow: each byte is
// counted once however many windows there are.
struct CodePointCursor {
  std::string_view text;
  size_t bytes = 0;
  int64_t characters = 0;
  int64_t to(size_t offset) {
    for (; bytes < offset; ++bytes) characters += is_character_start(text[bytes]) ? 1 : 0;
    return characters;
  }
};

// The longest text[begin, end), end <= stop on a character boundary, whose part has at most
// `target` tokens: end and the part's ids (end == begin when not one character fits). The
// text searched grows by doubling from about what `target` tokens hold, so a window of a long
// text never encodes much more than its own text.
FittingText longest_run_from(std::string_view text, size_t begin, size_t stop, int64_t target,
                             const std::function<TokenIds(std::string_view)>& encode) {
  const std::string_view rest = text.substr(begin, stop - begin);
  size_t probe = std::max<size_t>(256, static_cast<size_t>(target) * 8);
  while (probe < rest.size()) {
    const size_t cut = window_char_floor(rest, probe);
    if (static_cast<int64_t>(encode(rest.substr(0, cut)).size()) > target) break;
    probe *= 2;
  }
  const std::string_view searched = probe < rest.size() ? rest.substr(0, window_char_floor(rest, probe)) : rest;
  return longest_fitting_text(searched, TruncationDirection::Right, target, encode);
}

// About how many windows a text of `text_tokens` tokens needs (its first window holds C of
// them, each further one S more), to refuse an item far too long before any window is built.
int64_t estimated_windows(int64_t text_tokens, int64_t window_text_tokens, int64_t stride) {
  if (text_tokens <= window_text_tokens) return 1;
  return 1 + (text_tokens - window_text_tokens + stride - 1) / stride;
}

int64_t default_stride(int64_t window_text_tokens) { return std::max<int64_t>(1, window_text_tokens * 3 / 4); }

}  // namespace

std::optional<LongItems> parse_long_items(std::string_view name) {
  if (name == "error") return LongItems::Error;
  if (name == "truncate") return LongItems::Truncate;
  if (name == "chunk") return LongItems::Chunk;
  return std::nullopt;
}

std::string_view long_items_name(LongItems long_items) {
  switch (long_items) {
    case LongItems::Error: return "error";
    case LongItems::Truncate: return "truncate";
    case LongItems::Chunk: return "chunk";
  }
  return "?";
}

LongItemRule long_item_rule(const ScoringOptions& options, int64_t request_limit) {
  LongItemRule rule;
  rule.direction = options.truncation_direction;
  if (options.truncate == Truncate::Items && options.long_items && *options.long_items != LongItems::Truncate)
    fail_option("--truncate items cuts long items, which --long-items {} contradicts; give one of them",
                long_items_name(*options.long_items));
  rule.action = options.long_items.value_or(options.truncate == Truncate::Items ? LongItems::Truncate : LongItems::Error);
  if (rule.action == LongItems::Chunk && options.truncate == Truncate::Query)
    fail_option("--truncate query cuts the query to what the longest item leaves, and --long-items chunk sizes windows "
                "to what the query leaves; give one of them");
  if (rule.action != LongItems::Error && options.mode == ScoringMode::Generate)
    fail_option("--long-items {}: mode generate scores one whole prompt per request, not a query and its items; long "
                "items are cut or chunked in mis, independent and prefix", long_items_name(rule.action));
  if (options.max_item_tokens) {
    if (*options.max_item_tokens <= 0) fail_option("--max-item-tokens must be positive, got {}", *options.max_item_tokens);
    if (*options.max_item_tokens > request_limit)
      fail_option("--max-item-tokens {} is more than a request holds ({} tokens, the query included): a window or an "
                  "item must fit a request with its query", *options.max_item_tokens, request_limit);
    rule.max_item_tokens = options.max_item_tokens;
  }
  if (options.window_stride) {
    if (*options.window_stride <= 0) fail_option("--window-stride must be positive, got {}", *options.window_stride);
    rule.stride = options.window_stride;
  }
  if (options.max_windows <= 0) fail_option("--max-windows must be positive, got {}", options.max_windows);
  rule.max_windows = options.max_windows;
  return rule;
}

std::vector<TextWindow> text_windows(std::string_view text, int64_t window_tokens, int64_t stride,
                                     int64_t max_windows, const std::function<TokenIds(std::string_view)>& encode) {
  const auto template_tokens = static_cast<int64_t>(encode("").size());
  const int64_t window_text_tokens = window_tokens - template_tokens;
  if (window_text_tokens < 1)
    fail("a window of {} tokens cannot hold the item template ({} tokens) and any text", window_tokens,
         template_tokens);
  if (stride > window_text_tokens)
    fail("the window stride of {} tokens is more than the {} text tokens a window of {} holds: text between windows "
         "would be scored by none", stride, window_text_tokens, window_tokens);
  std::vector<TextWindow> windows;
  for (size_t begin = 0;;) {
    if (static_cast<int64_t>(windows.size()) == max_windows)
      fail("it needs more than --max-windows {} windows of {} tokens (stride {})", max_windows, window_tokens, stride);
    FittingText run = longest_run_from(text, begin, text.size(), window_tokens, encode);
    if (run.bytes == 0)
      fail("the character at byte {} with the item template is more than a window's {} tokens", begin, window_tokens);
    const size_t end = begin + run.bytes;
    windows.push_back({begin, end, std::move(run.ids)});
    if (end == text.size()) return windows;
    size_t next = begin + longest_run_from(text, begin, end, template_tokens + stride, encode).bytes;
    if (next == begin) next = window_next_char(text, begin);  // a stride shorter than one character
    begin = next;
  }
}

void apply_long_item_rule(const PromptEncoder& prompts, std::span<const std::string> items, int64_t limit,
                          const LongItemRule& rule, TokenizedRow& row, std::string_view flags,
                          std::string_view items_field) {
  const auto query_len = static_cast<int64_t>(row.query.size());
  const int64_t budget = std::min(limit - query_len, rule.max_item_tokens.value_or(limit));
  const auto name = [&](size_t i) {
    return items_field.empty() ? fmt::format("item {}", i) : fmt::format("{}[{}]", items_field, i);
  };
  // What makes item i long, in words.
  const auto too_long = [&](size_t i, int64_t len) {
    if (rule.max_item_tokens && len > *rule.max_item_tokens)
      return fmt::format("{} is {} tokens, more than --max-item-tokens {}", name(i), len, *rule.max_item_tokens);
    return fmt::format("the query ({} tokens) with {} ({} tokens) is {} tokens, more than the request limit of {} ({})",
                       query_len, name(i), len, query_len + len, limit, flags);
  };
  const auto encode = [&](std::string_view text) { return prompts.item_tokens(text); };
  std::vector<TokenIds> out;
  for (size_t i = 0; i < row.items.size(); ++i) {
    const auto len = static_cast<int64_t>(row.items[i].size());
    if (len <= budget) {
      out.push_back(std::move(row.items[i]));
      continue;
    }
    const auto template_tokens = static_cast<int64_t>(encode("").size());
    switch (rule.action) {
      case LongItems::Error:
        fail("{}: --long-items chunk scores a long item by windows, --long-items truncate cuts it", too_long(i, len));
      case LongItems::Truncate: {
        if (template_tokens > budget)
          fail("--truncate items (--long-items truncate): {}, and the {} tokens left for it cannot hold even its "
               "template ({} tokens): no cut of its text fits", too_long(i, len), std::max<int64_t>(budget, 0),
               template_tokens);
        TokenIds cut = longest_fitting(items[i], rule.direction, budget, encode);
        row.truncated_tokens += len - static_cast<int64_t>(cut.size());
        out.push_back(std::move(cut));
        break;
      }
      case LongItems::Chunk: {
        const int64_t window_text_tokens = budget - template_tokens;
        if (window_text_tokens < 1)
          fail("--long-items chunk: {}, and a window of the {} tokens left cannot hold the item template ({} tokens) "
               "and any text", too_long(i, len), std::max<int64_t>(budget, 0), template_tokens);
        const int64_t stride = rule.stride.value_or(default_stride(window_text_tokens));
        const int64_t expected = estimated_windows(len - template_tokens, window_text_tokens, stride);
        if (expected > rule.max_windows)
          fail("{} is {} tokens: about {} windows of {} tokens at stride {}, more than --max-windows {}", name(i), len,
               expected, budget, stride, rule.max_windows);
        std::vector<TextWindow> windows;
        try {
          windows = text_windows(items[i], budget, stride, rule.max_windows, encode);
        } catch (const Error& e) {
          fail("{}: {}", name(i), e.what());
        }
        ItemWindows& item = row.windows.emplace_back();
        item.item = static_cast<int64_t>(i);
        CodePointCursor begins{items[i]}, ends{items[i]};  // windows start and end in order
        for (TextWindow& window : windows) {
          item.spans.emplace_back(begins.to(window.begin), ends.to(window.end));
          out.push_back(std::move(window.ids));
        }
        row.window_tokens = budget;
        row.window_stride = stride;
        break;
      }
    }
  }
  row.items = std::move(out);
}

void fold_windows(std::span<const ItemWindows> windows, int64_t window_tokens, int64_t window_stride,
                  RowResult& result) {
  if (windows.empty() || !result.error.empty() || !result.windows.empty()) return;  // nothing to fold, or folded
  // An item's score, label and calibrated probability are its best window's (the map is
  // non-decreasing, so that probability is also the largest).
  const bool calibrated = !result.probabilities.empty();
  std::vector<std::optional<double>> scores, probabilities;
  std::vector<std::optional<bool>> labels;
  size_t at = 0;  // the next part of result.scores
  auto windowed = windows.begin();
  for (int64_t item = 0; at < result.scores.size(); ++item) {
    if (windowed == windows.end() || windowed->item != item) {
      scores.push_back(result.scores[at]);
      labels.push_back(result.labels[at]);
      if (calibrated) probabilities.push_back(result.probabilities[at]);
      ++at;
      continue;
    }
    ItemWindows folded = *windowed++;
    folded.best = 0;
    for (size_t k = 1; k < folded.spans.size(); ++k)
      if (*result.scores[at + k] > *result.scores[at + static_cast<size_t>(folded.best)]) folded.best = static_cast<int64_t>(k);
    scores.push_back(result.scores[at + static_cast<size_t>(folded.best)]);
    labels.push_back(result.labels[at + static_cast<size_t>(folded.best)]);
    if (calibrated) probabilities.push_back(result.probabilities[at + static_cast<size_t>(folded.best)]);
    at += folded.spans.size();
    result.windows.push_back(std::move(folded));
  }
  result.scores = std::move(scores);
  result.labels = std::move(labels);
  if (calibrated) result.probabilities = std::move(probabilities);
  result.window_tokens = window_tokens;
  result.window_stride = window_stride;
}

}  // namespace sift
