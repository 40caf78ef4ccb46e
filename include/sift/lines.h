#pragma once
// JSON lines as `sift score` and `sift batch` read and write them (link sift::formats, the
// library of sift's file formats; the engine itself, sift/labeler.h, knows none).
//
//   input line  : {"id": ..., "query": "...", "items": ["...", {"id": ..., "text": "..."}], ...other fields}
//   output line : {"id", "item_ids"?, "scores", "labels", "usage", ...other fields, "artifact"}
//                 or, for a line that cannot be scored, {"line": n, "id"?: ..., "error": "..."}
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sift/labeler.h"

namespace sift {

// A line of a JSON-lines file and its number in the file (from 1).
struct NumberedLine {
  std::string_view text;  // without its "\n"
  int64_t number = 0;
};

// `sift batch`'s output, byte for byte: each input line gives the line `sift batch` writes for
// it (no "\n"), in order: the scored line, the row's other fields and "artifact": {"version",
// "threshold"}, or the error line. Rows share forward calls as in Labeler::score_rows.
// echo: the lines of `sift batch --echo` (the whole row as read, then its scores).
std::vector<std::string> score_lines(const Labeler& labeler, std::span<const NumberedLine> lines,
                                     const ScoringOptions& options = {}, bool echo = false);

}  // namespace sift
