#pragma once
// Fleet: scoring servers (sift serve replicas, SGLang servers) behind one client. Requests are
// idempotent, so any engine may answer any of them, and one that fails is simply sent again:
//
//   score(calls)    runs every /v1/score request to its answer and returns the answers in
//                   the order given. Worker threads (max_in_flight per engine) each take the
//                   first request due, on the engine FleetPolicy chooses (the fewest
//                   outstanding tokens), over a keep-alive connection of their own.
//   retried         connection errors, no answer within half the timeout, 5xx, 429 (Retry-After
//                   honoured), an answer that is not a /v1/score answer: with backoff and
//                   jitter, an engine that keeps failing ejected and probed back
//                   (remote/fleet_policy.h).
//   refused         an engine serving another labeler (remote/identity.h): its /v1/models
//                   checked on every connection before the first request it carries (a new
//                   connection may reach a restarted or another server), and again after
//                   it failed; sift serve's fingerprint checked in every answer (a load
//                   balancer may swap the server behind a connection that stays open). The
//                   fleet then fails, naming both, and no answer of that engine is used. So
//                   is a fleet that would mix engines that prove their labeler (sift serve's
//                   fingerprint) with engines that cannot (SGLang): one arithmetic per run.
//   probed          an engine that passed its identity check runs the labeler's self-test
//                   (EngineProbes: sift.json's probes as ordinary /v1/score requests) on that
//                   connection before any real request it carries; a miss refuses it as an
//                   identity refusal does (fatal), with the measured gap in the message.
//   fails           when work waits and no engine has answered for the timeout: an Error
//                   naming each engine's last failure; or when an engine rejects a request
//                   (4xx but 408 and 429: the request itself is wrong, another engine would
//                   say the same).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "remote/endpoint.h"
#include "remote/engine_answers.h"
#include "remote/fleet_policy.h"
#include "remote/identity.h"

namespace sift::remote {

class HttpConnection;

// One /v1/score request: its JSON body, its prompt tokens (what balancing counts), and the
// answer's shape (items x labels).
struct ScoreCall {
  std::string body;  // its first field "model" names the labeler as this client does (an engine's own name replaces it)
  int64_t tokens = 0;
  size_t items = 0;
  size_t labels = 0;
};

// The labeler's self-test on an engine (scoring/self_test.h): its probes' /v1/score requests, and
// the judge of an engine's answers to them (one per call, in order): a refusal in words, or
// nullopt. `exact`: the engine proved its labeler (sift serve's fingerprint). No calls: none run.
struct EngineProbes {
  std::vector<ScoreCall> calls;
  std::function<std::optional<std::string>(const std::vector<ItemScores>& answers, bool exact, const std::string& url)>
      judge;
};

class Fleet {
 public:
  Fleet(std::vector<Endpoint> endpoints, const FleetSettings& settings, LabelerIdentity identity,
        EngineProbes probes = {});
  ~Fleet();
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  // Asks every engine for its identity now: an Error naming every engine that serves another
  // labeler. Engines that do not answer are checked before their first request.
  void check_engines();
  // Whether the fleet's engines prove their labeler (sift serve's fingerprint: the bits of
  // scoring here) or cannot (SGLang): decided by the first engine admitted, and one run's
  // engines are all of that kind. Asks the engines again every half second until one has
  // passed its identity check; an Error when none has within the timeout.
  bool exact();
  // The answers to `calls`, in their order. Thread-safe: several contexts may score at once.
  std::vector<ItemScores> score(std::vector<ScoreCall> calls);

  size_t size() const { return endpoints_.size(); }
  const FleetSettings& settings() const { return settings_; }

 private:
  struct Batch;
  struct Task {
    std::shared_ptr<Batch> batch;
    size_t index = 0;
    int attempts = 0;
    TimePoint not_before{};
  };
  struct Attempt;
  struct Link;

  void work();
  Attempt attempt(Link& link, size_t engine, const Task& task, bool verify);
  void settle(Task task, size_t engine, Attempt result);  // under mutex_
  void fail_everything(const std::string& message);      // under mutex_
  std::string timeout_message() const;                   // under mutex_
  // An engine passed the identity check, `exact` or not: a refusal when the fleet already has
  // engines of the other kind; warns once for the first inexact one. Under mutex_.
  std::optional<std::string> admit(size_t engine, bool exact);
  std::chrono::milliseconds attempt_timeout() const;
  // The probes on `connection` to engine `engine`, just checked (`exact` or not): a refusal, or a
  // failure (no answer, not 200: the engine is not ready; it is probed again before its next
  // request), or neither when it passed.
  struct ProbeOutcome {
    std::optional<std::string> refusal;
    std::optional<std::string> failure;
  };
  ProbeOutcome probe(HttpConnection& connection, size_t engine, bool exact, const std::string& served_name) const;

  std::vector<Endpoint> endpoints_;
  std::vector<std::string> urls_;
  FleetSettings settings_;
  LabelerIdentity identity_;
  EngineProbes probes_;

  std::mutex mutex_;
  std::condition_variable wake_;
  FleetPolicy policy_;
  std::deque<Task> queue_;
  std::vector<bool> verified_;  // per engine: checked since it last failed (else every connection checks again)
  std::vector<std::string> probe_failures_;  // per engine: how its self-test probes last failed (check_engines)
  int64_t in_flight_ = 0;
  std::optional<std::string> fatal_;  // an engine serves another labeler: every score() fails
  std::optional<size_t> first_admitted_;  // the first engine admitted, and so
  bool exact_ = false;                    // ...whether the fleet's engines prove their labeler
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace sift::remote
