#pragma once
// Packed generation's answer list, parsed back to per-item decisions.
//
// The model is asked for one line per candidate, "<number>: <yes>" or "<number>: <no>"
// (numbers 1..N as listed in the prompt). Parsing is strict and never guesses:
//   - a line counts when it is  <digits> ':' <answer>  with optional spaces around each
//     part, and <answer> is exactly the artifact's yes or no string, less its own spaces
//     (a " YES" answer token is written "1:  YES", as format_answer_list writes it);
//   - any other line is ignored;
//   - an item with no counted line, or with lines that disagree, is unparsed (nullopt).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sift {

std::vector<std::optional<bool>> parse_answer_list(std::string_view text, int64_t n_items, std::string_view yes,
                                                   std::string_view no);

// The answer list a perfect model would write: "1: <yes|no>\n2: ...\n".
std::string format_answer_list(const std::vector<bool>& decisions, std::string_view yes, std::string_view no);

}  // namespace sift
