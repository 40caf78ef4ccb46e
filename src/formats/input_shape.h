#pragma once
// The rule of `sift score` and `sift batch` for an input none of whose rows could be used:
// the run fails (exit 1) instead of passing as a success of error lines, and says why. A
// run with at least one good row keeps its error lines and its exit status (--strict decides).
//
//   no row at all (an empty input)       "the input is empty: no row to score; ..."
//   every row failed                     "none of the 3 rows could be scored (their error lines
//                                         are in out.jsonl): <the input's shape, when known>"
//
// The shapes newcomers give most often are named from the input's first line that is not
// blank (the other lines of such an input fail alike):
//   a JSON array             "[{...}, {...}]" on one line, or pretty-printed from a "[" line
//   one object over lines    a first line "{" (pretty-printed JSON, not JSON lines)
//   CSV                      a first line with commas and no braces
//   other field names        an object without "query" or "items": "got fields candidates,
//                            question; expected id, query, items" (io/row_shape.h)
#include <cstdint>
#include <string>
#include <string_view>

namespace sift {

// A line of spaces, tabs and line-ending bytes only: not the line to name an input's shape by.
bool is_blank_line(std::string_view line);

// What the input's first non-blank line says of its shape, when it is one of those above;
// "" when it reads as a row to score, or its shape is none of them.
std::string input_shape_problem(std::string_view first_line);

// The end of a scoring run over an input: an Error (the message above, from `command`) when
// `rows` is 0 or every row failed. `first_line` is the input's first non-blank line ("" when it
// has none), `where` where the error lines are ("out.jsonl", "stdout").
void check_some_row_usable(std::string_view command, int64_t rows, int64_t errors, std::string_view first_line,
                           std::string_view where);

}  // namespace sift
