#pragma once
// Input rows on their way through a scoring stream (`sift score`, `sift batch`, the
// pipeline of formats/row_pipeline.h): one JSON line parsed and tokenized (or the error it
// gave), then scored with its neighbours on a context. Reading runs on other threads than
// scoring; both keep the line's number for error lines.
#include <cstdint>
#include <string>
#include <vector>

#include "formats/score_io.h"
#include "sift/labeler.h"

namespace sift {

struct PendingRow {
  int64_t line_number = 0;  // from 1
  ScoringRow row;
  TokenizedRow tokens;  // not for mode generate, which scores text
  std::string error;    // why the line cannot be scored (it is not scored)
  int64_t cost = 1;     // what its plan runs (scoring/plan_cost.h): what queues count (mode generate: 1)
};

// Parses `line` (a trailing "\r" is dropped) and, but for mode generate, tokenizes it (cut as
// options.truncate says when too long). A bad line gives a row with its error, and its "id"
// when the line is an object with one.
PendingRow read_pending_row(const Labeler& labeler, std::string& line, int64_t line_number,
                            const ScoringOptions& options);

// A line that was never parsed (e.g. too long to read): a row holding only its error.
PendingRow pending_error_row(int64_t line_number, std::string error);

// Scores the rows together on `scorer`, a Context or a Labeler (one of its pooled contexts):
// rows share forward calls; their tokens are moved out. results[r].error is set for a row that
// could not be read or scored; the others hold their scores.
template <typename Scorer>
std::vector<RowResult> score_pending_rows(Scorer& scorer, std::vector<PendingRow>& rows, const ScoringOptions& options) {
  std::vector<RowResult> results(rows.size());
  if (options.mode == ScoringMode::Generate) {
    std::vector<Row> text_rows;
    std::vector<size_t> scored;  // the rows read without error
    for (size_t r = 0; r < rows.size(); ++r)
      if (rows[r].error.empty()) {
        text_rows.push_back({rows[r].row.query, rows[r].row.items});
        scored.push_back(r);
      }
    std::vector<RowResult> generated = scorer.score_rows(text_rows, options);
    for (size_t k = 0; k < scored.size(); ++k) results[scored[k]] = std::move(generated[k]);
  } else {
    std::vector<TokenizedRow> token_rows;
    token_rows.reserve(rows.size());
    for (PendingRow& p : rows) {
      token_rows.push_back(std::move(p.tokens));
      if (!p.error.empty()) token_rows.back().error = p.error;  // left out of the forward calls
    }
    results = scorer.score_tokenized(token_rows, options);
  }
  for (size_t r = 0; r < rows.size(); ++r)
    if (!rows[r].error.empty()) {
      results[r] = RowResult{};
      results[r].error = rows[r].error;
    }
  return results;
}

}  // namespace sift
