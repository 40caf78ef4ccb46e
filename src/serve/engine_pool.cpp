#include "serve/engine_pool.h"

#include <string_view>
#include <utility>
#include <vector>

#include "serve/test_gate.h"

namespace sift::serve {
namespace {

ScoringOptions batch_options(int64_t max_batch_tokens) {
  ScoringOptions options;
  options.max_batch_tokens = max_batch_tokens;
  return options;
}

// The labeler's limits, named as `sift serve` sets them: --max-batch-tokens, unless the model's
// own request limit (its positions, its activation budget) is lower.
PlanLimits serve_limits(const LoadedLabeler& labeler, int64_t max_batch_tokens) {
  PlanLimits limits = labeler.limits(batch_options(max_batch_tokens));
  limits.flags = limits.max_request_tokens < limits.max_call_tokens
                     ? "the model's: max_position_embeddings and a 4 GiB activation budget"
                     : "--max-batch-tokens";
  return limits;
}

}  // namespace

// The scheduler's hooks: /metrics, and the test gate before each batch.
class EnginePool::Observer final : public SchedulerObserver {
 public:
  explicit Observer(Metrics& metrics) : metrics_(metrics), gate_(TestGate::from_environment(kEngineGateVariable)) {}

  void queue_changed(int64_t jobs, int64_t tokens) override { metrics_.queue_changed(jobs, tokens); }
  void job_started(double queue_seconds) override { metrics_.observe_queue_wait(queue_seconds); }
  void job_dropped(std::string_view reason) override { metrics_.count_dropped(reason); }
  void batch_starting(int64_t) override { gate_.pass(); }
  void call_done(int64_t tokens, int64_t jobs) override { metrics_.count_call(tokens, jobs); }
  void work_done(int64_t tokens, int64_t labels) override { metrics_.count_work(tokens, labels); }

 private:
  Metrics& metrics_;
  TestGate gate_;
};

EnginePool::EnginePool(Runtime& runtime, const EnginePoolOptions& options, Metrics& metrics)
    : runtime_(runtime),
      limits_(serve_limits(runtime.labeler(), options.max_batch_tokens)),
      observer_(std::make_unique<Observer>(metrics)) {
  SchedulerSettings settings =
      runtime.labeler().scheduler_settings(batch_options(options.max_batch_tokens), &runtime.cache());
  settings.observer = observer_.get();
  settings.threads = &runtime.share();
  std::vector<std::unique_ptr<Engine>> engines;
  for (int w = 0; w < options.workers; ++w) engines.push_back(runtime.make_engine());
  scheduler_ = std::make_unique<Scheduler>(std::move(engines), settings, options.max_queue_tokens);
}

EnginePool::~EnginePool() { close(); }

}  // namespace sift::serve
