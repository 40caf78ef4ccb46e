#include "formats/input_shape.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/json_parse.h"
#include "io/row_shape.h"

namespace sift {
namespace {

constexpr std::string_view kJsonLines = "JSON lines: one row per line, {\"id\", \"query\", \"items\"}";

std::string_view trimmed(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

}  // namespace

bool is_blank_line(std::string_view line) { return trimmed(line).empty(); }

std::string input_shape_problem(std::string_view first_line) {
  const std::string_view line = trimmed(first_line);
  if (line.empty()) return "";
  if (line.front() == '[')
    return fmt::format("the input is one JSON array, not {} (`jq -c '.[]'` writes an array's elements so)", kJsonLines);
  if (line == "{")
    return fmt::format("the input is JSON spread over several lines, not {} (`jq -c .` writes one object per line)",
                       kJsonLines);
  nlohmann::json object;
  try {
    object = parse_json(line, "");
  } catch (const Error&) {
    if (line.find(',') != std::string_view::npos && line.find_first_of("{}") == std::string_view::npos)
      return fmt::format("the input looks like CSV (its first line has commas and no braces), not {}", kJsonLines);
    return "";
  }
  if (!object.is_object() || row_shape(object) == RowShape::RowToScore) return "";
  return row_to_score_fields_hint(object);
}

void check_some_row_usable(std::string_view command, int64_t rows, int64_t errors, std::string_view first_line,
                           std::string_view where) {
  if (rows == 0) fail("{}: the input is empty: no row to score; expected {}", command, kJsonLines);
  if (errors < rows) return;
  std::string why = input_shape_problem(first_line);
  if (is_blank_line(first_line)) why = fmt::format("the input holds only blank lines; expected {}", kJsonLines);
  const std::string failed = rows == 1 ? fmt::format("the input's one row could not be scored (its error line is in {})", where)
                                       : fmt::format("none of the input's {} rows could be scored (their error lines are in {})",
                                                     rows, where);
  fail("{}: {}{}{}", command, failed, why.empty() ? "" : ": ", why);
}

}  // namespace sift
