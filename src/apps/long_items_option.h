#pragma once
// --long-items, --max-item-tokens, --window-stride, --max-windows (sift score, sift batch,
// sift serve): what happens to an item too long for a request (scoring/long_items.h, the one
// rule; --truncate items is the same as --long-items truncate).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "sift/labeler.h"

namespace sift::apps {

struct LongItemsFlags {
  std::string long_items;  // "" : the command's default
  std::optional<int64_t> max_item_tokens, window_stride;
  int64_t max_windows = kDefaultMaxWindows;
};

// `default_words` says what happens when --long-items is not given.
inline void add_long_items_options(CLI::App* command, LongItemsFlags& flags, const std::string& default_words) {
  command->add_option("--long-items", flags.long_items,
                      "an item longer than --max-item-tokens or than a request holds with its query: error (the row's "
                      "error) | truncate (cut its text, as --truncate items) | chunk (score it by overlapping windows "
                      "of its text, each an item beside the others in the row's requests; its score is the greatest "
                      "of its windows'). Default: " + default_words)
      ->check(CLI::IsMember({"error", "truncate", "chunk"}));
  command->add_option("--max-item-tokens", flags.max_item_tokens,
                      "an item part (its template included) longer than this many prompt tokens is long, and a window "
                      "holds at most this many; default: what a request leaves beside the query")
      ->check(CLI::PositiveNumber);
  command->add_option("--window-stride", flags.window_stride,
                      "--long-items chunk: text tokens from one window's start to the next's; default 3/4 of the text "
                      "tokens a window holds (windows overlap by a quarter)")
      ->check(CLI::PositiveNumber);
  command->add_option("--max-windows", flags.max_windows,
                      "--long-items chunk: an item that needs more windows than this is its row's error (default 256)")
      ->check(CLI::PositiveNumber);
}

inline std::optional<LongItems> long_items_of(const LongItemsFlags& flags) {
  if (flags.long_items.empty()) return std::nullopt;
  return parse_long_items(flags.long_items);
}

inline void apply_long_items_flags(const LongItemsFlags& flags, ScoringOptions& options) {
  options.long_items = long_items_of(flags);
  options.max_item_tokens = flags.max_item_tokens;
  options.window_stride = flags.window_stride;
  options.max_windows = flags.max_windows;
}

}  // namespace sift::apps
