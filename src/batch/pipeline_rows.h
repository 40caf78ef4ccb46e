#pragma once
// What flows between the stages of `sift batch` (run_batch.h):
//
//   reader --LineChunk--> tokenizer pool --BatchRow--> inference --ScoredBatch--> writer
//
// Every row carries where the input stands after its line (LineEnd), so the writer, which
// writes rows in input order, knows at any row what a checkpoint must record.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "batch/resumable_input.h"
#include "batch/resumable_line_reader.h"
#include "workflows/pending_rows.h"

namespace sift::batch {

struct LineEnd {
  int64_t line_number = 0;  // lines consumed
  InputPosition next;       // where reading resumes
  int64_t next_offset = 0;  // decoded bytes consumed
  int64_t file_offset = 0;  // file bytes consumed (progress)
};

inline LineEnd end_of(const ResumableLine& line) { return {line.number, line.next, line.next_offset, line.file_offset}; }

// Lines of this shard in input order, numbered in sequence for the tokenizer pool's reordering.
struct LineChunk {
  int64_t sequence = 0;
  std::vector<ResumableLine> lines{};
};

struct BatchRow {
  PendingRow pending;
  LineEnd end;
};

// What a row costs in the queue to inference: its prompt tokens (so a batch taken from the
// queue is about one forward call), but at least its line's bytes / 16, so rows whose lines
// are mostly pass-through fields cannot crowd memory (a token is 3-5 bytes of text, so for
// ordinary rows the tokens decide).
inline int64_t queue_cost(const PendingRow& row, size_t line_bytes) {
  return std::max(row.cost, int64_t(line_bytes / 16));
}

struct ScoredBatch {
  std::vector<PendingRow> rows;
  std::vector<RowResult> results;
  std::vector<LineEnd> ends;
};

}  // namespace sift::batch
