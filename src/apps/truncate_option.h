#pragma once
// --truncate and --truncation-direction (sift score, sift batch): what a row too long for a
// request gives up (ScoringOptions::truncate, sift/labeler.h), as TEI's truncate and
// truncation_direction.
#include <CLI/CLI.hpp>

#include <string>

#include "sift/labeler.h"

namespace sift::apps {

struct TruncateFlags {
  std::string truncate = "none", direction = "right";
};

inline void add_truncate_options(CLI::App* command, TruncateFlags& flags) {
  command->add_option("--truncate", flags.truncate,
                      "a row whose query with one of its items is longer than a request: none (default: the row's "
                      "error) | query (cut the query's text to what the longest item leaves) | items (cut each item's "
                      "text that does not fit); usage.truncated_tokens counts what was cut")
      ->check(CLI::IsMember({"none", "query", "items"}));
  command->add_option("--truncation-direction", flags.direction,
                      "right (default: cut the end of the text) | left (cut its beginning)")
      ->check(CLI::IsMember({"right", "left"}));
}

inline void apply_truncate_flags(const TruncateFlags& flags, ScoringOptions& options) {
  options.truncate = *parse_truncate(flags.truncate);
  options.truncation_direction = *parse_truncation_direction(flags.direction);
}

}  // namespace sift::apps
