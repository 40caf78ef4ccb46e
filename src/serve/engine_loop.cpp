#include "serve/engine_loop.h"

#include <exception>

#include "core/log.h"
#include "scoring/readout.h"
#include "serve/shared_query_runner.h"

namespace sift::serve {
namespace {

// Ends every job of `jobs` not finished yet with `message` (an internal failure of a batch
// fails its jobs, never the server).
void fail_jobs(std::span<Job* const> jobs, const std::string& message) {
  for (Job* job : jobs) {
    if (job->done()) continue;
    job->result = RowResult{};
    job->result.error = message;
    job->finish();
  }
}

template <typename Fn>
void guarded(std::span<Job* const> jobs, Fn&& run) {
  if (jobs.empty()) return;
  try {
    run();
  } catch (const std::exception& e) {
    fail_jobs(jobs, e.what());
  }
}

ScoringOptions batch_options(int64_t max_batch_tokens) {
  ScoringOptions options;
  options.max_batch_tokens = max_batch_tokens;
  return options;
}

// The engine's limits, named as `sift serve` sets them: --max-batch-tokens, unless the model's
// own request limit (its positions, its activation budget) is lower.
PlanLimits serve_limits(const LoadedLabeler& engine, int64_t max_batch_tokens) {
  PlanLimits limits = engine.limits(batch_options(max_batch_tokens));
  limits.flags = limits.max_request_tokens < limits.max_call_tokens
                     ? "the model's: max_position_embeddings and a 4 GiB activation budget"
                     : "--max-batch-tokens";
  return limits;
}

}  // namespace

EngineLoop::EngineLoop(const LoadedLabeler& engine, const EngineLoopOptions& options, QueryKvCache& cache,
                       Metrics& metrics)
    : engine_(engine),
      options_(options),
      limits_(serve_limits(engine, options.max_batch_tokens)),
      cache_(cache),
      metrics_(metrics),
      session_(engine.model(), options.threads),
      gate_(EngineGate::from_environment()),
      queue_(options.max_queue_tokens) {
  thread_ = std::thread([this] { loop(); });
}

EngineLoop::~EngineLoop() { close(); }

bool EngineLoop::submit(const std::shared_ptr<Job>& job) {
  if (!queue_.try_push(job, job->cost)) return false;
  metrics_.queue_changed(1, job->cost);
  return true;
}

void EngineLoop::close() {
  queue_.close();
  if (thread_.joinable()) thread_.join();
}

void EngineLoop::loop() {
  for (std::vector<std::shared_ptr<Job>> batch; !(batch = queue_.pop_batch(limits_.max_call_tokens)).empty();) {
    int64_t tokens = 0;
    for (const auto& job : batch) tokens += job->cost;
    metrics_.queue_changed(-static_cast<int64_t>(batch.size()), -tokens);
    run_batch(batch);
    batch.clear();  // the jobs (and their results) belong to their connections now
  }
}

void EngineLoop::run_batch(std::vector<std::shared_ptr<Job>>& batch) {
  std::vector<Job*> shared_yes, shared_labels, independent, prefix, generate;
  const Clock::time_point now = Clock::now();
  for (const auto& job : batch) {
    if (!job->claim()) continue;  // abandoned while queued (counted by the HTTP side)
    job->started = now;
    metrics_.observe_queue_wait(std::chrono::duration<double>(now - job->arrived).count());
    if (job->deadline && now > *job->deadline) {  // not started in time: no compute
      metrics_.count_dropped("deadline");
      job->expired = true;
      job->finish();
      continue;
    }
    switch (job->mode) {
      case ScoringMode::Mis:
        (job->readout.kind == Readout::Kind::YesProbability ? shared_yes : shared_labels).push_back(job.get());
        break;
      case ScoringMode::Independent: independent.push_back(job.get()); break;
      case ScoringMode::Prefix: prefix.push_back(job.get()); break;
      case ScoringMode::Generate: generate.push_back(job.get()); break;
    }
  }

  if (!shared_yes.empty() || !shared_labels.empty() || !independent.empty() || !prefix.empty() || !generate.empty())
    gate_.pass();

  const RunnerContext context{limits_, engine_.answer_ids(), cache_, metrics_};
  guarded(shared_yes, [&] { run_shared_query_jobs(session_, shared_yes, context); });
  guarded(shared_labels, [&] { run_shared_query_jobs(session_, shared_labels, context); });

  // The engine's own modes, for the baselines: rows in, RowResults out.
  const auto run_engine = [&](std::vector<Job*>& jobs, ScoringMode mode) {
    guarded(jobs, [&] {
      ScoringOptions options = batch_options(limits_.max_call_tokens);
      options.mode = mode;
      std::vector<RowResult> results;
      if (mode == ScoringMode::Generate) {
        std::vector<TextRow> rows;
        for (Job* job : jobs) rows.push_back({job->query_text, job->item_texts});
        results = engine_.score_rows(session_, rows, options);
      } else {
        std::vector<TokenizedRow> rows;
        for (Job* job : jobs) rows.push_back({job->query, job->items, {}});
        results = engine_.score_tokenized(session_, rows, options);
      }
      for (size_t j = 0; j < jobs.size(); ++j) {
        Job& job = *jobs[j];
        job.result = std::move(results[j]);
        for (size_t i = 0; i < job.result.scores.size(); ++i)  // the request's own threshold
          if (mode != ScoringMode::Generate && job.result.scores[i])
            job.result.labels[i] = label_of(*job.result.scores[i], job.threshold);
        metrics_.count_work(job.result.prefill_tokens, static_cast<int64_t>(job.result.scores.size()));
        job.finish();
      }
    });
  };
  run_engine(independent, ScoringMode::Independent);
  run_engine(prefix, ScoringMode::Prefix);
  run_engine(generate, ScoringMode::Generate);
}

}  // namespace sift::serve
