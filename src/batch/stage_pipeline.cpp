#include "batch/stage_pipeline.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "batch/in_order_gate.h"
#include "batch/input_stages.h"
#include "core/bounded_queue.h"
#include "core/error.h"

namespace sift::batch {
namespace {

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

}  // namespace

LineEnd run_stages(const ScoringEngine& engine, const BatchOptions& options, int64_t call_tokens, ResumableLineReader& reader,
                   const LineEnd& input_start, BatchWriter& writer) {
  BoundedQueue<LineChunk> chunks(kLineQueueBytes);  // bytes of line text
  InOrderGate gate;
  BoundedQueue<BatchRow> rows(2 * call_tokens);  // queue_cost: two forward calls ahead
  BoundedQueue<ScoredBatch> scored(4);           // batches
  StageErrors errors;
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
  threads.reserve(size_t(n_tokenizers) + 3);
  // A thread that cannot be started (the system's thread limit) is the run's error: every
  // stage stops, no further one starts, and the started ones are joined below.
  const auto start = [&](auto&& stage) {
    if (errors.stop_flag()) return;
    try {
      threads.emplace_back(guarded(std::forward<decltype(stage)>(stage)));
    } catch (const std::system_error& e) {
      errors.record(std::make_exception_ptr(Error(fmt::format(
                        "sift batch: cannot start thread {} of {} (--tokenize-threads {}): {}", threads.size() + 1,
                        n_tokenizers + 3, n_tokenizers, e.what()))),
                    stop_all);
    }
  };

  LineEnd input_end = input_start;
  start([&] { input_end = read_shard_lines(reader, options.shard, chunks, input_start, errors.stop_flag()); });
  std::atomic<int> tokenizers_left{n_tokenizers};
  for (int t = 0; t < n_tokenizers; ++t)
    start([&] {
      tokenize_chunks(engine, options.scoring, chunks, gate, rows, errors.stop_flag());
      if (--tokenizers_left == 0) rows.close();
    });
  start([&] {
    Session session(engine.model(), options.inference_threads);
    for (std::vector<BatchRow> taken;
         !errors.stop_flag() && !(taken = rows.pop_batch(call_tokens)).empty();) {
      ScoredBatch batch;
      for (BatchRow& row : taken) {
        batch.rows.push_back(std::move(row.pending));
        batch.ends.push_back(row.end);
      }
      batch.results = score_pending_rows(engine, session, batch.rows, options.scoring);
      if (!scored.push(std::move(batch), 1)) return;
    }
    scored.close();
  });
  start([&] {
    for (std::vector<ScoredBatch> taken; !errors.stop_flag() && !(taken = scored.pop_batch(1)).empty();)
      for (ScoredBatch& batch : taken) writer.write(batch);
  });
  for (std::thread& thread : threads) thread.join();
  errors.rethrow();
  return input_end;
}

}  // namespace sift::batch
