#pragma once
// The one pipeline of `sift score` (workflows/score_stream.h) and `sift batch`
// (batch/run_batch.h): JSON lines in, scored rows out, in input order. Each stage is a thread,
// joined to the next by a bounded queue, so memory does not grow with the input:
//
//   reader ──chunks (kLineQueueBytes)──▶ tokenizers (N threads: parse, tokenize)
//          ──rows, in input order (two forward calls of tokens)──▶ scorer (a Context: the
//          scheduler packs the rows it takes into calls) ──scored batches (4)──▶ writer (the caller)
//
// The scorer takes whatever is queued, up to one call's tokens (never waiting for a full
// batch once something is there), so rows typed one by one are scored as they come and a
// flood fills each call. The first error of any stage (the caller's `next` and `write`
// included) stops every stage and is rethrown once all threads have ended; so is a thread
// that cannot be started (no further one is).
//
// Position is what the caller needs to know of each line again when it is written (`sift
// batch`: where the input stands after it, for its checkpoints).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/bounded_queue.h"
#include "core/error.h"
#include "core/in_order_gate.h"
#include "core/parallel.h"
#include "formats/pending_rows.h"
#include "sift/labeler.h"

namespace sift {

// Text read ahead of the tokenizers (the chunk queue's capacity): a few chunks, enough to keep
// them busy (reading is far faster than tokenizing); with the rows of the later stages, all of
// the input that is in memory at any time.
inline constexpr int64_t kLineQueueBytes = int64_t(256) << 10;
inline constexpr size_t kChunkBytes = size_t(64) << 10;

// A line as the reader hands it on.
template <typename Position>
struct PipelineLine {
  int64_t number = 0;  // from 1
  std::string text;
  std::string error;   // set when the line could not be read (too long): the row's error, not parsed
  Position position{};
};

// Rows scored together, with their results and positions, in input order.
template <typename Position>
struct ScoredRows {
  std::vector<PendingRow> rows;
  std::vector<RowResult> results;
  std::vector<Position> positions;
};

struct RowPipelineOptions {
  ScoringOptions scoring;
  int tokenize_threads = 1;
  size_t chunk_lines = 64;            // lines a tokenizer takes at once (1: each as it comes)
  std::string command = "sift";       // names the command in errors
  std::string tokenize_threads_flag;  // the flag that set tokenize_threads, for errors (if any)
};

// What a row costs in the queue to the scorer: the tokens its plan runs in the mode asked
// (PendingRow::cost, so a batch taken from the queue is about one forward call's work), but at
// least its line's bytes / 16, so rows whose lines are mostly pass-through fields (or rows of
// mode generate, whose text is tokenized by the scorer) cannot crowd memory (a token is 3-5
// bytes of text, so for ordinary rows the tokens decide).
inline int64_t queue_cost(const PendingRow& row, size_t line_bytes) {
  return std::max(row.cost, int64_t(line_bytes / 16));
}

namespace detail {

// The first error of any stage, and the signal for every stage to stop.
class StageErrors {
 public:
  template <typename StopAll>
  void record(std::exception_ptr error, StopAll&& stop_all) {
    {
      std::lock_guard lock(mutex_);
      if (!first_) first_ = error;
    }
    stop_ = true;
    stop_all();
  }
  const std::atomic<bool>& stop_flag() const { return stop_; }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr first_;
  std::atomic<bool> stop_{false};
};

}  // namespace detail

// Runs the pipeline until next_line (on the reader thread) returns false and every row read
// has been written: write (on the calling thread) receives the scored batches in input order.
template <typename Position>
void run_row_pipeline(const Labeler& labeler, Context& context, const RowPipelineOptions& options,
                      const std::function<bool(PipelineLine<Position>&)>& next_line,
                      const std::function<void(ScoredRows<Position>&)>& write) {
  struct Chunk {
    int64_t sequence = 0;
    std::vector<PipelineLine<Position>> lines;
  };
  struct QueuedRow {
    PendingRow pending;
    Position position;
  };
  const int64_t call_tokens = labeler.resolve(options.scoring).call_tokens;
  BoundedQueue<Chunk> chunks(kLineQueueBytes);  // bytes of line text
  InOrderGate gate;
  BoundedQueue<QueuedRow> rows(2 * call_tokens);  // queue_cost: two forward calls ahead
  BoundedQueue<ScoredRows<Position>> scored(4);   // batches
  detail::StageErrors errors;
  const std::atomic<bool>& stop = errors.stop_flag();
  const auto stop_all = [&] {
    chunks.close();
    gate.close();
    rows.close();
    scored.close();
  };
  const auto guarded = [&](auto&& stage) {
    return [&, stage] {
      try {
        stage();
      } catch (...) {
        errors.record(std::current_exception(), stop_all);
      }
    };
  };

  const int n_tokenizers = std::max(1, options.tokenize_threads);
  std::vector<std::thread> threads;
  threads.reserve(size_t(n_tokenizers) + 2);
  // A thread that cannot be started (the system's thread limit) is the run's error: every
  // stage stops, no further one starts, and the started ones are joined below.
  const auto start = [&](auto&& stage) {
    if (stop) return;
    try {
      threads.emplace_back(guarded(std::forward<decltype(stage)>(stage)));
    } catch (const std::system_error& e) {
      const std::string flag = options.tokenize_threads_flag.empty()
                                   ? std::string()
                                   : fmt::format(" ({} {})", options.tokenize_threads_flag, n_tokenizers);
      errors.record(std::make_exception_ptr(Error(fmt::format("{}: cannot start thread {} of {}{}: {}", options.command,
                                                              threads.size() + 1, n_tokenizers + 2, flag, e.what()))),
                    stop_all);
    }
  };

  // Reader: lines in chunks (a chunk costs its bytes in the queue).
  start([&] {
    Chunk chunk;
    size_t chunk_bytes = 0;
    const auto send = [&] {
      const int64_t next_sequence = chunk.sequence + 1;
      const bool sent = chunks.push(std::move(chunk), int64_t(chunk_bytes));
      chunk = Chunk{.sequence = next_sequence, .lines = {}};
      chunk_bytes = 0;
      return sent;
    };
    for (PipelineLine<Position> line; !stop && next_line(line); line = PipelineLine<Position>{}) {
      chunk_bytes += line.text.size() + 1;
      chunk.lines.push_back(std::move(line));
      if ((chunk.lines.size() >= options.chunk_lines || chunk_bytes >= kChunkBytes) && !send()) break;
    }
    if (!chunk.lines.empty() && !stop) send();
    chunks.close();
  });
  // Tokenizers: parse and tokenize a chunk (in any order), hand its rows on in input order.
  std::atomic<int> tokenizers_left{n_tokenizers};
  for (int t = 0; t < n_tokenizers; ++t)
    start([&] {
      const ThreadCount one_thread(1);  // parallel across chunks, not within one
      for (std::vector<Chunk> taken; !stop && !(taken = chunks.pop_batch(0)).empty();) {
        Chunk& chunk = taken.front();
        std::vector<std::pair<QueuedRow, int64_t>> read;  // rows and their queue costs
        read.reserve(chunk.lines.size());
        for (PipelineLine<Position>& line : chunk.lines) {
          PendingRow pending = line.error.empty() ? read_pending_row(labeler, line.text, line.number, options.scoring)
                                                  : pending_error_row(line.number, std::move(line.error));
          const int64_t cost = queue_cost(pending, line.text.size());
          read.emplace_back(QueuedRow{std::move(pending), std::move(line.position)}, cost);
        }
        if (!gate.wait_turn(chunk.sequence)) break;
        for (auto& [row, cost] : read)
          if (!rows.push(std::move(row), cost)) break;
        gate.pass();
      }
      if (--tokenizers_left == 0) rows.close();
    });
  // Scorer: whatever is queued, up to one call's tokens, scored together on the context.
  start([&] {
    for (std::vector<QueuedRow> taken; !stop && !(taken = rows.pop_batch(call_tokens)).empty();) {
      ScoredRows<Position> batch;
      for (QueuedRow& row : taken) {
        batch.rows.push_back(std::move(row.pending));
        batch.positions.push_back(std::move(row.position));
      }
      batch.results = score_pending_rows(context, batch.rows, options.scoring);
      if (!scored.push(std::move(batch), 1)) return;
    }
    scored.close();
  });
  // Writer: this thread.
  try {
    for (std::vector<ScoredRows<Position>> taken; !stop && !(taken = scored.pop_batch(1)).empty();)
      for (ScoredRows<Position>& batch : taken) write(batch);
  } catch (...) {
    errors.record(std::current_exception(), stop_all);
  }
  stop_all();  // a writer that stopped early ends the others
  for (std::thread& thread : threads) thread.join();
  errors.rethrow();
}

}  // namespace sift
