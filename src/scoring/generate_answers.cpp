#include "scoring/generate_answers.h"

#include <charconv>

namespace sift {
namespace {

std::string_view trim(std::string_view text) {
  const char* spaces = " \t\r";
  size_t first = text.find_first_not_of(spaces);
  if (first == std::string_view::npos) return {};
  size_t last = text.find_last_not_of(spaces);
  return text.substr(first, last - first + 1);
}

}  // namespace

std::vector<std::optional<bool>> parse_answer_list(std::string_view text, int64_t n_items, std::string_view yes,
                                                   std::string_view no) {
  std::vector<std::optional<bool>> decisions(static_cast<size_t>(n_items));
  std::vector<bool> conflicting(static_cast<size_t>(n_items), false);
  size_t line_start = 0;
  while (line_start <= text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = trim(text.substr(line_start, line_end - line_start));
    line_start = line_end + 1;

    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view number = trim(line.substr(0, colon));
    std::string_view answer = trim(line.substr(colon + 1));
    int64_t index = 0;
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), index);
    if (number.empty() || error != std::errc() || end != number.data() + number.size()) continue;
    if (index < 1 || index > n_items) continue;
    std::optional<bool> decision;
    if (answer == trim(yes)) decision = true;
    else if (answer == trim(no)) decision = false;
    else continue;

    const size_t item = static_cast<size_t>(index - 1);
    if (decisions[item] && *decisions[item] != *decision) conflicting[item] = true;
    decisions[item] = decision;
  }
  for (size_t i = 0; i < decisions.size(); ++i)
    if (conflicting[i]) decisions[i].reset();
  return decisions;
}

std::string format_answer_list(const std::vector<bool>& decisions, std::string_view yes, std::string_view no) {
  std::string text;
  for (size_t i = 0; i < decisions.size(); ++i) {
    text += std::to_string(i + 1);
    text += ": ";
    text += decisions[i] ? yes : no;
    text += '\n';
  }
  return text;
}

}  // namespace sift
