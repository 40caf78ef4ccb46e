#pragma once
// Input rows on their way through a scoring stream (`sift score`, `sift batch`): one JSON line
// parsed and tokenized (or the error it gave), then scored with its neighbours. Reading runs
// on other threads than scoring; both keep the line's number for error lines.
#include <cstdint>
#include <string>
#include <vector>

#include "model/session.h"
#include "scoring/engine.h"
#include "scoring/score_io.h"

namespace sift {

struct PendingRow {
  int64_t line_number = 0;  // from 1
  ScoringRow row;
  TokenizedRow tokens;  // not for mode generate, which scores text
  std::string error;    // why the line cannot be scored (it is not scored)
  int64_t cost = 1;     // prompt tokens: what queues and forward-call budgets count
};

// Parses `line` (a trailing "\r" is dropped) and, but for mode generate, tokenizes it (cut as
// options.truncate says when too long). A bad line gives a row with its error, and its "id"
// when the line is an object with one.
PendingRow read_pending_row(const ScoringEngine& engine, std::string& line, int64_t line_number,
                            const ScoringOptions& options);

// A line that was never parsed (e.g. too long to read): a row holding only its error.
PendingRow pending_error_row(int64_t line_number, std::string error);

// Scores the rows together on `session` (rows share forward calls). results[r].error is set
// for a row that could not be read or scored; the others hold their scores.
std::vector<RowResult> score_pending_rows(const ScoringEngine& engine, Session& session, std::vector<PendingRow>& rows,
                                          const ScoringOptions& options);

}  // namespace sift
