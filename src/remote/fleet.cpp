#include "remote/fleet.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "remote/engine_answers.h"
#include "remote/http_connection.h"

namespace sift::remote {

struct Fleet::Batch {
  std::vector<ScoreCall> calls;
  std::vector<ItemScores> answers;
  size_t left = 0;
  std::optional<std::string> error;
  std::condition_variable done;
};

// Fleet::work's connection to one engine, and what the identity check on it found.
struct Fleet::Link {
  std::unique_ptr<HttpConnection> connection;
  bool exact = false;  // its /v1/models named this labeler's fingerprint
  std::string model;   // the name it serves the labeler as (IdentityCheck::served_name)
};

// What one attempt came to, decided off the lock.
struct Fleet::Attempt {
  Outcome outcome = Outcome::Failed;
  std::optional<Duration> retry_after;
  std::string failure;                 // Busy, Failed: how, for the timeout's message
  ItemScores scores;                   // Answered
  std::optional<std::string> refusal;  // the engine serves another labeler (fatal to the fleet)
  std::optional<std::string> rejected; // the request was refused (4xx): its batch fails
  bool verified = false;               // the identity was checked and holds
  bool inexact = false;                // ...by name and vocabulary only (no fingerprint)
};

Fleet::Fleet(std::vector<Endpoint> endpoints, const FleetSettings& settings, LabelerIdentity identity,
             EngineProbes probes)
    : endpoints_(std::move(endpoints)),
      settings_(settings),
      identity_(std::move(identity)),
      probes_(std::move(probes)),
      policy_(endpoints_.size(), settings),
      verified_(endpoints_.size(), false),
      probe_failures_(endpoints_.size()) {
  if (endpoints_.empty()) fail("--engine: no engine given");
  for (const Endpoint& endpoint : endpoints_) urls_.push_back(endpoint.url);
  const size_t n_workers = endpoints_.size() * static_cast<size_t>(std::max(1, settings_.max_in_flight));
  for (size_t w = 0; w < n_workers; ++w) workers_.emplace_back([this] { work(); });
}

Fleet::~Fleet() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

std::chrono::milliseconds Fleet::attempt_timeout() const {
  // Half the fleet's: a request held by an engine that does not answer is sent elsewhere while
  // the others still have time to answer it.
  return std::max(std::chrono::milliseconds(1),
                  std::chrono::duration_cast<std::chrono::milliseconds>(settings_.timeout / 2));
}

void Fleet::check_engines() {
  std::vector<IdentityCheck> checks(endpoints_.size());
  std::vector<char> answered(endpoints_.size(), 0);  // not vector<bool>: each asker writes its own
  std::vector<std::string> probe_failures(endpoints_.size());
  std::vector<std::thread> askers;
  const auto timeout = std::min(attempt_timeout(), std::chrono::milliseconds(10000));
  for (size_t e = 0; e < endpoints_.size(); ++e)
    askers.emplace_back([&, e] {
      try {
        HttpConnection connection(endpoints_[e]);
        const HttpAnswer answer = connection.get("/v1/models", timeout, kMaxModelsAnswerBytes);
        if (answer.status != 200) return;  // loading, or not there yet: checked before its first request
        checks[e] = check_identity(answer.body, identity_, endpoints_[e].url);
        if (!checks[e].refusal) {  // its self-test before it counts as checked
          ProbeOutcome probed;
          try {
            probed = probe(connection, e, checks[e].exact, checks[e].served_name);
          } catch (const TransportError& error) {
            probed.failure = fmt::format("a self-test probe (POST /v1/score): {}", error.what());
          }
          if (probed.failure) {  // probed again before its first request
            probe_failures[e] = *probed.failure;
            return;
          }
          checks[e].refusal = probed.refusal;
        }
        answered[e] = 1;
      } catch (const TransportError&) {
      }
    });
  for (std::thread& asker : askers) asker.join();
  std::string refused;
  const std::lock_guard lock(mutex_);
  for (size_t e = 0; e < endpoints_.size(); ++e) {
    if (!probe_failures[e].empty()) probe_failures_[e] = probe_failures[e];
    if (!answered[e]) continue;
    std::optional<std::string> refusal = checks[e].refusal ? checks[e].refusal : admit(e, checks[e].exact);
    if (refusal) refused += (refused.empty() ? "" : "; ") + *refusal;
    else verified_[e] = true;
  }
  if (!refused.empty()) fail("refusing the engines: {}", refused);
}

bool Fleet::exact() {
  const TimePoint deadline = FleetClock::now() + settings_.timeout;
  for (;;) {
    {
      const std::lock_guard lock(mutex_);
      if (first_admitted_) return exact_;
    }
    if (FleetClock::now() >= deadline) {
      std::string probes;  // engines that named their labeler but did not answer its self-test probes
      {
        const std::lock_guard lock(mutex_);
        for (size_t e = 0; e < endpoints_.size(); ++e)
          if (!probe_failures_[e].empty()) probes += fmt::format("; engine {}: {}", urls_[e], probe_failures_[e]);
      }
      fail("no engine answered for {:.3g} s (--engine-timeout) to say which labeler it serves (GET /v1/models) and "
           "pass its self-test probes: {}{}",
           std::chrono::duration<double>(settings_.timeout).count(), fmt::join(urls_, ", "), probes);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    check_engines();
  }
}

std::vector<ItemScores> Fleet::score(std::vector<ScoreCall> calls) {
  if (calls.empty()) return {};
  auto batch = std::make_shared<Batch>();
  batch->left = calls.size();
  batch->answers.resize(calls.size());
  batch->calls = std::move(calls);
  std::unique_lock lock(mutex_);
  if (fatal_) fail("{}", *fatal_);
  const TimePoint now = FleetClock::now();
  policy_.work_arrived(now);
  for (size_t i = 0; i < batch->calls.size(); ++i) queue_.push_back({batch, i, 0, now});
  wake_.notify_all();
  while (batch->left > 0 && !batch->error) {
    batch->done.wait_for(lock, std::chrono::milliseconds(200));
    // The workers fail what is queued; a batch whose last requests are all on engines that
    // do not answer is failed here.
    if (batch->left > 0 && !batch->error && policy_.timed_out(FleetClock::now())) {
      batch->error = timeout_message();
      fail_everything(*batch->error);
    }
  }
  if (batch->error) fail("{}", *batch->error);
  return std::move(batch->answers);
}

std::string Fleet::timeout_message() const {
  return fmt::format("no engine answered for {:.3g} s (--engine-timeout): {}",
                     std::chrono::duration<double>(settings_.timeout).count(),
                     policy_.failures(urls_, FleetClock::now()));
}

std::optional<std::string> Fleet::admit(size_t engine, bool exact) {
  if (!first_admitted_) {
    first_admitted_ = engine;
    exact_ = exact;
    if (!exact)
      spdlog::warn("engine {} names no labeler fingerprint (it is not sift serve): it serves {} with this labeler's "
                   "vocabulary, but that its scores are this labeler's is not verified",
                   endpoints_[engine].url, identity_.model_name);
    return std::nullopt;
  }
  if (exact == exact_) return std::nullopt;
  const size_t proven = exact ? engine : *first_admitted_, unproven = exact ? *first_admitted_ : engine;
  return fmt::format("engine {} proves it serves this labeler (its fingerprint) but engine {} cannot (no "
                     "fingerprint): one run scores with one arithmetic; give --engine engines of one kind",
                     endpoints_[proven].url, endpoints_[unproven].url);
}

void Fleet::fail_everything(const std::string& message) {
  for (Task& task : queue_)
    if (!task.batch->error) {
      task.batch->error = message;
      task.batch->done.notify_all();
    }
  queue_.clear();
  if (in_flight_ == 0) policy_.work_drained();
}

void Fleet::work() {
  std::vector<Link> links(endpoints_.size());
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const TimePoint now = FleetClock::now();
    if (!queue_.empty() && policy_.timed_out(now)) {
      fail_everything(timeout_message());
      continue;
    }
    // The first request due whose batch still wants it, on the engine the policy chooses.
    std::optional<TimePoint> wake_at;
    auto due = queue_.end();
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->batch->error) {
        it = queue_.erase(it);
        continue;
      }
      if (it->not_before <= now) {
        due = it;
        break;
      }
      wake_at = wake_at ? std::min(*wake_at, it->not_before) : it->not_before;
      ++it;
    }
    std::optional<size_t> engine;
    if (due != queue_.end()) engine = policy_.choose(due->batch->calls[due->index].tokens, now);
    if (!engine) {
      if (queue_.empty() && in_flight_ == 0) policy_.work_drained();
      if (std::optional<TimePoint> change = policy_.next_change(now)) wake_at = wake_at ? std::min(*wake_at, *change) : *change;
      const TimePoint poll = now + std::chrono::milliseconds(250);  // the timeout is checked at least this often
      wake_.wait_until(lock, wake_at ? std::min(*wake_at, poll) : poll);
      continue;
    }
    Task task = std::move(*due);
    queue_.erase(due);
    const bool verify = !verified_[*engine];
    ++in_flight_;
    lock.unlock();
    Attempt result = attempt(links[*engine], *engine, task, verify);
    lock.lock();
    --in_flight_;
    settle(std::move(task), *engine, std::move(result));
    wake_.notify_all();
  }
}

namespace {

// A /v1/score body (score_request_body: its first field "model" names `ours`) naming `theirs`
// instead, the name an engine serves this labeler as (sift serve --served-model-name); empty
// when the body already names it.
std::string body_renamed(const std::string& body, const std::string& ours, const std::string& theirs) {
  const std::string prefix = "{\"model\":" + nlohmann::json(ours).dump();
  if (theirs.empty() || theirs == ours || !body.starts_with(prefix)) return {};
  return "{\"model\":" + nlohmann::json(theirs).dump() + body.substr(prefix.size());
}

}  // namespace

Fleet::Attempt Fleet::attempt(Link& link, size_t engine, const Task& task, bool verify) {
  Attempt result;
  const Endpoint& endpoint = endpoints_[engine];
  if (!link.connection) link.connection = std::make_unique<HttpConnection>(endpoint);
  HttpConnection& connection = *link.connection;
  const ScoreCall& call = task.batch->calls[task.index];
  const auto failed = [&](const HttpAnswer& answer, std::string_view what) {
    result.outcome = answer.status == 429 ? Outcome::Busy : Outcome::Failed;
    result.retry_after = answer.retry_after;
    result.failure =
        fmt::format("{}{} {}: {}", what, what.empty() ? "" : ":", answer.status, error_answer_message(answer.body));
  };
  // A kept-alive connection the engine closed meanwhile (stale) is opened again once, and so
  // checked again: a new connection may reach another server (a restart, a load balancer).
  for (bool reopened = false;; reopened = true) {
    try {
      if (verify || !connection.is_open()) {
        const HttpAnswer answer = connection.get("/v1/models", attempt_timeout(), kMaxModelsAnswerBytes);
        if (answer.status != 200) {
          failed(answer, "GET /v1/models");
          if (result.outcome == Outcome::Busy) result.outcome = Outcome::Failed;
          return result;
        }
        const IdentityCheck check = check_identity(answer.body, identity_, endpoint.url);
        if (check.refusal) {
          result.refusal = check.refusal;
          return result;
        }
        const ProbeOutcome probed = probe(connection, engine, check.exact, check.served_name);
        if (probed.refusal) {
          result.refusal = probed.refusal;
          return result;
        }
        if (probed.failure) {
          result.failure = *probed.failure;
          return result;
        }
        link.exact = check.exact;
        link.model = check.served_name;
        result.verified = true;
        result.inexact = !check.exact;
      }
      const std::string renamed = body_renamed(call.body, identity_.model_name, link.model);
      const HttpAnswer answer = connection.post("/v1/score", renamed.empty() ? call.body : renamed, attempt_timeout(),
                                                score_answer_bytes(call.items, call.labels));
      if (answer.status == 200) {
        std::string why;
        if (std::optional<ScoreAnswer> scored = parse_score_answer(answer.body, call.items, call.labels, why)) {
          result.refusal = check_answer_identity(scored->fingerprint, link.exact, identity_, endpoint.url);
          result.outcome = Outcome::Answered;
          result.scores = std::move(scored->scores);
        } else {
          result.failure = why;
        }
      } else if (answer.status == 429 || answer.status == 408 || answer.status >= 500) {
        failed(answer, "");
      } else {
        result.rejected = fmt::format("engine {} refused a /v1/score request ({}): {}", endpoint.url, answer.status,
                                      error_answer_message(answer.body));
      }
      return result;
    } catch (const TransportError& e) {
      if (e.stale && !reopened) continue;
      result.failure = e.what();
      return result;
    }
  }
}

Fleet::ProbeOutcome Fleet::probe(HttpConnection& connection, size_t engine, bool exact,
                                 const std::string& served_name) const {
  ProbeOutcome outcome;
  if (probes_.calls.empty()) return outcome;
  const std::string& url = endpoints_[engine].url;
  std::vector<ItemScores> answers;
  for (const ScoreCall& call : probes_.calls) {
    // named as the engine serves the labeler (--served-model-name), as a row's request is
    const std::string renamed = body_renamed(call.body, identity_.model_name, served_name);
    const HttpAnswer answer = connection.post("/v1/score", renamed.empty() ? call.body : renamed, attempt_timeout(),
                                              score_answer_bytes(call.items, call.labels));
    if (answer.status != 200 && answer.status != 408 && answer.status != 429 && answer.status < 500) {
      // the request itself refused, as a row's would be (Fleet::attempt): the probes cannot run there
      outcome.refusal = fmt::format("engine {} refused a /v1/score request ({}): {} (a self-test probe)", url,
                                    answer.status, error_answer_message(answer.body));
      return outcome;
    }
    if (answer.status != 200) {  // busy or failing: probed again
      outcome.failure = fmt::format("a self-test probe (POST /v1/score): {}: {}", answer.status,
                                    error_answer_message(answer.body));
      return outcome;
    }
    std::string why;
    std::optional<ScoreAnswer> scored = parse_score_answer(answer.body, call.items, call.labels, why);
    if (!scored) {
      outcome.failure = "a self-test probe: " + why;
      return outcome;
    }
    // Whose answer it is before what it says: an engine swapped since its check is named so.
    if ((outcome.refusal = check_answer_identity(scored->fingerprint, exact, identity_, url))) return outcome;
    answers.push_back(std::move(scored->scores));
  }
  outcome.refusal = probes_.judge(answers, exact, url);
  return outcome;
}

void Fleet::settle(Task task, size_t engine, Attempt result) {
  const TimePoint now = FleetClock::now();
  const int64_t tokens = task.batch->calls[task.index].tokens;
  // An engine serving another labeler, or of the other kind than the fleet's: fatal.
  std::optional<std::string> refusal = result.refusal;
  if (!refusal && result.verified) refusal = admit(engine, !result.inexact);
  if (refusal) {
    policy_.finished(engine, tokens, Outcome::Failed, now, std::nullopt, *refusal);
    fatal_ = *refusal;
    queue_.push_front(std::move(task));
    fail_everything(*refusal);
    return;
  }
  if (result.rejected) {
    policy_.finished(engine, tokens, Outcome::Answered, now);  // it answered: the request is wrong, not the engine
    if (!task.batch->error) {
      task.batch->error = *result.rejected;
      task.batch->done.notify_all();
    }
    return;
  }
  if (result.verified) verified_[engine] = true;
  policy_.finished(engine, tokens, result.outcome, now, result.retry_after, result.failure);
  switch (result.outcome) {
    case Outcome::Answered:
      if (!task.batch->error) {
        task.batch->answers[task.index] = std::move(result.scores);
        if (--task.batch->left == 0) task.batch->done.notify_all();
      }
      return;
    case Outcome::Busy:  // another engine may take it now
      queue_.push_front(std::move(task));
      return;
    case Outcome::Failed:
      verified_[engine] = false;  // unreachable or failing: it may come back as another server
      task.attempts += 1;
      task.not_before = now + policy_.backoff(task.attempts);
      queue_.push_front(std::move(task));
      return;
  }
}

}  // namespace sift::remote
