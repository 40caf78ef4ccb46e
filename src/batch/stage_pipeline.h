#pragma once
// The stages of a `sift batch` run (run_batch.h): the pipeline of formats/row_pipeline.h fed
// with this shard's lines of the resumable input, and the writer (batch_writer.h) as its end.
//
//   reader (this shard's lines) ─▶ tokenizer pool (--tokenize-threads) ─▶ scorer (the context)
//     ─▶ writer (in input order, checkpoints)
#include <cstdint>

#include "batch/batch_writer.h"
#include "batch/pipeline_rows.h"
#include "batch/resumable_line_reader.h"
#include "batch/run_batch.h"
#include "batch/shard_lines.h"
#include "sift/labeler.h"

namespace sift::batch {

// Runs the stages until the input ends; returns where it ended (the writer has written every
// row, but not finished the job: that is the caller's, after a run without error).
LineEnd run_stages(const Labeler& labeler, Context& context, const BatchOptions& options, ResumableLineReader& reader,
                   const LineEnd& input_start, BatchWriter& writer);

}  // namespace sift::batch
