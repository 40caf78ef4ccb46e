#pragma once
// What `sift batch` keeps of each row on its way through the pipeline (formats/row_pipeline.h):
// where the input stands after its line (LineEnd), so the writer, which writes rows in input
// order, knows at any row what a checkpoint must record.
#include <cstdint>

#include "batch/resumable_input.h"
#include "batch/resumable_line_reader.h"
#include "formats/row_pipeline.h"

namespace sift::batch {

struct LineEnd {
  int64_t line_number = 0;  // lines consumed
  InputPosition next;       // where reading resumes
  int64_t next_offset = 0;  // decoded bytes consumed
  int64_t file_offset = 0;  // file bytes consumed (progress)
};

inline LineEnd end_of(const ResumableLine& line) { return {line.number, line.next, line.next_offset, line.file_offset}; }

using ScoredBatch = ScoredRows<LineEnd>;

}  // namespace sift::batch
