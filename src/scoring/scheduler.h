#pragma once
// The scheduler: the one place rows become forward calls. Every entry point feeds it jobs
// (scoring/scoring_job.h): `sift score`, `sift batch`, the label loop, the C++ API and the
// Python package through a context (run_jobs, on the caller's thread and engine), and
// `sift serve` through the queue (Scheduler: one worker thread per engine, all sharing one
// model and one prefix cache).
//
// For the jobs in hand it plans requests and packs them into calls:
//
//   mis          each job's items in the fewest in-order requests that fit the request limit
//                (split_into_requests, scoring/request_sizing.h); a request's query keys come
//                from, in this order of preference:
//                  the same call   an earlier request of the call has the same query
//                  kept keys       the prefix cache has a copy, or the engine holds them
//                                  (only where settings.reuse_queries: the feeder asks for reuse
//                                  across calls, the cache's or the engine's own)
//                  the request     the query runs here, and its keys are offered to the cache
//   independent  one request [q; c_i] per item, its query run in it: nothing reused (the baseline)
//   prefix       the query's keys once (kept, or run alone and held), then each item alone in
//                a call of its own against them (prefix caching, the other baseline)
//   generate     the jobs' packed generation through the engine (scoring/generate_mode.h): the
//                requests of all the generate jobs in hand decoded together, at most call_tokens
//                keys (prompts and answer room) in flight (scoring/batched_decode.h)
//
// Requests (at most request_tokens each) are packed in order into calls of at most
// call_tokens new tokens (a shared or kept query costs none; a longer request runs alone, and
// a prefix-mode request is a call of its own). A job is
// finished (ScoringJob::finish) as soon as the call holding its last item ends, with
//
//   result.scores, labels   YesProbability (label = score >= job.threshold); label_scores otherwise
//   result.requests         requests in the mode's own sense
//   result.prefill_tokens   the prompt tokens of its requests: its cost scored alone, the same
//                           whatever ran beside it and whatever the cache held (job_plan_cost's
//                           prompt_tokens, counted before the job runs)
//   result.cached_tokens    of those, the query tokens whose keys were reused (the same call,
//                           kept keys) instead of run: prefill - cached is what it cost here
//   result.error            a row that does not fit, or the first score that is not a
//                           probability (then the scores stay, the labels go)
//
// Every score is the bits of [q; c_i] alone: the plan decides the cost, never a value.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include "core/bounded_queue.h"
#include "model/config.h"
#include "scoring/engine.h"
#include "scoring/plan.h"
#include "scoring/plan_cost.h"
#include "scoring/prefix_cache.h"
#include "scoring/scoring_job.h"

namespace sift {

// Hooks for counters (sift serve's /metrics); every one is optional.
class SchedulerObserver {
 public:
  virtual ~SchedulerObserver() = default;
  virtual void queue_changed(int64_t jobs, int64_t tokens) {}     // jobs and tokens added (or taken: negative)
  virtual void job_started(double queue_seconds) {}               // a worker took a job
  virtual void job_dropped(std::string_view reason) {}            // "deadline"
  // A worker is about to run `jobs` (claimed, the expired dropped), on its own thread, before
  // any compute; it may hold the worker there (sift serve's test gate, serve/test_gate.h).
  virtual void batch_starting(int64_t jobs) {}
  virtual void call_done(int64_t tokens, int64_t jobs) {}         // a forward call: its new tokens, the jobs in it
  virtual void work_done(int64_t tokens, int64_t labels) {}       // tokens run, items scored
};

// What planning needs to know besides the jobs.
struct SchedulerSettings {
  int64_t request_tokens = 0;                 // one request: Lq + its items (the split, the fit check)
  int64_t call_tokens = 0;                    // one forward call's new tokens (the packing)
  int64_t max_positions = 0;                  // the model's max_position_embeddings
  bool reuse_queries = false;                 // reuse query keys across calls (kept keys)
  PrefixCache* cache = nullptr;               // copies of query keys, shared by engines (null: none)
  SchedulerObserver* observer = nullptr;
  // The cores of the queue's engines, when they share them (LocalEngines made with this
  // share): a worker counts among those scoring while it runs a batch (Scheduler only).
  ThreadShare* threads = nullptr;
  std::optional<GenerateSetup> generate;      // mode generate (none: refused)
};

// What the job's plan runs under these settings (scoring/plan_cost.h): from its token lengths
// (modes mis, independent, prefix), or from its text in mode generate (tokenized and split as
// the engine will: an Error when settings.generate is unset or an item cannot fit a request).
// The queue's measure of a job (ScoringJob::cost) and, for the baselines, their usage: the
// prefill the scheduler then counts in result.prefill_tokens is its prompt_tokens.
PlanCost job_plan_cost(const ScoringJob& job, const SchedulerSettings& settings);

// Runs `jobs` to the end on `engine`, on the calling thread; each job (claimed or not) is
// finished on the way. A failure of the engine finishes every unfinished job with its message
// and is rethrown.
void run_jobs(Engine& engine, std::span<ScoringJob* const> jobs, const SchedulerSettings& settings);

// The queue in front of the engines: jobs wait in order, bounded by their cost (what their
// plans run); each engine's worker takes what is queued, up to one call's tokens (never
// waiting for a full batch once something is there), drops the jobs abandoned or past their
// deadline (nothing computed), and runs the rest with run_jobs.
class Scheduler {
 public:
  Scheduler(std::vector<std::unique_ptr<Engine>> engines, const SchedulerSettings& settings,
            int64_t max_queue_tokens);
  ~Scheduler();  // close()
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues a job (its cost set): false, not taken, when the queue is full or closed.
  bool try_submit(const std::shared_ptr<ScoringJob>& job);
  // Waits while the queue is full; false when it is closed.
  bool submit(const std::shared_ptr<ScoringJob>& job);
  // Stops taking jobs, runs everything queued, joins the workers.
  void close();

  const SchedulerSettings& settings() const { return settings_; }

 private:
  void work(Engine& engine);
  void run_batch(Engine& engine, std::vector<std::shared_ptr<ScoringJob>>& batch);

  std::vector<std::unique_ptr<Engine>> engines_;
  SchedulerSettings settings_;
  BoundedQueue<std::shared_ptr<ScoringJob>> queue_;
  std::vector<std::thread> workers_;
};

}  // namespace sift
