#pragma once
// The stages of a `sift batch` run (run_batch.h), each on its own thread, joined by bounded
// queues:
//
//   reader ─chunks (kLineQueueBytes)─▶ tokenizer pool ─rows (2 calls of tokens)─▶ inference
//          ─scored batches (4)─▶ writer
//
// The first error of any stage stops every stage (queues closed, gate closed) and is rethrown
// once all threads have ended; so is a thread that cannot be started (no further one is).
#include <cstdint>

#include "batch/batch_writer.h"
#include "batch/resumable_line_reader.h"
#include "batch/pipeline_rows.h"
#include "batch/run_batch.h"
#include "scoring/loaded_labeler.h"

namespace sift::batch {

// Runs the stages until the input ends; returns where it ended (the writer has written every
// row, but not finished the job: that is the caller's, after a run without error).
LineEnd run_stages(const LoadedLabeler& engine, const BatchOptions& options, int64_t call_tokens, ResumableLineReader& reader,
                   const LineEnd& input_start, BatchWriter& writer);

}  // namespace sift::batch
