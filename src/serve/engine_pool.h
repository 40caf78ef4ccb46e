#pragma once
// EnginePool: the server's side of the scheduler (scoring/scheduler.h). HTTP threads submit
// jobs (already tokenized) to the scheduler's queue, bounded by prompt tokens
// (--max-queue-tokens: a submit that would pass it is refused, and the client gets 429);
// --workers engines take from it, each made by the server's runtime (scoring/runtime.h: a
// LocalEngine on the one shared, read-only model, with the compute threads (--threads) split
// evenly among the workers running at the moment, decided at each forward call: one busy
// worker gets them all). The engines share the runtime's prefix cache of query K/V
// (--kv-cache-mb).
//
// The scheduler packs, reuses query keys, drops jobs abandoned or past their deadline, reads
// the answers out (scoring/readout.h) and finishes each job, whose on_done hands it back to
// its connection. What serve adds is its observer: /metrics' counters, and the test gate
// (test_gate.h), which holds each worker before each batch it runs.
//
// close() stops taking new jobs, runs everything already queued, and joins the workers.
#include <cstdint>
#include <memory>

#include "scoring/runtime.h"
#include "scoring/scheduler.h"
#include "serve/metrics.h"

namespace sift::serve {

struct EnginePoolOptions {
  int64_t max_batch_tokens = 0;  // new tokens of one forward call, and one request's limit
  int64_t max_queue_tokens = 0;  // prompt tokens waiting at most
  int workers = 1;               // engines the runtime makes
};

class EnginePool {
 public:
  // `runtime` (its labeler, cache and threads) outlives the pool.
  EnginePool(Runtime& runtime, const EnginePoolOptions& options, Metrics& metrics);
  ~EnginePool();  // close()
  EnginePool(const EnginePool&) = delete;
  EnginePool& operator=(const EnginePool&) = delete;

  // False when the queue is full (or closed): the job is not taken.
  bool submit(const std::shared_ptr<ScoringJob>& job) { return scheduler_->try_submit(job); }
  void close() { scheduler_->close(); }

  // The call and request limits every job is checked against before it is queued.
  const PlanLimits& limits() const { return limits_; }
  // What the scheduler plans with (job_plan_cost: what a job costs in the queue).
  const SchedulerSettings& settings() const { return scheduler_->settings(); }
  PrefixCacheStats cache_stats() const { return runtime_.cache_stats(); }

 private:
  class Observer;

  Runtime& runtime_;
  PlanLimits limits_;
  std::unique_ptr<Observer> observer_;
  std::unique_ptr<Scheduler> scheduler_;  // last: its workers stop before the rest goes
};

}  // namespace sift::serve
