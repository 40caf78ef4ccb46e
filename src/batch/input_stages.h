#pragma once
// The input side of `sift batch` (run_batch.h): a reader thread turns the input into chunks
// of this shard's lines, and a pool of tokenizer threads parses and tokenizes them (in any
// order) and hands the rows on in input order.
#include <atomic>
#include <cstdint>

#include "batch/in_order_gate.h"
#include "batch/resumable_line_reader.h"
#include "batch/pipeline_rows.h"
#include "batch/shard_lines.h"
#include "core/bounded_queue.h"
#include "label/shard.h"
#include "scoring/engine.h"

namespace sift::batch {

// Text read ahead of the tokenizers (the chunk queue's capacity): a few chunks, enough to keep
// them busy (reading is far faster than tokenizing); with the rows of the later stages, all of
// the input that is in memory at any time.
inline constexpr int64_t kLineQueueBytes = int64_t(256) << 10;

// Reads every line, queues this shard's in chunks (of at most 64 lines or about 64 KiB; a
// chunk costs its bytes in the queue) and closes the queue at the end.
// Returns where the input ended: the last line's end (`start` when there was none).
LineEnd read_shard_lines(ResumableLineReader& reader, const label::Shard& shard, BoundedQueue<LineChunk>& chunks,
                         const LineEnd& start, const std::atomic<bool>& stop);

// One tokenizer thread: takes chunks, reads each line into a row (read_pending_row; a line
// over the length limit is an error row), waits for the chunk's turn at the gate, pushes
// its rows to `rows` (each costing queue_cost). Returns when the chunks run out or
// the gate or `rows` is closed.
void tokenize_chunks(const ScoringEngine& engine, const ScoringOptions& options, BoundedQueue<LineChunk>& chunks,
                     InOrderGate& gate, BoundedQueue<BatchRow>& rows, const std::atomic<bool>& stop);

}  // namespace sift::batch
