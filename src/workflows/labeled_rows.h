#pragma once
// Labeled rows for calibration, evaluation and training: the `sift score` input format
// (score_io.h) plus one reference label per item, and optionally the clean truth (what
// `sift synth` writes):
//   {"id": ..., "query": "...", "items": [...], "labels": [0/1 ...], "truth": [0/1 ...]}
// Labels are 0/1 or false/true (so `sift score` output labels read back as they are written).
// Blank lines are skipped. A line that cannot be read, whatever the reason (longer than
// --max-line-bytes, invalid JSON, a number beyond a double, a missing or mistyped field, a
// label count that differs from the items), is that line's RowError and the others are read.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/line_reader.h"
#include "formats/score_io.h"

namespace sift {

struct LabeledRow {
  int64_t line = 0;                        // 1-based line in the input
  ScoringRow row;
  std::vector<bool> labels;                // the reference, one per item
  std::optional<std::vector<bool>> truth;  // the clean truth, when the row has "truth"
};

struct RowError {
  int64_t line = 0;
  std::string message;
};

struct LabeledRows {
  std::vector<LabeledRow> rows;
  std::vector<RowError> errors;  // lines left out, in input order
};

// One line; Error saying what is wrong.
LabeledRow parse_labeled_row(std::string_view line);

// Every line of `in`. Error only when no row at all could be read (`name` says which input).
LabeledRows read_labeled_rows(LineReader& in, const std::string& name);

// The same for an input named on the command line (a file, or stdin for "" and "-").
LabeledRows read_labeled_rows(const std::string& path, int64_t max_line_bytes = kDefaultMaxLineBytes);

}  // namespace sift
