#include "scoring/scheduler.h"

#include <exception>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "scoring/generate_mode.h"
#include "scoring/request_sizing.h"

namespace sift {

PlanCost job_plan_cost(const ScoringJob& job, const SchedulerSettings& settings) {
  if (job.mode == ScoringMode::Generate) {
    if (!settings.generate) fail("mode generate scores text with a labeler's prompts; none was given here");
    const GenerateSetup& setup = *settings.generate;
    const auto query_len = static_cast<int64_t>(setup.prompts->query_tokens(job.query_text).size());
    const int64_t limit = std::min(setup.max_request_tokens, settings.max_positions);
    return plan_generation(*setup.prompts, *setup.artifact, query_len, job.item_texts, limit).cost;
  }
  std::vector<int64_t> lengths;
  lengths.reserve(job.items.size());
  for (const TokenIds& item : job.items) lengths.push_back(static_cast<int64_t>(item.size()));
  return plan_cost(job.mode, static_cast<int64_t>(job.query.size()), lengths, settings.request_tokens);
}

namespace {

int64_t item_tokens(const ScoringJob& job, ItemRange range) {
  int64_t n = 0;
  for (int64_t i = range.begin; i < range.end; ++i) n += static_cast<int64_t>(job.items[static_cast<size_t>(i)].size());
  return n;
}

// A request still to be planned: items of a job; `alone` for prefix mode's, each a call of
// its own (the first, with no items, stands for the job's query).
struct PendingRequest {
  int32_t job = 0;
  ItemRange items;
  bool alone = false;
};

// One run_jobs call: the plan of its jobs' requests, the calls, the accounting.
class JobRun {
 public:
  JobRun(Engine& engine, std::span<ScoringJob* const> jobs, const SchedulerSettings& settings)
      : engine_(engine), jobs_(jobs), settings_(settings), items_left_(jobs.size(), 0),
        prefix_keys_(jobs.size()) {}

  void run() {
    for (size_t j = 0; j < jobs_.size(); ++j) prepare(static_cast<int32_t>(j));
    if (!generating_.empty()) generate();
    for (size_t next = 0; next < pending_.size();) next = run_call(next);
  }

  // After a failure: every job not finished gets the message.
  void fail_unfinished(const std::string& message) {
    for (ScoringJob* job : jobs_) {
      if (job->done()) continue;
      job->result = RowResult{};
      job->result.error = message;
      job->finish();
    }
  }

 private:
  bool reuse_across_calls() const { return settings_.reuse_queries; }
  bool offer_queries() const { return settings_.cache && settings_.cache->enabled(); }

  void prepare(int32_t j) {
    ScoringJob& job = *jobs_[j];
    job.result = RowResult{};
    job.label_scores.clear();
    if (job.mode == ScoringMode::Generate) return generating_.push_back(&job);
    try {
      check_row_fits(settings_.max_positions, {job.query, job.items}, settings_.request_tokens);
    } catch (const Error& e) {
      job.result.error = e.what();
      return job.finish();
    }
    const size_t n_items = job.items.size();
    if (job.readout.kind == Readout::Kind::YesProbability) {
      job.result.scores.resize(n_items);
      job.result.labels.resize(n_items);
      if (job.calibration) job.result.probabilities.resize(n_items);
    } else {
      job.label_scores.assign(n_items, {});
    }
    items_left_[j] = static_cast<int64_t>(n_items);
    if (n_items == 0) return job.finish();
    const auto n = static_cast<int64_t>(n_items);
    switch (job.mode) {
      case ScoringMode::Mis: {
        std::vector<int64_t> lengths;
        for (const TokenIds& item : job.items) lengths.push_back(static_cast<int64_t>(item.size()));
        for (const ItemRange& range :
             split_into_requests(static_cast<int64_t>(job.query.size()), lengths, settings_.request_tokens))
          pending_.push_back({j, range, false});
        break;
      }
      case ScoringMode::Independent:
        for (int64_t i = 0; i < n; ++i) pending_.push_back({j, {i, i + 1}, false});
        break;
      case ScoringMode::Prefix:
        pending_.push_back({j, {0, 0}, true});  // the query's keys
        for (int64_t i = 0; i < n; ++i) pending_.push_back({j, {i, i + 1}, true});
        break;
      case ScoringMode::Generate: break;
    }
  }

  // The generate jobs, together: the engine decodes their requests side by side under the call
  // budget (a row it cannot plan gets its error; a failed decode fails them all).
  void generate() {
    try {
      if (!settings_.generate) fail("mode generate scores text with a labeler's prompts; none was given here");
      engine_.generate(generating_, *settings_.generate, settings_.call_tokens);
    } catch (const Error& e) {
      for (ScoringJob* job : generating_) {
        job->result = RowResult{};
        job->result.error = e.what();
      }
    }
    for (ScoringJob* job : generating_) {
      if (settings_.observer)
        settings_.observer->work_done(job->result.prefill_tokens, static_cast<int64_t>(job->result.scores.size()));
      job->finish();
    }
  }

  // The query's keys kept from an earlier call: the prefix cache's copy (looked up once per
  // run, so hits and misses count once) or one this run offered; null when neither has them.
  std::shared_ptr<const KvBlock> kept_keys(const TokenIds& query) {
    if (!settings_.cache || !reuse_across_calls()) return nullptr;
    const std::string key = ids_key(query);
    auto it = known_.find(key);
    if (it == known_.end()) it = known_.emplace(key, settings_.cache->find(query)).first;
    return it->second;
  }

  // Plans one call from pending_[first] on, runs it, and returns the first request not taken.
  size_t run_call(size_t first) {
    if (pending_[first].alone) return run_alone(first);
    PlannedCall call;
    std::unordered_set<std::string> queries_in_call;
    bool has_kept = false;
    size_t next = first;
    for (; next < pending_.size() && !pending_[next].alone; ++next) {
      const PendingRequest& p = pending_[next];
      const ScoringJob& job = *jobs_[p.job];
      CallRequest request{p.job, p.items, QuerySource::Run, nullptr, false};
      int64_t cost = item_tokens(job, p.items);
      const bool shareable = job.mode == ScoringMode::Mis && !job.query.empty();
      const std::string key = shareable ? ids_key(job.query) : std::string();
      if (shareable && queries_in_call.count(key) > 0) {
        request.query = QuerySource::SameCall;
      } else if (shareable && (request.cached = kept_keys(job.query))) {
        request.query = QuerySource::Kept;
      } else if (shareable && reuse_across_calls() && !has_kept && engine_.holds(job.query)) {
        request.query = QuerySource::Kept;
      } else {
        cost += static_cast<int64_t>(job.query.size());
        request.offer_query = shareable && offer_queries();
      }
      if (!call.requests.empty() && call.n_tokens + cost > settings_.call_tokens) break;
      if (shareable && request.query != QuerySource::SameCall) queries_in_call.insert(key);
      has_kept = has_kept || request.query == QuerySource::Kept;
      call.n_tokens += cost;
      call.requests.push_back(std::move(request));
    }
    execute(call);
    return next;
  }

  // A prefix-mode request: the job's query (run alone unless its keys are kept), or one item
  // against it.
  size_t run_alone(size_t at) {
    const PendingRequest& p = pending_[at];
    ScoringJob& job = *jobs_[p.job];
    std::shared_ptr<const KvBlock>& keys = prefix_keys_[p.job];
    const auto query_len = static_cast<int64_t>(job.query.size());
    if (p.items.size() == 0) {  // the query
      job.result.prefill_tokens += query_len;
      if ((keys = kept_keys(job.query)) || (reuse_across_calls() && engine_.holds(job.query))) {
        job.result.cached_tokens += query_len;
        return at + 1;
      }
      PlannedCall call{{{p.job, p.items, QuerySource::Run, nullptr, offer_queries()}}, query_len};
      execute(call);
      return at + 1;
    }
    // An item: the query's keys are held by the engine (run or kept just before) or copied.
    PlannedCall call{{{p.job, p.items, QuerySource::Kept, keys, false}}, item_tokens(job, p.items)};
    execute(call);
    return at + 1;
  }

  void execute(const PlannedCall& call) {
    const OfferedKeys offered = engine_.run(call, jobs_);
    int64_t jobs_in_call = 0, labels = 0;
    for (size_t k = 0; k < call.requests.size(); ++k) {
      const CallRequest& request = call.requests[k];
      ScoringJob& job = *jobs_[request.job];
      if (k == 0 || call.requests[k - 1].job != request.job) ++jobs_in_call;
      labels += request.items.size();
      if (offered[k]) {
        settings_.cache->insert(job.query, offered[k]);
        known_[ids_key(job.query)] = offered[k];
      }
      account(job, request);
    }
    if (settings_.observer) {
      settings_.observer->call_done(call.n_tokens, jobs_in_call);
      settings_.observer->work_done(call.n_tokens, labels);
    }
    for (const CallRequest& request : call.requests) {
      if (request.items.size() == 0) continue;
      if ((items_left_[request.job] -= request.items.size()) == 0) complete(*jobs_[request.job]);
    }
  }

  // Usage: a request's prompt tokens (its query and items; prefix mode counted the query once
  // already) and the query tokens it did not run.
  static void account(ScoringJob& job, const CallRequest& request) {
    if (request.items.size() == 0) return;  // prefix mode's query: counted when planned
    const auto query_len = static_cast<int64_t>(job.query.size());
    const bool prefix = job.mode == ScoringMode::Prefix;
    job.result.prefill_tokens += item_tokens(job, request.items) + (prefix ? 0 : query_len);
    if (!prefix && request.query != QuerySource::Run) job.result.cached_tokens += query_len;
    job.result.requests += 1;
  }

  // The job's last item is scored: labels, or the error of the first score that is not a
  // probability (the scores stay, for a feeder that names the item its own way).
  static void complete(ScoringJob& job) {
    RowResult& result = job.result;
    if (job.readout.kind == Readout::Kind::YesProbability) {
      for (size_t i = 0; i < result.scores.size(); ++i) {
        const double score = *result.scores[i];
        if (!is_probability(score)) {  // a broken checkpoint, never a silent NaN label
          result.error = not_a_probability_message(fmt::format("item {}", i), score);
          result.labels.clear();
          result.probabilities.clear();
          break;
        }
        std::optional<double> probability;
        if (job.calibration) result.probabilities[i] = probability = job.calibration->apply(score);
        result.labels[i] = decide_label(score, probability, {job.threshold, job.threshold_on});
      }
    } else {
      for (size_t i = 0; i < job.label_scores.size() && result.error.empty(); ++i)
        for (double p : job.label_scores[i])
          if (!is_probability(p)) {
            result.error = not_a_probability_message(fmt::format("item {}", i), p);
            break;
          }
    }
    job.finish();
  }

  Engine& engine_;
  std::span<ScoringJob* const> jobs_;
  const SchedulerSettings& settings_;
  std::vector<int64_t> items_left_;
  std::vector<PendingRequest> pending_;
  std::vector<ScoringJob*> generating_;  // the generate jobs, in order
  std::vector<std::shared_ptr<const KvBlock>> prefix_keys_;  // per job: its kept query keys (prefix mode)
  std::unordered_map<std::string, std::shared_ptr<const KvBlock>> known_;  // by query ids; null = not cached
};

}  // namespace

void run_jobs(Engine& engine, std::span<ScoringJob* const> jobs, const SchedulerSettings& settings) {
  if (jobs.empty()) return;
  JobRun run(engine, jobs, settings);
  try {
    run.run();
  } catch (const std::exception& e) {
    run.fail_unfinished(e.what());
    throw;
  }
}

Scheduler::Scheduler(std::vector<std::unique_ptr<Engine>> engines, const SchedulerSettings& settings,
                     int64_t max_queue_tokens)
    : engines_(std::move(engines)), settings_(settings), queue_(max_queue_tokens) {
  if (engines_.empty()) fail("a scheduler needs at least one engine");
  for (const std::unique_ptr<Engine>& engine : engines_)
    workers_.emplace_back([this, e = engine.get()] { work(*e); });
}

Scheduler::~Scheduler() { close(); }

bool Scheduler::try_submit(const std::shared_ptr<ScoringJob>& job) {
  if (!queue_.try_push(job, job->cost)) return false;
  if (settings_.observer) settings_.observer->queue_changed(1, job->cost);
  return true;
}

bool Scheduler::submit(const std::shared_ptr<ScoringJob>& job) {
  if (!queue_.push(job, job->cost)) return false;
  if (settings_.observer) settings_.observer->queue_changed(1, job->cost);
  return true;
}

void Scheduler::close() {
  queue_.close();
  for (std::thread& worker : workers_)
    if (worker.joinable()) worker.join();
}

void Scheduler::work(Engine& engine) {
  for (std::vector<std::shared_ptr<ScoringJob>> batch;
       !(batch = queue_.pop_batch(settings_.call_tokens)).empty();) {
    int64_t tokens = 0;
    for (const auto& job : batch) tokens += job->cost;
    if (settings_.observer) settings_.observer->queue_changed(-static_cast<int64_t>(batch.size()), -tokens);
    run_batch(engine, batch);
  }
}

void Scheduler::run_batch(Engine& engine, std::vector<std::shared_ptr<ScoringJob>>& batch) {
  std::vector<ScoringJob*> jobs;
  const Clock::time_point now = Clock::now();
  for (const auto& job : batch) {
    if (!job->claim()) continue;  // abandoned while queued (the feeder counts it)
    job->started = now;
    if (settings_.observer) settings_.observer->job_started(std::chrono::duration<double>(now - job->arrived).count());
    if (job->deadline && now > *job->deadline) {  // not started in time: no compute
      if (settings_.observer) settings_.observer->job_dropped("deadline");
      job->expired = true;
      job->finish();
      continue;
    }
    jobs.push_back(job.get());
  }
  if (jobs.empty()) return;
  if (settings_.observer) settings_.observer->batch_starting(static_cast<int64_t>(jobs.size()));
  const ThreadShare::Scoring scoring(settings_.threads);
  try {
    run_jobs(engine, jobs, settings_);
  } catch (const std::exception&) {
    // run_jobs gave every unfinished job the message: a failed batch fails its jobs, never the workers
  }
}

}  // namespace sift
