#pragma once
// Labeled rows for calibration and evaluation: the `sift score` input format (score_io.h)
// plus one reference label per item, and optionally the clean truth (what `sift synth`
// writes):
//   {"id": ..., "query": "...", "items": [...], "labels": [0/1 ...], "truth": [0/1 ...]}
// Labels are 0/1 or false/true. Blank lines are skipped. Every problem is an Error naming
// file:line.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "scoring/score_io.h"

namespace sift {

struct LabeledRow {
  int64_t line = 0;                        // 1-based line in the input file
  ScoringRow row;
  std::vector<bool> labels;                // the reference, one per item
  std::optional<std::vector<bool>> truth;  // the clean truth, when the row has "truth"
};

// `where` names the line in errors ("val.jsonl:12").
LabeledRow parse_labeled_row(std::string_view line, const std::string& where);

// Reads every row; Error if the file cannot be read or holds no row.
std::vector<LabeledRow> read_labeled_rows(const std::filesystem::path& path);

int64_t count_items(const std::vector<LabeledRow>& rows);

}  // namespace sift
