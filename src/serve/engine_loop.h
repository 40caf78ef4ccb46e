#pragma once
// EngineLoop: the one thread that runs the model for the server, on a Session of its own.
//
// HTTP threads submit jobs (already tokenized) to a queue bounded by prompt tokens
// (--max-queue-tokens: a submit that would pass it is refused, and the client gets 429).
// The loop takes whatever is queued, up to --max-batch-tokens of it (never waiting for a
// full batch once something is there), drops jobs whose client gave up or whose deadline
// has passed (no compute spent), and runs the rest by mode:
//
//   mis (label, rerank, score)  shared_query_runner: packed calls + the query-KV cache
//   independent, prefix         LoadedLabeler::score_tokenized (the engine's own modes)
//   generate                    LoadedLabeler::score_rows on the text
//
// Each job is finished as soon as its work is done. close() stops taking new jobs, runs
// everything already queued, and joins the thread. (Tests can hold the loop before each
// batch: engine_gate.h.)
#include <memory>
#include <thread>

#include "core/bounded_queue.h"
#include "model/session.h"
#include "scoring/loaded_labeler.h"
#include "serve/engine_gate.h"
#include "serve/job.h"
#include "serve/metrics.h"
#include "serve/query_kv_cache.h"

namespace sift::serve {

struct EngineLoopOptions {
  int64_t max_batch_tokens = 0;  // new tokens of one forward call
  int64_t max_queue_tokens = 0;  // prompt tokens waiting at most
  int threads = 0;               // the session's threads (0: the process default)
};

class EngineLoop {
 public:
  EngineLoop(const LoadedLabeler& engine, const EngineLoopOptions& options, QueryKvCache& cache, Metrics& metrics);
  ~EngineLoop();  // close()
  EngineLoop(const EngineLoop&) = delete;
  EngineLoop& operator=(const EngineLoop&) = delete;

  // False when the queue is full (or closed): the job is not taken.
  bool submit(const std::shared_ptr<Job>& job);
  void close();

  // The call and request limits every job is checked against before it is queued.
  const PlanLimits& limits() const { return limits_; }

 private:
  void loop();
  void run_batch(std::vector<std::shared_ptr<Job>>& batch);

  const LoadedLabeler& engine_;
  EngineLoopOptions options_;
  PlanLimits limits_;
  QueryKvCache& cache_;
  Metrics& metrics_;
  Session session_;
  EngineGate gate_;
  BoundedQueue<std::shared_ptr<Job>> queue_;
  std::thread thread_;
};

}  // namespace sift::serve
